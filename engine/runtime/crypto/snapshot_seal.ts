/**
 * Encryption at rest of an instance's protected variables, as a transform
 * of the snapshot container: {@link sealSnapshot} after the executor encoded
 * a state, {@link openSnapshot} before it decodes one.
 *
 * A protected variable's entry `sutra.var.<name>` (or
 * `sutra.local.<scope>.<name>`) is replaced by `sutra.enc.var.<name>` (or
 * `sutra.enc.local.<scope>.<name>`) whose value is
 * `v1:<keyId>:<base64 of iv ‖ ciphertext ‖ tag>`. The plaintext is the
 * entry's value exactly as the executor wrote it, so at the typed
 * generation the type tag travels inside the ciphertext and a sealed
 * number is a number again once opened. Encryption is recognised by that
 * key prefix alone; the generation integer says 3 for an encrypted
 * snapshot whose values are all strings and stays 4 when they are typed.
 *
 * The authenticated data binds each ciphertext to its tenant, its instance,
 * its entry key (the variable's name and scope) and its data key id, and
 * deliberately not to the deployment: migrating an instance to another
 * deployment changes its pin, and its sealed values still open. Every other
 * entry passes through untouched, so the byte-level patchers that rewrite
 * engine keys never need a key and never see plaintext.
 *
 * @module
 */
import { diagnostic, DiagnosticError } from "../../core/diagnostic.ts";
import { encodeValue } from "../../executor/mod.ts";
import { parseContainer, renderContainer } from "../../executor/snapshot.ts";
import { MASK } from "../../core/redactor.ts";
import { openBytes, sealBytes } from "./envelope.ts";
import type { Keyring } from "./keyring.ts";

/** The key prefix of a sealed entry. */
export const SEALED_PREFIX = "sutra.enc.";
const VERSION = "v1";
const GENERATION = "sutra.generation";
/** Plain generation (every value a string) and its encrypted counterpart. */
const PLAIN = "2";
const ENCRYPTED = "3";

const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: true });

/** The variable name of a `sutra.var.*` / `sutra.local.<scope>.*` entry key, if it is one. */
function variableName(key: string): string | undefined {
  if (key.startsWith("sutra.var.")) return key.slice(10);
  const local = /^sutra\.local\.\d+\.(.*)$/s.exec(key);
  return local?.[1];
}

function aad(tenant: string, instanceId: string, key: string, keyId: string) {
  return encoder.encode(
    `sutra.enc.${VERSION}\u0000${tenant}\u0000${instanceId}\u0000${key}\u0000${keyId}`,
  );
}

/** Options for {@link sealSnapshot}. */
export interface SealOptions {
  /** The instance's tenant: its active data key seals. */
  readonly tenant: string;
  readonly keyring: Keyring;
  /** Variable names to encrypt (in every scope). */
  readonly protect: ReadonlySet<string> | ReadonlyMap<string, unknown>;
}

/**
 * The snapshot with every protected variable's entry sealed. Unchanged text
 * when nothing is protected. Fails closed with `SUTRA.CRYPTO.KEY_MISSING`
 * when something must be sealed and the tenant has no data key.
 */
export async function sealSnapshot(text: string, options: SealOptions): Promise<string> {
  if (options.protect.size === 0) return text;
  const entries = parseContainer(text);
  const targets = [...entries.keys()].filter((k) => {
    const name = variableName(k);
    return name !== undefined && options.protect.has(name);
  });
  if (targets.length === 0) return text;
  const instanceId = entries.get("sutra.instance") ?? "";
  const dek = options.keyring.active(options.tenant);
  if (!dek) {
    throw new DiagnosticError(diagnostic(
      "SUTRA.CRYPTO.KEY_MISSING",
      `instance '${instanceId}' has sensitive variables to encrypt but tenant '${options.tenant}' has no data key (provision one with sutra crypto provision-dek)`,
      { attributes: { tenant: options.tenant, instanceId } },
    ));
  }
  // Each value is its own Web Crypto call; they run together rather than one after another.
  const sealed = await everySettled(targets.map((key) =>
    sealBytes(
      dek.key,
      encoder.encode(entries.get(key)!),
      aad(options.tenant, instanceId, key, dek.keyId),
    )
  ));
  targets.forEach((key, i) => {
    entries.delete(key);
    entries.set(
      `${SEALED_PREFIX}${key.slice(6)}`,
      `${VERSION}:${dek.keyId}:${sealed[i].toBase64()}`,
    );
  });
  if (entries.get(GENERATION) === PLAIN) entries.set(GENERATION, ENCRYPTED);
  return renderContainer(entries);
}

/** True when a snapshot holds a sealed entry (a cheap scan, no parsing). */
export function isSealed(text: string): boolean {
  return text.startsWith(SEALED_PREFIX) || text.includes(`\n${SEALED_PREFIX}`);
}

/** Options for {@link openSnapshot}. */
export interface OpenOptions {
  readonly tenant: string;
  /** Absent when no keyring is configured: a sealed snapshot then cannot be opened. */
  readonly keyring?: Keyring;
}

/**
 * The snapshot with every sealed entry decrypted back to the entry the
 * executor wrote. Fails closed: a key the keyring lacks is
 * `SUTRA.CRYPTO.KEY_UNKNOWN`, a value that does not authenticate is
 * `SUTRA.CRYPTO.DECRYPT_FAILED`; nothing partial is returned.
 */
export async function openSnapshot(
  snapshot: string | Uint8Array,
  options: OpenOptions,
): Promise<string> {
  const text = typeof snapshot === "string" ? snapshot : decoder.decode(snapshot);
  if (!isSealed(text)) return text;
  const entries = parseContainer(text);
  const instanceId = entries.get("sutra.instance") ?? "";
  const sealed = [...entries].filter(([key]) => key.startsWith(SEALED_PREFIX));
  // Each value is its own Web Crypto call; they run together. Any failure fails the whole open.
  const opened = await everySettled(
    sealed.map(([sealedKey, value]) => openEntry(sealedKey, value, instanceId, options)),
  );
  sealed.forEach(([sealedKey], i) => {
    entries.delete(sealedKey);
    entries.set(opened[i][0], opened[i][1]);
  });
  if (entries.get(GENERATION) === ENCRYPTED) entries.set(GENERATION, PLAIN);
  return renderContainer(entries);
}

/** One sealed entry opened: the entry key and value the executor wrote. */
async function openEntry(
  sealedKey: string,
  value: string,
  instanceId: string,
  options: OpenOptions,
): Promise<[string, string]> {
  const key = `sutra.${sealedKey.slice(SEALED_PREFIX.length)}`;
  const [version, keyId, body] = value.split(":");
  const where = { tenant: options.tenant, instanceId, variable: key, keyId: keyId ?? "" };
  const dek = keyId === undefined ? undefined : options.keyring?.get(options.tenant, keyId);
  if (!dek) {
    throw new DiagnosticError(diagnostic(
      "SUTRA.CRYPTO.KEY_UNKNOWN",
      options.keyring
        ? `entry '${key}' of instance '${instanceId}' is sealed under data key '${keyId}', which the keyring does not hold for tenant '${options.tenant}'`
        : `entry '${key}' of instance '${instanceId}' is encrypted and no keyring is configured (sutra.crypto.keyring)`,
      { attributes: where },
    ));
  }
  let plain: Uint8Array<ArrayBuffer> | undefined;
  try {
    plain = version === VERSION
      ? await openBytes(
        dek.key,
        Uint8Array.fromBase64(body ?? ""),
        aad(options.tenant, instanceId, key, dek.keyId),
      )
      : undefined;
  } catch {
    plain = undefined;
  }
  if (!plain) {
    throw new DiagnosticError(diagnostic(
      "SUTRA.CRYPTO.DECRYPT_FAILED",
      `entry '${key}' of instance '${instanceId}' does not authenticate under data key '${keyId}' of tenant '${options.tenant}'`,
      { attributes: where },
    ));
  }
  return [key, decoder.decode(plain)];
}

/**
 * The snapshot with every sealed entry replaced by the mask, in the form
 * its generation reads: for views that never need the real value (the admin
 * instance view), so showing an instance needs no key at all.
 */
export function maskSealed(snapshot: string | Uint8Array): string {
  const text = typeof snapshot === "string" ? snapshot : decoder.decode(snapshot);
  if (!isSealed(text)) return text;
  const entries = parseContainer(text);
  const typed = Number(entries.get(GENERATION)) >= 4;
  for (const sealedKey of [...entries.keys()]) {
    if (!sealedKey.startsWith(SEALED_PREFIX)) continue;
    entries.delete(sealedKey);
    entries.set(`sutra.${sealedKey.slice(SEALED_PREFIX.length)}`, typed ? encodeValue(MASK) : MASK);
  }
  if (entries.get(GENERATION) === ENCRYPTED) entries.set(GENERATION, PLAIN);
  return renderContainer(entries);
}

/**
 * Like `Promise.all`, but fails only once every call has settled: a failing
 * value leaves no Web Crypto call of its siblings running past the answer.
 */
async function everySettled<T>(work: readonly Promise<T>[]): Promise<T[]> {
  const results = await Promise.allSettled(work);
  const failed = results.find((r): r is PromiseRejectedResult => r.status === "rejected");
  if (failed) throw failed.reason;
  return results.map((r) => (r as PromiseFulfilledResult<T>).value);
}
