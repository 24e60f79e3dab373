/**
 * `GET /admin/deployments`: every stored deployment with its status and
 * how many instances it holds live and FAILED — the numbers that say why a
 * draining revision has not retired yet. The counts come from the
 * `(deployment_id, tenant, status)` index, one probe per deployment.
 *
 * @module
 */
import type { Queryable } from "../../persistence/mod.ts";

/** Stored statuses a listing may filter on. */
export const DEPLOYMENT_STATUSES = ["pending", "active", "draining", "retired", "failed"] as const;

/** One listed deployment. */
export interface DeploymentView {
  readonly deploymentId: string;
  readonly tenant: string;
  readonly slot: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly status: string;
  readonly createdAt: string;
  readonly activatedAt: string | null;
  readonly drainedAt: string | null;
  readonly retiredAt: string | null;
  readonly failureCode: string | null;
  readonly instances: { readonly live: number; readonly failed: number };
}

const count = (statuses: string) =>
  `(select count(*)::int from instances i
     where i.deployment_id = d.deployment_id and i.tenant = d.tenant and i.status in (${statuses}))`;

/** The listing (`$1` a status, or null for all). */
export const DEPLOYMENTS_STATEMENT =
  `select d.deployment_id, d.tenant, d.slot, d.labels, d.status, d.created_at, d.activated_at,
        d.drained_at, d.retired_at, d.failure_code,
        ${count("'RUNNING', 'SUSPENDED'")} as live, ${count("'FAILED'")} as failed
       from deployments d
      where ($1::text is null or d.status = $1::text)
      order by d.created_at desc, d.deployment_id`;

/** Every deployment (or those with `status`), newest first. */
export async function listDeployments(
  db: Queryable,
  status?: string,
): Promise<DeploymentView[]> {
  const { rows } = await db.query<{
    deployment_id: string;
    tenant: string;
    slot: string;
    labels: Record<string, string>;
    status: string;
    created_at: Date;
    activated_at: Date | null;
    drained_at: Date | null;
    retired_at: Date | null;
    failure_code: string | null;
    live: number;
    failed: number;
  }>(
    DEPLOYMENTS_STATEMENT,
    [status ?? null],
  );
  const iso = (d: Date | null) => d?.toISOString() ?? null;
  return rows.map((r) => ({
    deploymentId: r.deployment_id,
    tenant: r.tenant,
    slot: r.slot,
    labels: r.labels,
    status: r.status,
    createdAt: r.created_at.toISOString(),
    activatedAt: iso(r.activated_at),
    drainedAt: iso(r.drained_at),
    retiredAt: iso(r.retired_at),
    failureCode: r.failure_code,
    instances: { live: r.live, failed: r.failed },
  }));
}
