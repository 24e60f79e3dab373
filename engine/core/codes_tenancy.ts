/**
 * Diagnostic codes: per-tenant quotas and the engine database role that
 * row-level security needs (see docs/security.md). Part of the catalogue in
 * `codes.ts`.
 *
 * @module
 */

/** Code → one-line meaning; keep sorted. */
export const TENANCY_CODES = {
  "SUTRA.DB.ROLE_BYPASSES_RLS":
    "The engine's database role is a superuser, has BYPASSRLS or owns the engine tables, so row-level security does not confine it: the boot is refused when sutra.datasource.migration-url names a separate migration role, and warned about otherwise.",
  "SUTRA.INBOUND.TENANT_CONCURRENCY_LIMIT":
    "The tenant's maxConcurrentInstances is reached (sutra.tenant.max-concurrent-instances): 429 with Retry-After, a delayed requeue on a broker.",
  "SUTRA.INBOUND.TENANT_RATE_LIMIT":
    "The tenant's maxInboundRatePerMinute is reached on this replica (sutra.tenant.max-inbound-rate-per-minute): 429 with Retry-After, a delayed requeue on a broker.",
} as const;
