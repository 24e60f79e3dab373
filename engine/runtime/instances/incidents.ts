/**
 * What needs an operator, behind `GET /admin/incidents`: FAILED instances,
 * deliveries the outbox gave up on (poisoned), external tasks whose worker
 * budget is spent, and lost data-store writes a replay could not apply. Each is one incident with a code, a message,
 * the node when one is known and the time it happened, newest first.
 *
 * Each kind is read from its own index (migration 9) at most `limit` rows
 * deep, then merged: one page never sorts a whole table.
 *
 * @module
 */
import type { Queryable } from "../../persistence/mod.ts";

/** The kinds of incident. */
export const INCIDENT_KINDS = ["instance", "delivery", "external-task", "store-write"] as const;

/** One kind of incident. */
export type IncidentKind = typeof INCIDENT_KINDS[number];

/** One incident. */
export interface Incident {
  readonly kind: IncidentKind;
  /** The FAILED instance's id, the outbox row's id, the task's id, or the redo row's id. */
  readonly id: string;
  readonly tenant: string;
  readonly instanceId: string | null;
  readonly deploymentId: string | null;
  readonly code: string;
  readonly message: string | null;
  readonly node: string | null;
  /** When it failed: the instance's last write, the delivery's poisoning, the task's parking. */
  readonly at: string;
  /** Where a delivery or task was going. */
  readonly destination?: string;
}

interface IncidentRow {
  id: string;
  tenant: string;
  instance_id: string | null;
  deployment_id: string | null;
  code: string | null;
  message: string | null;
  node: string | null;
  at: Date;
  destination: string | null;
}

/** The statement listing one kind of incident (`$1` the limit). */
export const INCIDENT_STATEMENTS: Readonly<Record<IncidentKind, string>> = {
  instance: `select instance_id as id, tenant, instance_id, deployment_id, failure_code as code,
      failure_detail as message, failure_node as node, updated_at as at, null as destination
    from instances where status = 'FAILED'
    order by created_at desc, instance_id desc limit $1`,
  // The worker writes `CODE: error` into last_error when it poisons a row.
  delivery: `select outbox_id as id, tenant, instance_id, deployment_id,
      split_part(last_error, ': ', 1) as code, last_error as message, null as node,
      poisoned_at as at, destination
    from outbox where poisoned_at is not null
    order by poisoned_at desc, outbox_id desc limit $1`,
  "external-task": `select task_id as id, tenant, instance_id, deployment_id,
      'SUTRA.EXTERNAL_TASK.RETRIES_EXHAUSTED' as code, last_error as message, null as node,
      created_at as at, destination
    from external_tasks where terminal
    order by created_at desc, task_id desc limit $1`,
  "store-write": `select redo_id as id, tenant, instance_id, deployment_id,
      'SUTRA.RUNTIME.DATASTORE.REDO_DIVERGED' as code, detail as message, null as node,
      diverged_at as at, null as destination
    from store_redo where diverged_at is not null
    order by diverged_at desc, redo_id desc limit $1`,
};

/**
 * Settles a `store-write` incident once an operator has dealt with the lost
 * writes by hand: its redo row is deleted. Resolves to false when no
 * diverged row has that id.
 */
export async function resolveStoreWriteIncident(db: Queryable, id: string): Promise<boolean> {
  const r = await db.query(
    "delete from store_redo where redo_id = $1 and diverged_at is not null",
    [id],
  );
  return r.rowCount > 0;
}

/** The newest `limit` incidents of the given kinds, newest first. */
export async function listIncidents(
  db: Queryable,
  options: { readonly kinds?: readonly IncidentKind[]; readonly limit: number },
): Promise<Incident[]> {
  const kinds = options.kinds ?? INCIDENT_KINDS;
  const pages = await Promise.all(kinds.map(async (kind) => {
    const { rows } = await db.query<IncidentRow>(INCIDENT_STATEMENTS[kind], [options.limit]);
    return rows.map((r): Incident => ({
      kind,
      id: r.id,
      tenant: r.tenant,
      instanceId: r.instance_id,
      deploymentId: r.deployment_id,
      code: r.code && /^SUTRA\./.test(r.code) ? r.code : "SUTRA.RUNTIME.UNEXPECTED",
      message: r.message,
      node: r.node,
      at: r.at.toISOString(),
      ...(r.destination === null ? {} : { destination: r.destination }),
    }));
  }));
  return pages.flat().sort((a, b) => (a.at < b.at ? 1 : a.at > b.at ? -1 : 0)).slice(
    0,
    options.limit,
  );
}
