/**
 * The structure of a value as far as static path checks care: records with
 * named fields, lists, scalars, or "anything". Codecs with a schema supply
 * payload shapes; the loader checks every FEEL path against them.
 *
 * @module
 */

/** A value's structure. */
export type Shape =
  | {
    readonly kind: "record";
    readonly fields: Readonly<Record<string, Shape>>;
    /** Other fields may appear too (an open content model). */
    readonly open?: boolean;
  }
  | { readonly kind: "list"; readonly item: Shape }
  | { readonly kind: "scalar"; readonly type: string }
  | { readonly kind: "any" };

/** Supplies shapes the loader cannot know by itself. */
export interface ShapeProvider {
  /** The decoded payload of a channel, for one message type when the source pins one. */
  payload?(channel: string, messageType: string | undefined): Shape | undefined;
  /** A type (or root element) of a codec schema, for `q:variable schema=…`. */
  schema?(schema: string, type: string | undefined): Shape | undefined;
}

/** Where a path leaves a shape, or undefined when the shape admits it. */
export interface PathMismatch {
  /** The prefix that exists (`payload.amount`). */
  readonly validPrefix: string;
  /** The segment that does not (`currency`). */
  readonly segment: string;
  /** Why: no such field, or the value there is a scalar. */
  readonly reason: "unknown-field" | "scalar";
  /** The fields the record does have, for the message. */
  readonly known: readonly string[];
}

/**
 * Checks `segments` (after the root) against a shape. A path through a list
 * continues on its items, as FEEL's path expression maps over a list.
 */
export function checkPath(
  shape: Shape,
  root: string,
  segments: readonly string[],
): PathMismatch | undefined {
  let current = shape;
  let prefix = root;
  for (const segment of segments) {
    while (current.kind === "list") current = current.item;
    if (current.kind === "any") return undefined;
    if (current.kind === "scalar") {
      return { validPrefix: prefix, segment, reason: "scalar", known: [] };
    }
    const next = Object.hasOwn(current.fields, segment) ? current.fields[segment] : undefined;
    if (next === undefined) {
      if (current.open) return undefined;
      return {
        validPrefix: prefix,
        segment,
        reason: "unknown-field",
        known: Object.keys(current.fields),
      };
    }
    current = next;
    prefix = `${prefix}.${segment}`;
  }
  return undefined;
}
