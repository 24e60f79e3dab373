/**
 * The keyring: each tenant's data-encryption keys (DEKs), every one stored
 * wrapped (AES-256-GCM) by a key-encryption key (KEK) that the entry names
 * by secret reference (`env:SUTRA_KEK`, `secret:kek-2026`, …). The file
 * holds no usable key material on its own, so it ships like configuration
 * (one copy per replica, or a shared volume); the KEKs stay wherever the
 * secret references point.
 *
 * ```json
 * { "format": "sutra-keyring/1",
 *   "keys": [{ "tenant": "default", "keyId": "k-2026-12", "kek": "env:SUTRA_KEK",
 *              "wrapped": "<base64>", "createdAt": "2026-12-02T00:00:00.000Z" }] }
 * ```
 *
 * A tenant's newest entry (last in the file) is its active key: new values
 * are sealed under it. Older entries stay to open what they sealed, so a
 * rotation is "provision a new key"; a retired key may be removed only once
 * nothing sealed under it is left. Each wrapped DEK is bound to its tenant
 * and key id, so an entry copied to another tenant does not unwrap.
 *
 * @module
 */
import { diagnostic, DiagnosticError } from "../../core/diagnostic.ts";
import { type ResolveContext, resolveReference } from "../../core/secrets.ts";
import { errorMessage } from "../../core/errors.ts";
import { importAesKey, KEY_BYTES, openBytes, randomKeyBytes, sealBytes } from "./envelope.ts";

/** The format marker of a keyring file this build reads and writes. */
export const KEYRING_FORMAT = "sutra-keyring/1";

/** One wrapped data key, as the file holds it. */
export interface KeyringEntry {
  readonly tenant: string;
  /** Unique per tenant; letters, digits, `.`, `_`, `-`. */
  readonly keyId: string;
  /** Secret reference of the KEK that wraps it. */
  readonly kek: string;
  /** Base64 of `iv ‖ wrapped key ‖ tag`. */
  readonly wrapped: string;
  readonly createdAt: string;
}

/** An unwrapped data key. */
export interface DataKey {
  readonly tenant: string;
  readonly keyId: string;
  readonly key: CryptoKey;
}

const KEY_ID = /^[A-Za-z0-9._-]{1,64}$/;
const encoder = new TextEncoder();

function invalid(path: string, why: string): DiagnosticError {
  return new DiagnosticError(diagnostic(
    "SUTRA.CRYPTO.KEYRING_INVALID",
    `the keyring '${path}' ${why}`,
    { attributes: { keyring: path } },
  ));
}

/** The data a wrapped key is bound to: its tenant and key id. */
function wrapAad(tenant: string, keyId: string): Uint8Array<ArrayBuffer> {
  return encoder.encode(`sutra.dek\u0000${tenant}\u0000${keyId}`);
}

/** Parses keyring text; every problem is a `SUTRA.CRYPTO.KEYRING_INVALID` naming the entry. */
export function parseKeyring(text: string, path: string): KeyringEntry[] {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw invalid(path, `is not JSON: ${errorMessage(e)}`);
  }
  const record = doc as { format?: unknown; keys?: unknown };
  if (record === null || typeof record !== "object" || record.format !== KEYRING_FORMAT) {
    throw invalid(path, `is not a '${KEYRING_FORMAT}' document`);
  }
  if (!Array.isArray(record.keys)) throw invalid(path, "has no 'keys' list");
  const seen = new Set<string>();
  return record.keys.map((raw, i) => {
    const e = raw as Record<string, unknown>;
    for (const field of ["tenant", "keyId", "kek", "wrapped", "createdAt"]) {
      if (typeof e?.[field] !== "string" || e[field] === "") {
        throw invalid(path, `entry ${i} has no '${field}' text`);
      }
    }
    const entry = e as unknown as KeyringEntry;
    if (!KEY_ID.test(entry.keyId)) {
      throw invalid(path, `entry ${i} has a bad keyId '${entry.keyId}'`);
    }
    const id = `${entry.tenant}\u0000${entry.keyId}`;
    if (seen.has(id)) {
      throw invalid(path, `lists key '${entry.keyId}' of tenant '${entry.tenant}' twice`);
    }
    seen.add(id);
    return entry;
  });
}

/** Reads a keyring file; a file that does not exist is an empty keyring when `missingOk`. */
export async function readKeyringFile(
  path: string,
  options: { missingOk?: boolean } = {},
): Promise<KeyringEntry[]> {
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch (e) {
    if (options.missingOk && e instanceof Deno.errors.NotFound) return [];
    throw invalid(path, `cannot be read: ${errorMessage(e)}`);
  }
  return parseKeyring(text, path);
}

/** Resolves a KEK reference to an AES key: the secret is 32 bytes as base64 or hex. */
export async function resolveKek(reference: string, context: ResolveContext): Promise<CryptoKey> {
  const fail = (why: string) =>
    new DiagnosticError(diagnostic(
      "SUTRA.CRYPTO.KEK_INVALID",
      `the key-encryption key '${reference}' ${why}`,
      { attributes: { kek: reference } },
    ));
  let text: string;
  try {
    text = (await resolveReference(reference, context)).trim();
  } catch (e) {
    throw fail(`does not resolve: ${errorMessage(e)}`);
  }
  if (text === reference) throw fail("is not a secret reference (env:, secret:, ${…})");
  let raw: Uint8Array<ArrayBuffer> | undefined;
  if (/^[0-9a-fA-F]{64}$/.test(text)) raw = Uint8Array.fromHex(text);
  else {
    try {
      raw = Uint8Array.fromBase64(text);
    } catch {
      raw = undefined;
    }
  }
  if (raw?.length !== KEY_BYTES) {
    throw fail(`is not ${KEY_BYTES} bytes written as base64 or 64 hex digits`);
  }
  return await importAesKey(raw);
}

/** Every tenant's unwrapped data keys; the last one provisioned per tenant is active. */
export class Keyring {
  readonly #keys = new Map<string, DataKey>();
  readonly #active = new Map<string, DataKey>();

  constructor(keys: readonly DataKey[]) {
    for (const k of keys) {
      this.#keys.set(`${k.tenant}\u0000${k.keyId}`, k);
      this.#active.set(k.tenant, k);
    }
  }

  /** The key new values of `tenant` are sealed under. */
  active(tenant: string): DataKey | undefined {
    return this.#active.get(tenant);
  }

  /** A key of `tenant` by id (any generation). */
  get(tenant: string, keyId: string): DataKey | undefined {
    return this.#keys.get(`${tenant}\u0000${keyId}`);
  }

  /** How many keys it holds. */
  get size(): number {
    return this.#keys.size;
  }
}

/**
 * Loads a keyring file: resolves each KEK reference once and unwraps every
 * entry. Fails closed: an unresolvable KEK or an entry that does not
 * unwrap stops the load with a diagnostic naming it.
 */
export async function loadKeyring(path: string, context: ResolveContext): Promise<Keyring> {
  const entries = await readKeyringFile(path);
  const keks = new Map<string, CryptoKey>();
  const keys: DataKey[] = [];
  for (const entry of entries) {
    let kek = keks.get(entry.kek);
    if (!kek) keks.set(entry.kek, kek = await resolveKek(entry.kek, context));
    keys.push({ tenant: entry.tenant, keyId: entry.keyId, key: await unwrap(entry, kek) });
  }
  return new Keyring(keys);
}

async function unwrap(entry: KeyringEntry, kek: CryptoKey): Promise<CryptoKey> {
  const raw = await unwrapRaw(entry, kek);
  const key = await importAesKey(raw);
  raw.fill(0);
  return key;
}

/** The raw bytes of an entry's data key; the caller zeroes them after use. */
async function unwrapRaw(entry: KeyringEntry, kek: CryptoKey): Promise<Uint8Array<ArrayBuffer>> {
  let wrapped: Uint8Array<ArrayBuffer> | undefined;
  try {
    wrapped = Uint8Array.fromBase64(entry.wrapped);
  } catch {
    wrapped = undefined;
  }
  const raw = wrapped && await openBytes(kek, wrapped, wrapAad(entry.tenant, entry.keyId));
  if (raw?.length !== KEY_BYTES) {
    throw new DiagnosticError(diagnostic(
      "SUTRA.CRYPTO.KEK_INVALID",
      `data key '${entry.keyId}' of tenant '${entry.tenant}' does not unwrap under '${entry.kek}' (a different key-encryption key, or a changed entry)`,
      { attributes: { tenant: entry.tenant, keyId: entry.keyId, kek: entry.kek } },
    ));
  }
  return raw;
}

/** Replaces the keyring file atomically (written beside, then renamed), readable by its owner only. */
async function writeKeyringFile(path: string, entries: readonly KeyringEntry[]): Promise<void> {
  const text = `${JSON.stringify({ format: KEYRING_FORMAT, keys: entries }, null, 2)}\n`;
  const temporary = `${path}.${crypto.randomUUID()}.tmp`;
  await Deno.writeTextFile(temporary, text, { mode: 0o600 });
  await Deno.rename(temporary, path);
}

/** Options for {@link provisionDataKey}. */
export interface ProvisionOptions {
  readonly tenant: string;
  readonly keyId: string;
  /** Secret reference of the KEK that wraps the new key. */
  readonly kek: string;
  readonly resolve: ResolveContext;
  /** When the key was made (the engine clock's now). */
  readonly now: Date;
}

/**
 * Makes a fresh random data key for a tenant, wraps it under the KEK and
 * appends it to the keyring file (created when absent), which makes it the
 * tenant's active key. The file is replaced atomically (written beside,
 * then renamed). A key id the tenant already has is refused.
 */
export async function provisionDataKey(
  path: string,
  options: ProvisionOptions,
): Promise<KeyringEntry> {
  const { tenant, keyId } = options;
  if (!KEY_ID.test(keyId)) {
    throw invalid(path, `cannot take the key id '${keyId}' (1–64 of A–Z a–z 0–9 . _ -)`);
  }
  if (tenant === "") throw invalid(path, "cannot take an empty tenant");
  const entries = await readKeyringFile(path, { missingOk: true });
  if (entries.some((e) => e.tenant === tenant && e.keyId === keyId)) {
    throw invalid(path, `already holds key '${keyId}' of tenant '${tenant}'`);
  }
  const kek = await resolveKek(options.kek, options.resolve);
  const raw = randomKeyBytes();
  const wrapped = await sealBytes(kek, raw, wrapAad(tenant, keyId));
  raw.fill(0);
  const entry: KeyringEntry = {
    tenant,
    keyId,
    kek: options.kek,
    wrapped: wrapped.toBase64(),
    createdAt: options.now.toISOString(),
  };
  await writeKeyringFile(path, [...entries, entry]);
  return entry;
}

/** Options for {@link rewrapDataKeys}. */
export interface RewrapOptions {
  /** Secret reference of the KEK the keys are wrapped under from now on. */
  readonly kek: string;
  /** Only the keys wrapped under this reference (default: every key). */
  readonly from?: string;
  /** Only this tenant's keys (default: every tenant). */
  readonly tenant?: string;
  readonly resolve: ResolveContext;
}

/**
 * Wraps existing data keys under another KEK, in place: the data keys (and
 * so every value sealed under them) stay the same, only the wrapping
 * changes, so an old KEK can be retired at once without touching a
 * snapshot. Every selected key must unwrap under its current KEK first;
 * any failure changes nothing. Answers the keys it rewrapped.
 */
export async function rewrapDataKeys(
  path: string,
  options: RewrapOptions,
): Promise<KeyringEntry[]> {
  const entries = await readKeyringFile(path);
  const kek = await resolveKek(options.kek, options.resolve);
  const old = new Map<string, CryptoKey>();
  const changed: KeyringEntry[] = [];
  const next: KeyringEntry[] = [];
  for (const entry of entries) {
    const selected = (options.from === undefined || entry.kek === options.from) &&
      (options.tenant === undefined || entry.tenant === options.tenant);
    if (!selected) {
      next.push(entry);
      continue;
    }
    let current = old.get(entry.kek);
    if (!current) old.set(entry.kek, current = await resolveKek(entry.kek, options.resolve));
    const raw = await unwrapRaw(entry, current);
    const wrapped = await sealBytes(kek, raw, wrapAad(entry.tenant, entry.keyId));
    raw.fill(0);
    const rewrapped = { ...entry, kek: options.kek, wrapped: wrapped.toBase64() };
    next.push(rewrapped);
    changed.push(rewrapped);
  }
  if (changed.length > 0) await writeKeyringFile(path, next);
  return changed;
}
