/**
 * The shape Handlebars walks: FEEL contexts become plain objects and lists
 * become arrays, so paths, `#each` and `#with` work as usual; every other
 * non-primitive FEEL value (numbers, temporals, durations, ranges) becomes a
 * {@link Leaf} that prints its exact text yet still carries the FEEL value
 * for the helpers that compare or format it.
 *
 * @module
 */
import { FeelContext, FeelDecimal, type FeelValue } from "../feel/mod.ts";
import { textOf } from "./_feel_text.ts";

/** A FEEL value Handlebars prints through `toString()`: numbers, temporals, durations, ranges. */
export class Leaf {
  /** Wraps `value`. */
  constructor(readonly value: FeelValue) {}

  /** The text the value prints as (`string()` in FEEL). */
  toString(): string {
    return textOf(this.value);
  }
}

/** The FEEL context a view object was made from (a symbol: templates cannot name it). */
const SOURCE = Symbol("feel context");

/**
 * The prototype of view objects. It has no string keys, so every key a
 * template can name (`constructor`, `toString`, `__proto__`) is plain data
 * or absent, never an inherited member. It does convert to a primitive —
 * the context's FEEL text — because Handlebars compares contexts with `!=`
 * when it tracks `../` depths.
 */
const VIEW_PROTO: object = Object.create(null, {
  [Symbol.toPrimitive]: {
    value(this: { [SOURCE]: FeelContext }): string {
      return textOf(this[SOURCE]);
    },
  },
});

/** A FEEL context as Handlebars sees it. */
type ViewObject = { [key: string]: ViewValue; [SOURCE]: FeelContext };

/** What a template sees for one value. */
export type ViewValue = null | boolean | string | Leaf | ViewValue[] | ViewObject;

/** Converts a FEEL value into the view Handlebars renders. */
export function toView(value: FeelValue): ViewValue {
  if (value === null || typeof value === "string" || typeof value === "boolean") return value;
  if (Array.isArray(value)) return value.map(toView);
  if (value instanceof FeelContext) {
    const out: ViewObject = Object.create(VIEW_PROTO);
    Object.defineProperty(out, SOURCE, { value });
    for (const [k, v] of value.entries) out[k] = toView(v);
    return out;
  }
  return new Leaf(value);
}

/** The FEEL value behind a view value or a helper literal (JS numbers become decimals). */
export function fromView(value: unknown): FeelValue {
  if (value instanceof Leaf) return value.value;
  if (typeof value === "object" && value !== null && SOURCE in value) {
    return (value as ViewObject)[SOURCE];
  }
  if (value === undefined || value === null) return null;
  if (typeof value === "number") return Number.isFinite(value) ? new FeelDecimal(value) : null;
  if (typeof value === "string" || typeof value === "boolean") return value;
  if (Array.isArray(value)) return value.map(fromView);
  if (typeof value === "object") {
    const entries = new Map<string, FeelValue>();
    for (const [k, v] of Object.entries(value)) entries.set(k, fromView(v));
    return new FeelContext(entries);
  }
  return null;
}
