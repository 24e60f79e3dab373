/**
 * Families of XSD built-in types, kept in one place because a projected
 * store's lint, its runtime reads and the XSD codec all classify a declared
 * built-in the same way.
 *
 * @module
 */

/** `xs:integer` and every built-in derived from it, the bounded and unsigned ones included. */
export const XSD_INTEGER_TYPES: ReadonlySet<string> = new Set([
  "integer",
  "int",
  "long",
  "short",
  "byte",
  "nonNegativeInteger",
  "nonPositiveInteger",
  "positiveInteger",
  "negativeInteger",
  "unsignedLong",
  "unsignedInt",
  "unsignedShort",
  "unsignedByte",
]);

/** True when a value of the built-in `builtin` is a number: the decimal, integer and floating types. */
export function isXsdNumeric(builtin: string): boolean {
  return XSD_INTEGER_TYPES.has(builtin) || builtin === "decimal" || builtin === "float" ||
    builtin === "double";
}
