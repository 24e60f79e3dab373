/**
 * SQL over the `deployments` table. A `scope` of `undefined` means every
 * tenant; a tenant-scoped service passes its tenant and sees nothing else.
 * Deployment ids are content hashes over a manifest that includes the
 * tenant label, so an id never names rows of two tenants.
 *
 * @module
 */
import type { Queryable } from "../../persistence/mod.ts";

/** The stored states of a deployment. */
export type StoredStatus = "active" | "draining" | "retired" | "failed";

/** One row, without the archive bytes. */
export interface DeploymentRow {
  readonly tenant: string;
  readonly deploymentId: string;
  readonly slot: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly status: StoredStatus;
  readonly failureCode?: string;
  readonly failureDetail?: string;
  readonly createdAt: Date;
  readonly activatedAt?: Date;
  readonly drainedAt?: Date;
  readonly retiredAt?: Date;
}

/** What a new row needs. */
export interface NewDeployment {
  readonly tenant: string;
  readonly deploymentId: string;
  readonly slot: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly manifest: unknown;
  readonly archive: Uint8Array;
}

interface RawRow {
  tenant: string;
  deployment_id: string;
  slot: string;
  labels: Record<string, string>;
  status: StoredStatus;
  failure_code: string | null;
  failure_detail: string | null;
  created_at: Date;
  activated_at: Date | null;
  drained_at: Date | null;
  retired_at: Date | null;
}

const COLUMNS = `tenant, deployment_id, slot, labels, status, failure_code, failure_detail,
  created_at, activated_at, drained_at, retired_at`;

const IN_SCOPE = `($1::text is null or tenant = $1::text)`;

function toRow(r: RawRow): DeploymentRow {
  return {
    tenant: r.tenant,
    deploymentId: r.deployment_id,
    slot: r.slot,
    labels: r.labels,
    status: r.status,
    createdAt: r.created_at,
    ...(r.failure_code !== null ? { failureCode: r.failure_code } : {}),
    ...(r.failure_detail !== null ? { failureDetail: r.failure_detail } : {}),
    ...(r.activated_at !== null ? { activatedAt: r.activated_at } : {}),
    ...(r.drained_at !== null ? { drainedAt: r.drained_at } : {}),
    ...(r.retired_at !== null ? { retiredAt: r.retired_at } : {}),
  };
}

/** The row with this id, locked for update when `lock` is set (inside a transaction). */
export async function findById(
  q: Queryable,
  scope: string | undefined,
  deploymentId: string,
  lock = false,
): Promise<DeploymentRow | undefined> {
  const { rows } = await q.query<RawRow>(
    `select ${COLUMNS} from deployments where ${IN_SCOPE} and deployment_id = $2${
      lock ? " for update" : ""
    }`,
    [scope ?? null, deploymentId],
  );
  return rows[0] && toRow(rows[0]);
}

/** The active row of a slot, locked for update. */
export async function findActiveBySlot(
  q: Queryable,
  scope: string | undefined,
  slot: string,
): Promise<DeploymentRow | undefined> {
  const { rows } = await q.query<RawRow>(
    `select ${COLUMNS} from deployments
      where ${IN_SCOPE} and slot = $2 and status = 'active' for update`,
    [scope ?? null, slot],
  );
  return rows[0] && toRow(rows[0]);
}

/** Every active and draining row. */
export async function servingRows(
  q: Queryable,
  scope: string | undefined,
): Promise<DeploymentRow[]> {
  const { rows } = await q.query<RawRow>(
    `select ${COLUMNS} from deployments
      where ${IN_SCOPE} and status in ('active', 'draining')`,
    [scope ?? null],
  );
  return rows.map(toRow);
}

/** The stored archive bytes of a deployment. */
export async function archiveOf(
  q: Queryable,
  tenant: string,
  deploymentId: string,
): Promise<Uint8Array | undefined> {
  const { rows } = await q.query<{ archive: Uint8Array }>(
    `select archive from deployments where tenant = $1 and deployment_id = $2`,
    [tenant, deploymentId],
  );
  return rows[0]?.archive;
}

/** Moves the slot's active row (other than `keep`) to draining; returns the drained ids. */
export async function drainSlot(
  q: Queryable,
  tenant: string,
  slot: string,
  keep: string,
  at: Date,
): Promise<string[]> {
  const { rows } = await q.query<{ deployment_id: string }>(
    `update deployments set status = 'draining', drained_at = $4
      where tenant = $1 and slot = $2 and status = 'active' and deployment_id <> $3
      returning deployment_id`,
    [tenant, slot, keep, at],
  );
  return rows.map((r) => r.deployment_id);
}

/** Drains one active row. */
export async function drainOne(
  q: Queryable,
  tenant: string,
  deploymentId: string,
  at: Date,
): Promise<void> {
  await q.query(
    `update deployments set status = 'draining', drained_at = $3
      where tenant = $1 and deployment_id = $2 and status = 'active'`,
    [tenant, deploymentId, at],
  );
}

/** Makes an existing row (draining, retired or failed) the active one again. */
export async function reactivate(
  q: Queryable,
  tenant: string,
  deploymentId: string,
  at: Date,
): Promise<void> {
  await q.query(
    `update deployments set status = 'active', activated_at = $3, drained_at = null,
        retired_at = null, failure_code = null, failure_detail = null
      where tenant = $1 and deployment_id = $2`,
    [tenant, deploymentId, at],
  );
}

/** Inserts a new active row. */
export async function insertActive(q: Queryable, row: NewDeployment, at: Date): Promise<void> {
  await q.query(
    `insert into deployments
       (tenant, deployment_id, slot, labels, manifest, archive, status, created_at, activated_at)
     values ($1, $2, $3, $4, $5, $6, 'active', $7, $7)`,
    [row.tenant, row.deploymentId, row.slot, row.labels, row.manifest, row.archive, at],
  );
}

/**
 * Records a failed activation. A row that already exists in another state
 * keeps it: the same bytes ran before, so this failure says nothing about
 * that revision.
 */
export async function recordFailure(
  q: Queryable,
  row: NewDeployment,
  failure: { readonly code: string; readonly detail: string },
  at: Date,
): Promise<void> {
  await q.query(
    `insert into deployments
       (tenant, deployment_id, slot, labels, manifest, archive, status, failure_code,
        failure_detail, created_at)
     values ($1, $2, $3, $4, $5, $6, 'failed', $7, $8, $9)
     on conflict (tenant, deployment_id) do update
       set failure_code = excluded.failure_code, failure_detail = excluded.failure_detail
       where deployments.status = 'failed'`,
    [
      row.tenant,
      row.deploymentId,
      row.slot,
      row.labels,
      row.manifest,
      row.archive,
      failure.code,
      failure.detail,
      at,
    ],
  );
}

/**
 * Retires every draining row that is quiescent: no RUNNING, SUSPENDED or
 * FAILED instance pinned to it (terminal history does not count), no
 * outbox row it minted that is still pending (poisoned rows do not count),
 * and no external task parked for it that a worker may still complete
 * (terminal tasks do not count).
 */
export async function retireQuiescent(
  q: Queryable,
  scope: string | undefined,
  at: Date,
): Promise<{ tenant: string; deploymentId: string; slot: string }[]> {
  const { rows } = await q.query<{ tenant: string; deployment_id: string; slot: string }>(
    `update deployments d set status = 'retired', retired_at = $2
      where ($1::text is null or d.tenant = $1::text) and d.status = 'draining'
        and not exists (
          select 1 from instances i
           where i.tenant = d.tenant and i.deployment_id = d.deployment_id
             and i.status in ('RUNNING', 'SUSPENDED', 'FAILED'))
        and not exists (
          select 1 from outbox o
           where o.tenant = d.tenant and o.deployment_id = d.deployment_id
             and o.poisoned_at is null)
        and not exists (
          select 1 from external_tasks t
           where t.tenant = d.tenant and t.deployment_id = d.deployment_id
             and not t.terminal)
      returning d.tenant, d.deployment_id, d.slot`,
    [scope ?? null, at],
  );
  return rows.map((r) => ({ tenant: r.tenant, deploymentId: r.deployment_id, slot: r.slot }));
}
