/**
 * The self-registration pattern behind every SPI: an implementation module
 * registers its entry when it is imported, and the engine lists whatever got
 * linked in without naming any implementation.
 *
 * @module
 */

/** Anything a registry can hold: it must have a unique name. */
export interface Named {
  readonly name: string;
}

/** A process-wide registry of named SPI entries. */
export class Registry<T extends Named> {
  readonly #entries = new Map<string, T>();

  /** @param kind what the entries are, for error messages ("codec", "transport"). */
  constructor(readonly kind: string) {}

  /** Adds an entry; registering a second entry under one name is a programming error. */
  register(entry: T): void {
    if (this.#entries.has(entry.name)) {
      throw new Error(`${this.kind} '${entry.name}' is registered twice`);
    }
    this.#entries.set(entry.name, entry);
  }

  /** The entry registered under `name`, if any. */
  get(name: string): T | undefined {
    return this.#entries.get(name);
  }

  /** True when `name` is registered. */
  has(name: string): boolean {
    return this.#entries.has(name);
  }

  /** Every entry, sorted by name so iteration order never depends on import order. */
  list(): T[] {
    return [...this.#entries.values()].sort((a, b) =>
      a.name < b.name ? -1 : a.name > b.name ? 1 : 0
    );
  }

  /** Sorted names of every entry. */
  names(): string[] {
    return this.list().map((e) => e.name);
  }
}
