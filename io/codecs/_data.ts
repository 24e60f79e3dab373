/**
 * Building payload data from untrusted names.
 *
 * @module
 */

/**
 * Sets `target[key]` as an own, enumerable property, also when the key is
 * `__proto__` (a legal XML element name and CSV header), which a plain
 * assignment would turn into a prototype change.
 */
export function put<T>(target: Record<string, T>, key: string, value: T): void {
  if (key === "__proto__") {
    Object.defineProperty(target, key, {
      value,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  } else {
    target[key] = value;
  }
}
