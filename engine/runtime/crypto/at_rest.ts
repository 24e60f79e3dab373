/**
 * The two calls the runtime makes around the `instances.snapshot` column:
 * {@link encodeAtRest} where a step's state becomes the text it commits,
 * {@link decodeAtRest} where a claimed row becomes a state again. Without a
 * keyring (`sutra.crypto.keyring` unset) they are the executor's plain
 * encode and decode.
 *
 * @module
 */
import type { ExecutionPlan } from "../../bpmn/mod.ts";
import { DiagnosticError } from "../../core/diagnostic.ts";
import {
  type DecodeResult,
  decodeSnapshot,
  encodeSnapshotText,
  type InstanceState,
} from "../../executor/mod.ts";
import { protectedVariables } from "../audit/observed.ts";
import type { Keyring } from "./keyring.ts";
import { openSnapshot, sealSnapshot } from "./snapshot_seal.ts";

/** Where a snapshot's data keys come from. */
export interface AtRestOptions {
  readonly tenant: string;
  /** The loaded keyring; absent, nothing is encrypted. */
  readonly keyring?: Keyring;
}

/**
 * The snapshot text of `state` with its protected variables (sensitive
 * names and `q:source`-bound payloads with a `dataClass` or `q:redactors`)
 * sealed. Throws a `DiagnosticError` (`SUTRA.CRYPTO.KEY_MISSING`) rather
 * than write one of them in clear when the tenant has no key.
 */
export async function encodeAtRest(
  plan: ExecutionPlan,
  state: InstanceState,
  options: AtRestOptions,
): Promise<string> {
  const text = encodeSnapshotText(plan, state);
  if (!options.keyring) return text;
  return await sealSnapshot(text, {
    tenant: options.tenant,
    keyring: options.keyring,
    protect: protectedVariables(plan, state),
  });
}

/**
 * Opens a stored snapshot and decodes it against `plan`. A sealed value
 * that cannot be opened is a diagnostic like any unreadable snapshot
 * (`SUTRA.CRYPTO.*`), never a partly read state.
 */
export async function decodeAtRest(
  plan: ExecutionPlan,
  snapshot: string | Uint8Array,
  options: AtRestOptions,
): Promise<DecodeResult> {
  let text: string;
  try {
    text = await openSnapshot(snapshot, options);
  } catch (e) {
    if (e instanceof DiagnosticError) return { diagnostics: e.diagnostics };
    return decodeSnapshot(plan, snapshot);
  }
  return decodeSnapshot(plan, text);
}
