/**
 * What the package checks need from the build they run in, supplied by the
 * caller rather than looked up, because the registries behind them belong to
 * the runtime: which transports this build links.
 *
 * @module
 */

import type { Diagnostic } from "../core/diagnostic.ts";

/**
 * The transport names this build links (`http`, `local`, `pull`, broker
 * names). A channel naming any other transport is refused. The runtime's
 * transport registry satisfies this interface as it is (`has`, `names`).
 */
export interface TransportCatalog {
  /** True when a transport of this name is linked (and allowed). */
  has(name: string): boolean;
  /** Every usable name, sorted, for messages. */
  names(): readonly string[];
  /**
   * Why `name` cannot be used, finishing "…rides transport 'x', which …";
   * absent: this build does not link it.
   */
  unavailable?(name: string): string | undefined;
  /** What a linked transport finds wrong in a channel's `options:` (absent: nothing is checked). */
  checkOptions?(
    channel: {
      readonly name: string;
      readonly transport: string;
      readonly options?: Readonly<Record<string, unknown>>;
    },
  ): readonly Diagnostic[];
}

/** A catalog over a fixed list of names (tests, and builds that pin their transports). */
export function transportCatalog(names: Iterable<string>): TransportCatalog {
  const set = new Set(names);
  const sorted = [...set].sort();
  return { has: (name) => set.has(name), names: () => sorted };
}

/**
 * `linked` narrowed to the names an operator allows (`sutra.allowed-transports`):
 * a linked but disallowed transport is unavailable, and says so.
 */
export function allowedTransports(
  linked: TransportCatalog,
  allowed: readonly string[],
): TransportCatalog {
  const set = new Set(allowed);
  const names = linked.names().filter((n) => set.has(n));
  const list = [...set].sort().join(", ");
  return {
    has: (name) => set.has(name) && linked.has(name),
    names: () => names,
    ...(linked.checkOptions ? { checkOptions: linked.checkOptions.bind(linked) } : {}),
    unavailable: (name) =>
      linked.has(name) && !set.has(name)
        ? `this engine does not allow (sutra.allowed-transports: ${list})`
        : undefined,
  };
}
