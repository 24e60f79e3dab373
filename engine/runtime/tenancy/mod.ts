/**
 * engine/runtime/tenancy: per-tenant quotas and their admin view, and the
 * engine database's row-level security (migration role, role check, scope).
 *
 * @module
 */
export * from "./quotas.ts";
export * from "./rate_window.ts";
export * from "./routes.ts";
export * from "./row_security.ts";
export * from "./tenant_limits.ts";
