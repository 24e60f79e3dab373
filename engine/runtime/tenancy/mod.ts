/**
 * engine/runtime/tenancy: per-tenant quotas and their admin view.
 *
 * @module
 */
export * from "./quotas.ts";
export * from "./rate_window.ts";
export * from "./routes.ts";
export * from "./tenant_limits.ts";
