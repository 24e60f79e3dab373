/**
 * The envelope primitives: AES-256-GCM through Web Crypto. A sealed value
 * is one byte string, `iv (12) ‖ ciphertext ‖ tag (16)`: the tag rides inside
 * it, so nothing beside the ciphertext discloses anything about the value.
 * The additional authenticated data is supplied by the caller and never
 * stored; opening with different data fails exactly like a wrong key.
 *
 * @module
 */

const IV_BYTES = 12;
const TAG_BITS = 128;
/** Bytes of an AES-256 key. */
export const KEY_BYTES = 32;

/** Imports 32 raw bytes as an AES-256-GCM key (not extractable). */
export async function importAesKey(raw: Uint8Array<ArrayBuffer>): Promise<CryptoKey> {
  if (raw.length !== KEY_BYTES) {
    throw new RangeError(`a key is ${KEY_BYTES} bytes, not ${raw.length}`);
  }
  return await crypto.subtle.importKey("raw", raw, "AES-GCM", false, ["encrypt", "decrypt"]);
}

/** A fresh random 32-byte key. */
export function randomKeyBytes(): Uint8Array<ArrayBuffer> {
  return crypto.getRandomValues(new Uint8Array(KEY_BYTES));
}

/** Encrypts `plaintext` under `key` bound to `aad`: `iv ‖ ciphertext ‖ tag`. */
export async function sealBytes(
  key: CryptoKey,
  plaintext: Uint8Array<ArrayBuffer>,
  aad: Uint8Array<ArrayBuffer>,
): Promise<Uint8Array<ArrayBuffer>> {
  const iv = crypto.getRandomValues(new Uint8Array(IV_BYTES));
  const sealed = new Uint8Array(
    await crypto.subtle.encrypt(
      { name: "AES-GCM", iv, additionalData: aad, tagLength: TAG_BITS },
      key,
      plaintext,
    ),
  );
  const out = new Uint8Array(IV_BYTES + sealed.length);
  out.set(iv);
  out.set(sealed, IV_BYTES);
  return out;
}

/**
 * Decrypts what {@link sealBytes} produced; undefined when it does not
 * authenticate (wrong key, changed bytes or different `aad`), so the
 * caller names the failure in its own terms.
 */
export async function openBytes(
  key: CryptoKey,
  sealed: Uint8Array<ArrayBuffer>,
  aad: Uint8Array<ArrayBuffer>,
): Promise<Uint8Array<ArrayBuffer> | undefined> {
  if (sealed.length < IV_BYTES + TAG_BITS / 8) return undefined;
  try {
    return new Uint8Array(
      await crypto.subtle.decrypt(
        {
          name: "AES-GCM",
          iv: sealed.subarray(0, IV_BYTES),
          additionalData: aad,
          tagLength: TAG_BITS,
        },
        key,
        sealed.subarray(IV_BYTES),
      ),
    );
  } catch {
    return undefined;
  }
}
