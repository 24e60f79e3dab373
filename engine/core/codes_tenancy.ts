/**
 * Diagnostic codes: per-tenant quotas (see docs/security.md). Part of the
 * catalogue in `codes.ts`.
 *
 * @module
 */

/** Code → one-line meaning; keep sorted. */
export const TENANCY_CODES = {
  "SUTRA.INBOUND.TENANT_CONCURRENCY_LIMIT":
    "The tenant's maxConcurrentInstances is reached (sutra.tenant.max-concurrent-instances): 429 with Retry-After, a delayed requeue on a broker.",
  "SUTRA.INBOUND.TENANT_RATE_LIMIT":
    "The tenant's maxInboundRatePerMinute is reached on this replica (sutra.tenant.max-inbound-rate-per-minute): 429 with Retry-After, a delayed requeue on a broker.",
} as const;
