/**
 * What the package checks need from the build they run in, supplied by the
 * caller rather than looked up, because the registries behind them belong to
 * the runtime: which transports this build links.
 *
 * @module
 */

/**
 * The transport names this build links (`http`, `local`, `pull`, broker
 * names). A channel naming any other transport is refused. The runtime's
 * transport registry satisfies this interface as it is (`has`, `names`).
 */
export interface TransportCatalog {
  /** True when a transport of this name is linked. */
  has(name: string): boolean;
  /** Every linked name, sorted, for messages. */
  names(): readonly string[];
}

/** A catalog over a fixed list of names (tests, and builds that pin their transports). */
export function transportCatalog(names: Iterable<string>): TransportCatalog {
  const set = new Set(names);
  const sorted = [...set].sort();
  return { has: (name) => set.has(name), names: () => sorted };
}
