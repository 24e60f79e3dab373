/**
 * Looks up the value an issue's path names, so a report carries the value it
 * complains about.
 *
 * @module
 */
import { FeelContext, type FeelValue } from "../feel/mod.ts";

const INDEXES = /^(?:\[\d+\])+$/;

/**
 * The value at a dotted path such as `payload.amount.currency` or
 * `payload.items[2].sku` (list positions are 1-based, as in FEEL); null when
 * any step is missing or the path is not of that shape.
 */
export function valueAtPath(root: FeelContext, path: string): FeelValue {
  let current: FeelValue = root;
  for (const raw of path.split(".")) {
    const step = raw.trim();
    const bracket = step.indexOf("[");
    const name = bracket < 0 ? step : step.slice(0, bracket);
    if (name === "" || !(current instanceof FeelContext)) return null;
    current = current.entries.get(name) ?? null;
    if (bracket < 0) continue;
    // Index suffixes are rare; the common step above stays free of regular expressions.
    const indexes = step.slice(bracket);
    if (!INDEXES.test(indexes)) return null;
    for (const index of indexes.slice(1, -1).split("][")) {
      const i = Number(index);
      if (!Array.isArray(current) || i < 1 || i > current.length) return null;
      current = current[i - 1];
    }
  }
  return current;
}
