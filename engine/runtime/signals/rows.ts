/**
 * The outbox rows a step's signals leave as (see `mod.ts`): kept apart from
 * the sink so that the commit, which writes them, need not import the
 * stepping the sink does.
 *
 * @module
 */
import { newId } from "../../core/ids.ts";
import type { Effects } from "../../executor/mod.ts";
import type { OutboxRow } from "../instances/repository.ts";

/** The destination scheme of a broadcast. */
export const SCHEME = "signal";

/** Names the instance that threw the signal (it caught its own already). */
export const THROWER_HEADER = "sutra-signal-thrower";

/** The outbox rows broadcasting the step's signals to the tenant's other instances. */
export function signalRows(tenant: string, instanceId: string, effects: Effects): OutboxRow[] {
  return effects.signals.map((s) => ({
    outboxId: newId(),
    destination: `${SCHEME}:${encodeURIComponent(tenant)}/${encodeURIComponent(s.name)}`,
    headers: { [THROWER_HEADER]: instanceId },
    body: new Uint8Array(),
    // The throw's identity: every instance it reaches records it as its dedup key.
    idempotencyKey: newId(),
  }));
}
