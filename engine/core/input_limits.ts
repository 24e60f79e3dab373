/**
 * The limits every decoded input and every key derived from it must keep
 * (docs/limits.md). One place, so the codecs, the dispatcher and the data
 * stores cannot drift apart.
 *
 * @module
 */

/**
 * How deep a decoded document may nest (XML elements, JSON arrays and
 * objects, YAML collections). Deeper documents are refused at decode: the
 * evaluators walk values recursively, and a payload must not be able to
 * exhaust their stack.
 */
export const MAX_NESTING_DEPTH = 512;

/**
 * The longest `q:alias` value, in bytes of UTF-8. The aliases table indexes
 * (tenant, name, value) in a btree, whose entries must fit a third of an
 * 8 kB page (about 2,700 bytes); 512 leaves room for the tenant and name.
 */
export const MAX_ALIAS_VALUE_BYTES = 512;

/**
 * The longest data-store key, in bytes of UTF-8: the shipped key/value
 * tables declare `store_key VARCHAR(512)` (characters, so 512 bytes always
 * fit) as part of a btree key.
 */
export const MAX_STORE_KEY_BYTES = 512;

/** Why a string cannot serve as a stored key. */
export type KeyProblem = "nul" | "ill-formed" | "too-long";

const encoder = new TextEncoder();

/**
 * What keeps `value` from being stored as a key of at most `maxBytes` bytes
 * of UTF-8: a NUL (no SQL text column holds one), a lone surrogate (it has
 * no UTF-8 form, so two different ones would be stored alike), or its
 * length. Undefined when it fits.
 */
export function keyProblem(value: string, maxBytes: number): KeyProblem | undefined {
  if (value.includes("\0")) return "nul";
  if (!value.isWellFormed()) return "ill-formed";
  // A UTF-16 unit is at most 3 bytes of UTF-8, so short strings skip the encoding.
  if (value.length * 3 > maxBytes && encoder.encode(value).length > maxBytes) return "too-long";
  return undefined;
}

/** Bytes of UTF-8 `value` takes (well-formed text). */
export function utf8Length(value: string): number {
  return encoder.encode(value).length;
}
