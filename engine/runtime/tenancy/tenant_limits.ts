/**
 * Per-tenant limits written as one configuration value: comma-separated
 * `tenant=limit` pairs, e.g. `acme=100,globex=5`. A tenant the value does
 * not name has no limit.
 *
 * @module
 */

/** Reads `tenant=limit` pairs; a reason string when the text is not such a list. */
export function parseTenantLimits(text: string): ReadonlyMap<string, number> | string {
  const limits = new Map<string, number>();
  for (const pair of text.split(",").map((p) => p.trim()).filter((p) => p !== "")) {
    const at = pair.lastIndexOf("=");
    const tenant = pair.slice(0, at).trim();
    const limit = pair.slice(at + 1).trim();
    if (at < 1 || tenant === "" || tenant.includes("=")) {
      return `'${pair}' is not tenant=limit`;
    }
    if (!/^\d+$/.test(limit) || !Number.isSafeInteger(Number(limit)) || Number(limit) < 1) {
      return `the limit of tenant '${tenant}' must be a positive integer, got '${limit}'`;
    }
    if (limits.has(tenant)) return `tenant '${tenant}' is named twice`;
    limits.set(tenant, Number(limit));
  }
  return limits;
}
