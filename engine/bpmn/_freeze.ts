/**
 * Deep immutability for plans: frozen objects and arrays, and maps and sets
 * whose mutators throw, so a plan shared by every instance of a deployment
 * cannot be changed by one of them.
 *
 * @module
 */

function refuse(): never {
  throw new TypeError("the execution plan is immutable");
}

/** A Map that refuses changes once constructed. */
export class FrozenMap<K, V> extends Map<K, V> {
  #sealed = false;

  constructor(entries: Iterable<readonly [K, V]> = []) {
    // Map's constructor would call the overridden set() before the private
    // field exists, so fill through the base method afterwards.
    super();
    for (const [key, value] of entries) super.set(key, value);
    this.#sealed = true;
  }

  /** Refuses after construction. */
  override set(key: K, value: V): this {
    if (this.#sealed) refuse();
    return super.set(key, value);
  }

  /** Always refuses. */
  override delete(): boolean {
    refuse();
  }

  /** Always refuses. */
  override clear(): void {
    refuse();
  }
}

/** A Set that refuses changes once constructed. */
export class FrozenSet<T> extends Set<T> {
  #sealed = false;

  constructor(values: Iterable<T> = []) {
    super();
    for (const value of values) super.add(value);
    this.#sealed = true;
  }

  /** Refuses after construction. */
  override add(value: T): this {
    if (this.#sealed) refuse();
    return super.add(value);
  }

  /** Always refuses. */
  override delete(): boolean {
    refuse();
  }

  /** Always refuses. */
  override clear(): void {
    refuse();
  }
}

/**
 * Freezes plain objects and arrays recursively, and the values of maps and
 * sets (which must already be {@link FrozenMap}/{@link FrozenSet}). Class
 * instances other than those (compiled expressions, regular expressions)
 * are frozen shallowly and not walked.
 */
export function deepFreeze<T>(value: T, seen = new Set<unknown>()): T {
  if (value === null || typeof value !== "object" || seen.has(value)) return value;
  seen.add(value);
  if (value instanceof Map) {
    for (const v of value.values()) deepFreeze(v, seen);
  } else if (value instanceof Set) {
    for (const v of value) deepFreeze(v, seen);
  } else if (Array.isArray(value) || Object.getPrototypeOf(value) === Object.prototype) {
    for (const v of Object.values(value)) deepFreeze(v, seen);
  }
  return Object.freeze(value);
}
