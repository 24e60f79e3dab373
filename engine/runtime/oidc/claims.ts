/**
 * Reading the role names out of a verified token's claims.
 *
 * @module
 */

/**
 * The strings at a dotted claim path (`realm_access.roles`,
 * `resource_access.sutra.roles`, `groups`): an array's string members, or a
 * string split on spaces and commas (the `scope` style). Anything else,
 * including a missing path, yields no names.
 */
export function claimStrings(claims: Record<string, unknown>, path: string): string[] {
  let value: unknown = claims;
  for (const segment of path.split(".")) {
    if (typeof value !== "object" || value === null || Array.isArray(value)) return [];
    if (!Object.hasOwn(value, segment)) return [];
    value = (value as Record<string, unknown>)[segment];
  }
  if (Array.isArray(value)) return value.filter((v): v is string => typeof v === "string");
  if (typeof value === "string") return value.split(/[\s,]+/).filter((v) => v !== "");
  return [];
}
