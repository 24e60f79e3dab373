/**
 * SQL over the `deployments` table. A `scope` of `undefined` means every
 * tenant; a tenant-scoped service passes its tenant and sees nothing else.
 * Deployment ids are content hashes over a manifest that includes the
 * tenant label, so an id never names rows of two tenants.
 *
 * @module
 */
import type { SealedArchive } from "../../package/mod.ts";
import type { Queryable } from "../../persistence/mod.ts";

type Labels = Readonly<Record<string, string>>;

/** The stored states of a deployment. */
export type StoredStatus = "pending" | "active" | "draining" | "retired" | "failed";

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
  /** Set while an asynchronous activation of this revision is in flight. */
  readonly pendingSince?: Date;
  /** The replica running that activation. */
  readonly pendingBy?: string;
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

/** The row a verified archive is stored as. */
export function newDeployment(archive: SealedArchive): NewDeployment {
  return {
    tenant: archive.manifest.labels.tenant,
    deploymentId: archive.deploymentId,
    slot: archive.slot,
    labels: archive.manifest.labels,
    manifest: archive.manifest,
    archive: archive.bytes,
  };
}

/** A new row's stored columns, in the order every insert below lists them. */
function stored(row: NewDeployment): unknown[] {
  return [row.tenant, row.deploymentId, row.slot, row.labels, row.manifest, row.archive];
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
  pending_since: Date | null;
  pending_by: string | null;
}

const COLUMNS = `tenant, deployment_id, slot, labels, status, failure_code, failure_detail,
  created_at, activated_at, drained_at, retired_at, pending_since, pending_by`;

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
    ...(r.pending_since !== null ? { pendingSince: r.pending_since } : {}),
    ...(r.pending_by !== null ? { pendingBy: r.pending_by } : {}),
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
        retired_at = null, failure_code = null, failure_detail = null,
        pending_since = null, pending_by = null
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
 * Records a failed activation and ends any pending marker. A row that
 * already exists in another state keeps it (and its failure fields): the
 * same bytes ran before, so this failure says nothing about that revision.
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
       set status = case when deployments.status = 'pending' then 'failed'
                         else deployments.status end,
           failure_code = case when deployments.status in ('pending', 'failed')
                               then excluded.failure_code else deployments.failure_code end,
           failure_detail = case when deployments.status in ('pending', 'failed')
                                 then excluded.failure_detail else deployments.failure_detail end,
           pending_since = null, pending_by = null
       where deployments.status in ('pending', 'failed') or deployments.pending_since is not null`,
    [...stored(row), failure.code, failure.detail, at],
  );
}

/**
 * Marks an asynchronous activation of `row` as in flight: a new revision is
 * stored as `pending`, an existing one that is not active gains the marker
 * and keeps its status. Answers false when the revision is active or an
 * activation is already in flight (nothing to start).
 */
export async function markPending(
  q: Queryable,
  row: NewDeployment,
  by: string,
  at: Date,
  notify: readonly string[] = [],
): Promise<boolean> {
  const { rows } = await q.query(
    `insert into deployments
       (tenant, deployment_id, slot, labels, manifest, archive, status, created_at,
        pending_since, pending_by, notify)
     values ($1, $2, $3, $4, $5, $6, 'pending', $7, $7, $8, $9)
     on conflict (tenant, deployment_id) do update
       set pending_since = excluded.pending_since, pending_by = excluded.pending_by,
           notify = excluded.notify
       where deployments.pending_since is null and deployments.status <> 'active'
     returning deployment_id`,
    [...stored(row), at, by, notify.length > 0 ? [...notify] : null],
  );
  return rows.length === 1;
}

/** Adds completion-event destinations to an activation already pending; false when none is. */
export async function addNotify(
  q: Queryable,
  key: { readonly tenant: string; readonly deploymentId: string },
  notify: readonly string[],
): Promise<boolean> {
  const { rows } = await q.query(
    `update deployments set notify = coalesce(notify, '[]'::jsonb) || $3::jsonb
      where tenant = $1 and deployment_id = $2 and pending_since is not null
      returning deployment_id`,
    [key.tenant, key.deploymentId, [...notify]],
  );
  return rows.length === 1;
}

/** Takes (once) the completion-event destinations recorded for a deploy that is settling. */
export async function takeNotify(
  q: Queryable,
  key: { readonly tenant: string; readonly deploymentId: string },
): Promise<string[]> {
  const { rows } = await q.query<{ notify: string[] }>(
    `update deployments d set notify = null
       from (select notify from deployments
              where tenant = $1 and deployment_id = $2 and notify is not null for update) old
      where d.tenant = $1 and d.deployment_id = $2
      returning old.notify`,
    [key.tenant, key.deploymentId],
  );
  return rows[0]?.notify ?? [];
}

/** Ends the pending marker of a revision that turned out to be active already. */
export async function settlePending(
  q: Queryable,
  tenant: string,
  deploymentId: string,
): Promise<void> {
  await q.query(
    `update deployments set pending_since = null, pending_by = null
      where tenant = $1 and deployment_id = $2 and pending_since is not null`,
    [tenant, deploymentId],
  );
}

/**
 * Takes over the activations pending since before `staleBefore` (their
 * replica died or stalled): re-stamps them for `by` and answers their
 * archives. Row locks make each one go to a single caller.
 */
export async function takeOverPending(
  q: Queryable,
  scope: string | undefined,
  options: { readonly by: string; readonly at: Date; readonly staleBefore: Date },
): Promise<
  { tenant: string; deploymentId: string; slot: string; labels: Labels; archive: Uint8Array }[]
> {
  const { rows } = await q.query<
    { tenant: string; deployment_id: string; slot: string; labels: Labels; archive: Uint8Array }
  >(
    `update deployments set pending_since = $3, pending_by = $2
      where ${IN_SCOPE} and pending_since < $4 and status <> 'active'
      returning tenant, deployment_id, slot, labels, archive`,
    [scope ?? null, options.by, options.at, options.staleBefore],
  );
  return rows.map((r) => ({
    tenant: r.tenant,
    deploymentId: r.deployment_id,
    slot: r.slot,
    labels: r.labels,
    archive: r.archive,
  }));
}

/**
 * Ends a pending activation that cannot run at all: a new revision becomes
 * `failed` with the reason, an existing one keeps its status.
 */
export async function abandonPending(
  q: Queryable,
  key: { readonly tenant: string; readonly deploymentId: string },
  failure: { readonly code: string; readonly detail: string },
): Promise<void> {
  await q.query(
    `update deployments
        set status = case when status = 'pending' then 'failed' else status end,
            failure_code = case when status = 'pending' then $3 else failure_code end,
            failure_detail = case when status = 'pending' then $4 else failure_detail end,
            pending_since = null, pending_by = null
      where tenant = $1 and deployment_id = $2`,
    [key.tenant, key.deploymentId, failure.code, failure.detail],
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
