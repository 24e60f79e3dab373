/**
 * The admin view of a tenant's quotas: `GET /admin/tenants/{tenant}/usage`
 * (role `operate`) answers {@link TenantUsage}: live instances across the
 * fleet, messages this replica admitted in the last minute, and the limits.
 *
 * @module
 */
import type { AdminGate } from "../admin_auth.ts";
import { jsonResponse, type Router } from "../http_router.ts";
import type { TenantQuotas } from "./quotas.ts";

/** Options for {@link addTenantRoutes}. */
export interface TenantRoutesOptions {
  readonly admin: AdminGate;
  readonly quotas: TenantQuotas;
}

/** Adds the tenant usage route. */
export function addTenantRoutes(router: Router, o: TenantRoutesOptions): void {
  router.add(
    "GET",
    "/admin/tenants/{tenant}/usage",
    o.admin.requireAdmin(
      async (_request, { tenant }) => jsonResponse(200, await o.quotas.usage(tenant)),
      "operate",
    ),
  );
}
