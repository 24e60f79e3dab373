/**
 * SQL over `external_tasks`. Every worker-facing mutation is guarded by
 * ownership (this worker, a live lock, not terminal); a guarded statement
 * that matches nothing is followed by {@link probeTask}, an unguarded read
 * of the lock state alone, so the caller can say which situation it is.
 * Lock expiry is part of the fetch predicate itself: nothing ever sweeps
 * expired locks.
 *
 * @module
 */
import type { SinkTransaction } from "../../core/transport.ts";
import type { Queryable } from "../../persistence/mod.ts";

/** NOTIFY channel a park rings, with the parked task's destination as payload. */
export const TASK_PARKED_CHANNEL = "sutra_external_tasks";

/** Where a task lives: the owning deployment and the destination it was emitted to. */
export interface TaskAddress {
  readonly deploymentId: string;
  readonly destination: string;
}

/** A delivery about to be parked. */
export interface ParkedDelivery extends TaskAddress {
  readonly taskId: string;
  readonly instanceId?: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Uint8Array;
  readonly contentType?: string;
  readonly idempotencyKey: string;
}

/**
 * Inserts the task and rings the doorbell of its destination; both take
 * effect when the caller's transaction commits. A second park of the same
 * delivery (same idempotency key) changes nothing.
 */
export async function parkTask(tx: SinkTransaction, d: ParkedDelivery): Promise<void> {
  await tx.query(
    `insert into external_tasks (tenant, task_id, deployment_id, destination, instance_id,
                                 headers, body, content_type, idempotency_key)
     values (coalesce((select tenant from deployments where deployment_id = $2 limit 1), 'default'),
             $1, $2, $3, $4, $5, $6, $7, $8)
     on conflict (tenant, idempotency_key) do nothing`,
    [
      d.taskId,
      d.deploymentId,
      d.destination,
      d.instanceId ?? null,
      d.headers,
      d.body,
      d.contentType ?? null,
      d.idempotencyKey,
    ],
  );
  await tx.query("select pg_notify($1, $2)", [TASK_PARKED_CHANNEL, d.destination]);
}

/** A task as a fetch hands it out. */
export interface LockedTask extends TaskAddress {
  readonly taskId: string;
  readonly instanceId?: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Uint8Array;
  readonly contentType?: string;
  readonly attempts: number;
  readonly retriesLeft: number;
  readonly lockExpiresAt: Date;
}

interface LockedRow {
  task_id: string;
  deployment_id: string;
  destination: string;
  instance_id: string | null;
  headers: Record<string, string>;
  body: Uint8Array;
  content_type: string | null;
  attempts: number;
  retries_left: number;
  lock_expires_at: Date;
}

/** Options for {@link claimTasks}. */
export interface ClaimOptions {
  readonly workerId: string;
  readonly lockMs: number;
  readonly maxTasks: number;
  /** The addresses the worker's channel names resolve to in the live deployment set. */
  readonly addresses: readonly TaskAddress[];
  /** The configured budget, for tasks that have not failed yet. */
  readonly retries: number;
}

/**
 * Locks up to `maxTasks` fetchable tasks to the worker in one statement: not
 * terminal, past their backoff, and unlocked or holding an expired lock.
 * `SKIP LOCKED` lets concurrent fetches (on any replica) pass each other by.
 */
export async function claimTasks(db: Queryable, o: ClaimOptions): Promise<LockedTask[]> {
  if (o.addresses.length === 0) return [];
  const addresses = JSON.stringify(o.addresses.map((a) => [a.deploymentId, a.destination]));
  const { rows } = await db.query<LockedRow>(
    `update external_tasks t
        set lock_owner = $1, lock_expires_at = now() + make_interval(secs => $2),
            attempts = t.attempts + 1, expired_owner = coalesce(t.lock_owner, t.expired_owner)
      where (t.tenant, t.task_id) in (
        select c.tenant, c.task_id from external_tasks c
         where not c.terminal and c.fetchable_at <= now()
           and (c.lock_expires_at is null or c.lock_expires_at <= now())
           and (c.deployment_id, c.destination) in (
             select a->>0, a->>1 from jsonb_array_elements($3::text::jsonb) a)
         order by c.fetchable_at, c.created_at
         limit $4
         for update skip locked)
      returning t.task_id, t.deployment_id, t.destination, t.instance_id, t.headers, t.body,
                t.content_type, t.attempts, coalesce(t.retries_left, $5) as retries_left,
                t.lock_expires_at`,
    [o.workerId, o.lockMs / 1000, addresses, o.maxTasks, o.retries],
  );
  return rows.map((r) => ({
    taskId: r.task_id,
    deploymentId: r.deployment_id,
    destination: r.destination,
    ...(r.instance_id === null ? {} : { instanceId: r.instance_id }),
    headers: r.headers,
    body: r.body,
    ...(r.content_type === null ? {} : { contentType: r.content_type }),
    attempts: r.attempts,
    retriesLeft: r.retries_left,
    lockExpiresAt: r.lock_expires_at,
  }));
}

/** A task whose lock a completing worker holds. */
export interface HeldTask extends TaskAddress {
  readonly taskId: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Uint8Array;
  readonly contentType?: string;
  readonly idempotencyKey: string;
}

/**
 * Re-takes the worker's live lock for `lockMs` from now, so it cannot lapse
 * while the completion is inside the engine; undefined when the worker does
 * not hold a live lock on a non-terminal task. Like a claim, it commits
 * without waiting for its log flush ({@link ASYNC_COMMIT}): the completion's
 * own step commit flushes the log past it, and a server crash before that
 * loses only a lock extension, as it loses the completion in flight.
 */
export async function holdLock(
  db: Queryable,
  o: { taskId: string; workerId: string; lockMs: number },
): Promise<HeldTask | undefined> {
  const { rows } = await db.query<{
    task_id: string;
    deployment_id: string;
    destination: string;
    headers: Record<string, string>;
    body: Uint8Array;
    content_type: string | null;
    idempotency_key: string;
  }>(
    `update external_tasks set lock_expires_at = now() + make_interval(secs => $3)
      where task_id = $1 and lock_owner = $2 and lock_expires_at > now() and not terminal
        and ${ASYNC_COMMIT}
      returning task_id, deployment_id, destination, headers, body, content_type, idempotency_key`,
    [o.taskId, o.workerId, o.lockMs / 1000],
  );
  const r = rows[0];
  return r && {
    taskId: r.task_id,
    deploymentId: r.deployment_id,
    destination: r.destination,
    headers: r.headers,
    body: r.body,
    ...(r.content_type === null ? {} : { contentType: r.content_type }),
    idempotencyKey: r.idempotency_key,
  };
}

/** Releases the worker's lock so the task is fetchable again at once. */
export async function releaseLock(
  db: Queryable,
  o: { taskId: string; workerId: string },
): Promise<void> {
  await db.query(
    `update external_tasks set lock_owner = null, lock_expires_at = null
      where task_id = $1 and lock_owner = $2`,
    [o.taskId, o.workerId],
  );
}

/**
 * Removes a task whose completion the engine accepted, without waiting for
 * the log flush ({@link ASYNC_COMMIT}): a delete a server crash loses leaves
 * the task to be offered again, and the completion's dedup record, durable
 * with its step, answers the second completion without running it.
 */
export async function deleteTask(db: Queryable, taskId: string): Promise<void> {
  await db.query(`delete from external_tasks where task_id = $1 and ${ASYNC_COMMIT}`, [taskId]);
}

/**
 * A condition that holds and turns `synchronous_commit` off for the
 * statement's own transaction: it commits as soon as its log records are
 * written, and is visible at once; the next flushed commit makes it durable.
 */
const ASYNC_COMMIT = "(select set_config('synchronous_commit', 'off', true)) = 'off'";

/** Options for {@link failTask}. */
export interface FailureOptions {
  readonly taskId: string;
  readonly workerId: string;
  readonly errorMessage: string;
  /** The remaining budget the worker sets; omitted spends one. */
  readonly retries?: number;
  readonly retryTimeoutMs: number;
  /** The configured budget, for a task that has not failed yet. */
  readonly defaultRetries: number;
}

/**
 * Records a worker's failure under the ownership guard: releases the lock,
 * sets or spends the budget, defers the next fetch, and turns the task
 * terminal when nothing is left. Undefined when the guard matched nothing.
 */
export async function failTask(
  db: Queryable,
  o: FailureOptions,
): Promise<{ retriesLeft: number; terminal: boolean } | undefined> {
  const { rows } = await db.query<{ retries_left: number; terminal: boolean }>(
    `update external_tasks
        set retries_left = greatest(coalesce($4::integer, coalesce(retries_left, $5) - 1), 0),
            terminal = coalesce($4::integer, coalesce(retries_left, $5) - 1) <= 0,
            last_error = $3, lock_owner = null, lock_expires_at = null,
            fetchable_at = now() + make_interval(secs => $6)
      where task_id = $1 and lock_owner = $2 and lock_expires_at > now() and not terminal
        and ${ASYNC_COMMIT}
      returning retries_left, terminal`,
    [
      o.taskId,
      o.workerId,
      o.errorMessage,
      o.retries ?? null,
      o.defaultRetries,
      o.retryTimeoutMs / 1000,
    ],
  );
  const r = rows[0];
  return r && { retriesLeft: r.retries_left, terminal: r.terminal };
}

/** A task's lock state, read without any guard. */
export interface LockState {
  readonly lockOwner?: string;
  readonly lockLive: boolean;
  /** The last worker whose lock lapsed and was taken over. */
  readonly expiredOwner?: string;
  readonly terminal: boolean;
}

/** The lock state of a task; undefined when no such task exists. */
export async function probeTask(db: Queryable, taskId: string): Promise<LockState | undefined> {
  const { rows } = await db.query<{
    lock_owner: string | null;
    lock_live: boolean | null;
    expired_owner: string | null;
    terminal: boolean;
  }>(
    `select lock_owner, lock_expires_at > now() as lock_live, expired_owner, terminal
       from external_tasks where task_id = $1`,
    [taskId],
  );
  const r = rows[0];
  return r && {
    ...(r.lock_owner === null ? {} : { lockOwner: r.lock_owner }),
    lockLive: r.lock_live === true,
    ...(r.expired_owner === null ? {} : { expiredOwner: r.expired_owner }),
    terminal: r.terminal,
  };
}
