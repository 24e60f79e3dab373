/**
 * The instance tables: claims on an instance row, and the one write that
 * commits a step — snapshot, waits, aliases, outbox rows and audit rows
 * together in the caller's transaction.
 *
 * @module
 */
import type { Effects, InstanceState } from "../../executor/mod.ts";
import { isTerminal } from "../../executor/mod.ts";
import { type Queryable, SqlError, type Transaction } from "../../persistence/mod.ts";

/** The durable status of an instance row. */
export type InstanceRowStatus = "RUNNING" | "SUSPENDED" | "COMPLETED" | "TERMINATED" | "FAILED";

/** The row status for an executor state (a parked instance is still RUNNING). */
export function rowStatus(state: InstanceState): InstanceRowStatus {
  return state.status === "WAITING" ? "RUNNING" : state.status;
}

/** A claimed instance, ready to rehydrate. */
export interface ClaimedInstance {
  readonly deploymentId: string;
  readonly processId: string;
  readonly snapshot: Uint8Array;
}

/** Why a claim was not taken. */
export type ClaimRefusal = "held" | "not-active" | "missing";

/** Identifies one claim. */
export interface ClaimKey {
  readonly tenant: string;
  readonly instanceId: string;
  /** The lane-scoped owner id, e.g. `replica-1/lane-2`. */
  readonly owner: string;
}

/**
 * Compare-and-set claim on the instance row: taken only when nobody holds
 * it and the instance is live. A held claim is a refusal, never a wait.
 */
export async function claimInstance(
  db: Queryable,
  key: ClaimKey,
): Promise<ClaimedInstance | ClaimRefusal> {
  const { rows } = await db.query<
    { deployment_id: string; process_id: string; snapshot: Uint8Array }
  >(
    `update instances set owner = $3, claimed_at = now()
      where tenant = $1 and instance_id = $2 and owner is null
        and status in ('RUNNING', 'SUSPENDED')
      returning deployment_id, process_id, snapshot`,
    [key.tenant, key.instanceId, key.owner],
  );
  if (rows.length === 1) {
    const r = rows[0];
    return { deploymentId: r.deployment_id, processId: r.process_id, snapshot: r.snapshot };
  }
  const { rows: seen } = await db.query<{ status: string; owner: string | null }>(
    "select status, owner from instances where tenant = $1 and instance_id = $2",
    [key.tenant, key.instanceId],
  );
  if (seen.length === 0) return "missing";
  return seen[0].owner !== null ? "held" : "not-active";
}

/** Releases a claim this owner holds (every exit that does not commit). */
export async function releaseClaim(db: Queryable, key: ClaimKey): Promise<void> {
  await db.query(
    "update instances set owner = null, claimed_at = null where tenant = $1 and instance_id = $2 and owner = $3",
    [key.tenant, key.instanceId, key.owner],
  );
}

/** Thrown inside a commit when the claim was lost (swept as stuck) before the commit. */
export class ClaimLostError extends Error {
  constructor(instanceId: string) {
    super(`the claim on instance ${instanceId} was lost before the commit`);
    this.name = "ClaimLostError";
  }
}

/** Thrown when a step records a unique alias another live instance holds. */
export class AliasConflictError extends Error {
  constructor(readonly alias: string, readonly value: string) {
    super(`alias ${alias}=${value} is held by another live instance`);
    this.name = "AliasConflictError";
  }
}

/** An outbox row written with the step. */
export interface OutboxRow {
  readonly outboxId: string;
  readonly destination: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Uint8Array;
  readonly contentType?: string;
  readonly idempotencyKey: string;
}

/** Everything one step commits. */
export interface StepCommit {
  readonly tenant: string;
  readonly instanceId: string;
  readonly deploymentId: string;
  readonly processId: string;
  readonly state: InstanceState;
  readonly snapshot: Uint8Array;
  readonly effects: Effects;
  readonly outbox: readonly OutboxRow[];
  /** Absent for a new instance (inserted); the claim owner for a resumed one. */
  readonly owner?: string;
  /** A new instance: the channel that started it and that channel's `maxConcurrentInstances`. */
  readonly admission?: { readonly channel: string; readonly cap?: number };
}

/** Thrown when a new instance would exceed its channel's `maxConcurrentInstances`. */
export class AdmissionFullError extends Error {
  constructor(readonly channel: string, readonly cap: number) {
    super(`channel '${channel}' already has ${cap} live instance(s), its maxConcurrentInstances`);
    this.name = "AdmissionFullError";
  }
}

// Counted under a transaction-scoped lock per channel, so replicas admitting
// at the same moment cannot overshoot the cap between them.
async function admit(tx: Transaction, c: StepCommit): Promise<void> {
  const cap = c.admission?.cap;
  if (!c.admission || cap === undefined) return;
  await tx.query("select pg_advisory_xact_lock(hashtext($1))", [
    `sutra.admission/${c.tenant}/${c.admission.channel}`,
  ]);
  const { rows } = await tx.query<{ n: number }>(
    `select count(*)::int as n from instances
      where tenant = $1 and channel = $2 and status in ('RUNNING', 'SUSPENDED')`,
    [c.tenant, c.admission.channel],
  );
  if (rows[0].n >= cap) throw new AdmissionFullError(c.admission.channel, cap);
}

const waitKey = (instanceId: string, wait: number) => `${instanceId}:${wait}`;

/** Writes one step's results in `tx`; throws {@link ClaimLostError} or {@link AliasConflictError}. */
export async function commitStep(tx: Transaction, c: StepCommit): Promise<void> {
  const status = rowStatus(c.state);
  const failure = c.state.failure;
  const ended = isTerminal(c.state.status);
  if (c.owner === undefined) {
    await admit(tx, c);
    await tx.query(
      `insert into instances (tenant, instance_id, deployment_id, process_id, status, snapshot,
         failure_code, failure_detail, failure_node, ended_at, channel)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $9, case when $10 then now() end, $11)`,
      [
        c.tenant,
        c.instanceId,
        c.deploymentId,
        c.processId,
        status,
        c.snapshot,
        failure?.code ?? null,
        failure?.message ?? null,
        failure?.node ?? null,
        ended,
        c.admission?.channel ?? null,
      ],
    );
  } else {
    const updated = await tx.query(
      `update instances set status = $4, snapshot = $5, failure_code = $6, failure_detail = $7,
         failure_node = $8, owner = null, claimed_at = null, updated_at = now(),
         ended_at = case when $9 then now() end
       where tenant = $1 and instance_id = $2 and owner = $3`,
      [
        c.tenant,
        c.instanceId,
        c.owner,
        status,
        c.snapshot,
        failure?.code ?? null,
        failure?.message ?? null,
        failure?.node ?? null,
        ended,
      ],
    );
    if (updated.rowCount !== 1) throw new ClaimLostError(c.instanceId);
  }
  await writeWaits(tx, c);
  await writeAliases(tx, c, ended);
  for (const o of c.outbox) {
    await tx.query(
      `insert into outbox (tenant, outbox_id, instance_id, deployment_id, destination, headers,
         body, content_type, idempotency_key)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
      [
        c.tenant,
        o.outboxId,
        c.instanceId,
        c.deploymentId,
        o.destination,
        o.headers,
        o.body,
        o.contentType ?? null,
        o.idempotencyKey,
      ],
    );
  }
  await writeAudit(tx, c);
}

// One statement for the whole journal of a step: a round trip per event would dominate short steps.
async function writeAudit(tx: Transaction, c: StepCommit): Promise<void> {
  const events = c.effects.audit;
  if (events.length === 0) return;
  const params: unknown[] = [c.tenant, c.instanceId];
  const rows = events.map((a) => {
    const at = params.push(
      a.seq,
      a.type,
      a.node ?? null,
      new Date(a.at),
      a.flow === undefined && a.code === undefined ? null : { flow: a.flow, code: a.code },
    );
    return `($1, $2, $${at - 4}, $${at - 3}, $${at - 2}, $${at - 1}, $${at})`;
  });
  await tx.query(
    `insert into audit_events (tenant, instance_id, seq, event_type, node_id, at, data)
     values ${rows.join(", ")}`,
    params,
  );
}

async function writeWaits(tx: Transaction, c: StepCommit): Promise<void> {
  if (isTerminal(c.state.status)) {
    await tx.query("delete from waits where tenant = $1 and instance_id = $2", [
      c.tenant,
      c.instanceId,
    ]);
    return;
  }
  for (const id of c.effects.waitsResolved) {
    await tx.query("delete from waits where tenant = $1 and wait_id = $2", [
      c.tenant,
      waitKey(c.instanceId, id),
    ]);
  }
  for (const w of c.effects.waitsArmed) {
    await tx.query(
      `insert into waits (tenant, wait_id, instance_id, kind, node_id, channel, message_type, due_at, detail)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
      [
        c.tenant,
        waitKey(c.instanceId, w.id),
        c.instanceId,
        w.kind,
        w.node,
        w.channel ?? null,
        w.messageType ?? null,
        w.due === undefined ? null : new Date(w.due),
        { wait: w.id, purpose: w.purpose, process: w.process, signal: w.signal ?? null },
      ],
    );
  }
}

async function writeAliases(tx: Transaction, c: StepCommit, ended: boolean): Promise<void> {
  for (const a of c.effects.aliasesRecorded) {
    try {
      // A savepoint keeps the transaction usable so the conflict can be named.
      await tx.savepoint((sp) =>
        sp.query(
          "insert into aliases (tenant, name, value, instance_id, is_unique) values ($1, $2, $3, $4, $5)",
          [c.tenant, a.name, a.value, c.instanceId, a.unique],
        )
      );
    } catch (error) {
      if (error instanceof SqlError && error.code === "23505") {
        throw new AliasConflictError(a.name, a.value);
      }
      throw error;
    }
  }
  for (const a of c.effects.aliasesRetired) {
    await tx.query(
      `update aliases set retired_at = now()
        where tenant = $1 and name = $2 and value = $3 and instance_id = $4 and retired_at is null`,
      [c.tenant, a.name, a.value, c.instanceId],
    );
  }
  // A finished instance holds no key: its business value is free for a new one.
  if (ended) {
    await tx.query(
      "update aliases set retired_at = now() where tenant = $1 and instance_id = $2 and retired_at is null",
      [c.tenant, c.instanceId],
    );
  }
}

/** Live instances holding an alias value (correlation). */
export async function instancesByAlias(
  db: Queryable,
  key: { tenant: string; name: string; value: string },
): Promise<string[]> {
  const { rows } = await db.query<{ instance_id: string }>(
    `select instance_id from aliases
      where tenant = $1 and name = $2 and value = $3 and retired_at is null
      order by created_at, instance_id`,
    [key.tenant, key.name, key.value],
  );
  return rows.map((r) => r.instance_id);
}
