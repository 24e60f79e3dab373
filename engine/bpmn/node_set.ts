/**
 * An immutable set of node indexes stored as a bitset. Inclusive joins keep
 * one per incoming flow; a bitset keeps those sets small (a bit per node)
 * and their membership test a single array read.
 *
 * @module
 */

/** A read-only set of node indexes. */
export class NodeSet implements Iterable<number> {
  readonly #words: Uint32Array;
  /** Number of members. */
  readonly size: number;

  /** Takes ownership of `words` (bit i of word w is member 32·w + i). */
  constructor(words: Uint32Array) {
    this.#words = words;
    let size = 0;
    for (let w of words) {
      // Count set bits (Kernighan: clear the lowest set bit until none is left).
      for (; w !== 0; size++) w &= w - 1;
    }
    this.size = size;
  }

  /** Words needed for a set over `capacity` nodes. */
  static words(capacity: number): Uint32Array {
    return new Uint32Array((capacity + 31) >>> 5);
  }

  /** True when node `index` is a member. */
  has(index: number): boolean {
    return ((this.#words[index >>> 5] ?? 0) & (1 << (index & 31))) !== 0;
  }

  /** Members in ascending order. */
  *[Symbol.iterator](): Iterator<number> {
    for (let w = 0; w < this.#words.length; w++) {
      for (let bits = this.#words[w]; bits !== 0; bits &= bits - 1) {
        yield (w << 5) + (31 - Math.clz32(bits & -bits));
      }
    }
  }
}
