/**
 * The instance tables: claims on an instance row, and the one write that
 * commits a step — snapshot, waits, aliases, outbox rows and (with the
 * audit journal on) audit rows together in the caller's transaction.
 *
 * @module
 */
import type { Effects, InstanceState } from "../../executor/mod.ts";
import { isTerminal } from "../../executor/mod.ts";
import {
  SNAPSHOT_COLUMN,
  snapshotFromColumn,
  snapshotFromParts,
  snapshotParts,
} from "./snapshot_column.ts";
import {
  type Database,
  jsonRecords,
  type Queryable,
  type Transaction,
  valuesList,
} from "../../persistence/mod.ts";

/** The durable status of an instance row. */
export type InstanceRowStatus = "RUNNING" | "SUSPENDED" | "COMPLETED" | "TERMINATED" | "FAILED";

/**
 * The row status for an executor state. The column keeps RUNNING for every
 * live instance, parked or not: claims, the partial indexes and retirement
 * all ask "is it live", never "is it parked". Surfaces never show the column
 * as it is; they show {@link surfaceStatus}.
 */
export function rowStatus(state: InstanceState): InstanceRowStatus {
  return state.status === "WAITING" ? "RUNNING" : state.status;
}

/**
 * The status every surface shows for a row, in the executor's words
 * (RUNNING, WAITING, COMPLETED, TERMINATED, FAILED; docs/runtime.md,
 * Instance status). A step runs until its instance is quiescent, so a live
 * row is parked, WAITING, unless a lane holds its claim and is running a
 * step on it right now: RUNNING.
 */
export function surfaceStatus(
  row: { readonly status: string; readonly owner: string | null },
): string {
  return row.status === "RUNNING" && row.owner === null ? "WAITING" : row.status;
}

/** A claimed instance, ready to rehydrate. */
export interface ClaimedInstance {
  readonly deploymentId: string;
  readonly processId: string;
  /** Its text, or its bytes when they had to be escaped on the way (see snapshot_column.ts). */
  readonly snapshot: string | Uint8Array;
}

/**
 * Why a claim was not taken; `moved` when the alias the claim was made
 * through no longer leads to the instance.
 */
export type ClaimRefusal = "held" | "not-active" | "missing" | "moved";

/** Identifies one claim. */
export interface ClaimKey {
  readonly tenant: string;
  readonly instanceId: string;
  /** The lane-scoped owner id, e.g. `replica-1/lane-2`. */
  readonly owner: string;
  /**
   * Claim only while this alias leads to the instance: it is the first
   * live holder, the one a correlation lookup would name (a relay whose
   * instance was predicted rather than looked up).
   */
  readonly through?: { readonly name: string; readonly value: string };
}

/** How a claim treats one another owner holds. */
export interface ClaimOptions {
  /**
   * A claim taken longer ago than this is stale (its owner presumed dead,
   * `sutra.instance.claim-timeout`) and is taken over; without it, only the
   * stuck-claim sweep frees it.
   */
  readonly staleAfterMs?: number;
}

/** Live holders of an alias value, first holder first (the order correlation takes), by placeholder. */
function holders(p: { tenant: string; name: string; value: string }): string {
  return `select instance_id from aliases
      where tenant = ${p.tenant} and name = ${p.name} and value = ${p.value} and retired_at is null
      order by created_at, instance_id`;
}

const HOLDERS = holders({ tenant: "$1", name: "$2", value: "$3" });

/**
 * Compare-and-set claim on the instance row: taken when nobody holds it,
 * when its holder is this same owner, or when the holder's claim is stale,
 * and the instance is live. A live claim of another owner is a refusal,
 * never a wait. Owners are lane-scoped, and a lane runs one step at a time,
 * so the same owner re-claiming is the same lane coming back (after a
 * release that failed, say), never two steps at once. A stale claim taken
 * over from a slow owner is safe too: that owner's commit names its claim
 * and no longer matches.
 *
 * The claim commits without waiting for its log flush (`synchronous_commit`
 * off for its own transaction only): it is visible to every other session
 * at once, and a server crash can only lose it together with everything
 * after it, since the step's commit flushes the log up to and including it.
 * A lost claim is an unclaimed instance, which is what a crash should leave.
 */
export async function claimInstance(
  // A database, never a transaction: the relaxed flush must not spread to a caller's writes.
  db: Database,
  key: ClaimKey,
  options: ClaimOptions = {},
): Promise<ClaimedInstance | ClaimRefusal> {
  const [claimed] = await claimInstances(db, key.tenant, [{ key, ...options }]);
  if (claimed) return claimed;
  // The caller guessed; it looks the alias up and claims again, which says why.
  if (key.through) return "moved";
  const { rows: seen } = await db.query<{ status: string; owner: string | null }>(
    "select status, owner from instances where tenant = $1 and instance_id = $2",
    [key.tenant, key.instanceId],
  );
  if (seen.length === 0) return "missing";
  return seen[0].owner !== null ? "held" : "not-active";
}

/** One claim of a {@link claimInstances} batch. */
export interface BatchedClaim extends ClaimOptions {
  readonly key: ClaimKey;
}

/**
 * The compare-and-set of {@link claimInstance} for the instances of one
 * tenant ($1; their ids $2 first, so the plan probes the key), each claim a
 * row of `claims` naming its instance, owner, staleness and alias.
 */
function claimStatement(claims: string): string {
  return `update instances as i set owner = v.owner, claimed_at = now()
  from ${claims}
  where i.tenant = $1 and i.instance_id = any($2::text[]) and i.instance_id = v.instance_id
    and (i.owner is null or i.owner = v.owner
      or i.claimed_at < now() - make_interval(secs => v.stale_secs))
    and i.status in ('RUNNING', 'SUSPENDED')
    and (select set_config('synchronous_commit', 'off', true)) = 'off'
    and (v.through_name is null or i.instance_id = (${
    holders({ tenant: "$1", name: "v.through_name", value: "v.through_value" })
  } limit 1))
  returning i.instance_id, i.owner, i.deployment_id, i.process_id, ${SNAPSHOT_COLUMN}`;
}

const CLAIM_COLUMNS = {
  instance_id: "text",
  owner: "text",
  stale_secs: "double precision",
  through_name: "text",
  through_value: "text",
};

// A lone claim's row as scalar parameters ($3…): the server reads them for less than one JSON row.
const CLAIM_ONE = claimStatement(
  `(select ${
    Object.entries(CLAIM_COLUMNS).map(([name, type], n) => `$${n + 3}::${type} as ${name}`)
      .join(", ")
  }) as v`,
);

const CLAIM_MANY = claimStatement(jsonRecords("v", CLAIM_COLUMNS, "$3"));

/**
 * Takes the claims of `batch` (one tenant's) in one statement, as
 * {@link claimInstance} takes one: the result holds, by position, the
 * instance of each claim taken, and undefined for each not taken — whose
 * caller asks {@link claimInstance} again to learn why (the same
 * compare-and-set, so it takes the claim if it has become free since). Two
 * claims of one instance in a batch: at most one is taken.
 */
export async function claimInstances(
  db: Database,
  tenant: string,
  batch: readonly BatchedClaim[],
): Promise<(ClaimedInstance | undefined)[]> {
  const rows = batch.map(({ key, staleAfterMs }) => ({
    instance_id: key.instanceId,
    owner: key.owner,
    stale_secs: staleAfterMs === undefined ? null : staleAfterMs / 1000,
    through_name: key.through?.name ?? null,
    through_value: key.through?.value ?? null,
  }));
  const { rows: taken } = await db.query<
    {
      instance_id: string;
      owner: string;
      deployment_id: string;
      process_id: string;
      snapshot: string;
    }
  >(
    rows.length === 1 ? CLAIM_ONE : CLAIM_MANY,
    [
      tenant,
      [...new Set(rows.map((r) => r.instance_id))],
      ...(rows.length === 1
        ? Object.keys(CLAIM_COLUMNS).map((c) => rows[0][c as keyof (typeof rows)[0]])
        : [rows]),
    ],
  );
  const byClaim = new Map(taken.map((r) => [`${r.instance_id}\u0000${r.owner}`, r]));
  return batch.map(({ key }) => {
    const r = byClaim.get(`${key.instanceId}\u0000${key.owner}`);
    // Answered once: a twin claim by the same owner in the batch is not the one taken.
    byClaim.delete(`${key.instanceId}\u0000${key.owner}`);
    return r && {
      deploymentId: r.deployment_id,
      processId: r.process_id,
      snapshot: snapshotFromColumn(r.snapshot),
    };
  });
}

/** An instance's row status, or undefined when there is no row (never was, or purged). */
export async function instanceStatus(
  db: Queryable,
  tenant: string,
  instanceId: string,
): Promise<InstanceRowStatus | undefined> {
  const { rows } = await db.query<{ status: InstanceRowStatus }>(
    "select status from instances where tenant = $1 and instance_id = $2",
    [tenant, instanceId],
  );
  return rows[0]?.status;
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
  /** The state's snapshot text (never read for a step that {@link leavesNoRow}). */
  readonly snapshot: string;
  readonly effects: Effects;
  readonly outbox: readonly OutboxRow[];
  /** Absent for a new instance (inserted); the claim owner for a resumed one. */
  readonly owner?: string;
  /** A new instance: the channel that started it and that channel's `maxConcurrentInstances`. */
  readonly admission?: { readonly channel: string; readonly cap?: number };
  /** Write the step's audit events (`sutra.audit.sql`). */
  readonly journal: boolean;
  /**
   * Keep no history (`sutra.instance.retention` PT0S): an instance the step
   * completes or terminates is deleted with its waits, aliases and audit
   * rows instead of being kept for the purge. FAILED ones are always kept.
   */
  readonly deleteAtCompletion?: boolean;
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

/**
 * Writes the results of steps on distinct instances in `tx`, throwing
 * {@link ClaimLostError}, {@link AliasConflictError} or
 * {@link AdmissionFullError} naming a step that met one. Their rows go out
 * together: one statement per kind of write (instances inserted, instances
 * updated, waits deleted and inserted, aliases recorded and retired, outbox,
 * audit) and tenant, whatever the number of steps, so a group commit costs a
 * handful of statements rather than a handful per step. A step that must
 * count against an admission cap first, or that erases its instance, keeps
 * statements of its own.
 *
 * The steps are concurrent, so any order among them is a valid one; within
 * a step, its writes keep their order (aliases are recorded before any are
 * retired). A statement that one step makes fail fails the whole call: the
 * caller runs the steps again one by one to learn whose it was.
 */
export async function commitSteps(tx: Transaction, steps: readonly StepCommit[]): Promise<void> {
  const shared = steps.filter((c) => !needsOwnStatements(c));
  await inOrder([
    ...steps.filter(needsOwnStatements).map((c) => commitAlone(tx, c)),
    writeRows(tx, shared),
  ]);
}

function needsOwnStatements(c: StepCommit): boolean {
  return (c.owner === undefined && c.admission?.cap !== undefined) || leavesNoRow(c);
}

async function commitAlone(tx: Transaction, c: StepCommit): Promise<void> {
  if (c.owner === undefined) await admit(tx, c);
  if (leavesNoRow(c)) {
    await inOrder([eraseInstance(tx, c), writeOutbox(tx, [c]), withdrawOutbox(tx, c)]);
    return;
  }
  await writeRows(tx, [c]);
}

/**
 * Whether {@link commitSteps} would send no statement at all: a new
 * instance that ends in its first step and keeps no history, with nothing
 * to emit, no alias to check and no admission cap to count against. Such a
 * step has nothing to make durable, so its caller may skip the transaction.
 */
export function commitsNothing(c: Omit<StepCommit, "snapshot">): boolean {
  return c.owner === undefined && leavesNoRow(c) && c.outbox.length === 0 &&
    c.effects.aliasesRecorded.length === 0 && c.admission?.cap === undefined;
}

/**
 * The step ends the instance and no history is kept (FAILED is always
 * kept): its instance row is deleted, or never inserted, so no snapshot of
 * it is written.
 */
export function leavesNoRow(c: Omit<StepCommit, "snapshot">): boolean {
  return c.deleteAtCompletion === true &&
    (c.state.status === "COMPLETED" || c.state.status === "TERMINATED");
}

/**
 * Deletes an ending instance and everything kept about it. A new one has
 * no row yet; the unique aliases its step recorded are still checked
 * against the live ones, as when history is kept, and then dropped.
 */
async function eraseInstance(tx: Transaction, c: StepCommit): Promise<void> {
  const key = [c.tenant, c.instanceId];
  const purge = (table: string) =>
    tx.query(`delete from ${table} where tenant = $1 and instance_id = $2`, key);
  if (c.owner === undefined) {
    if (c.effects.aliasesRecorded.length === 0) return;
    await inOrder([recordAliases(tx, c.tenant, [c]), purge("aliases")]);
    return;
  }
  const deleted = tx.query(
    "delete from instances where tenant = $1 and instance_id = $2 and owner = $3",
    [...key, c.owner],
  ).then((r) => {
    if (r.rowCount !== 1) throw new ClaimLostError(c.instanceId);
  });
  await inOrder([deleted, purge("waits"), purge("aliases"), purge("audit_events")]);
}

/**
 * Awaits statements issued together on one transaction and throws the first
 * failure in issue order. A transaction's statements run in that order on
 * its one connection, so issuing them without waiting pipelines them — one
 * round trip for a step's writes instead of one per table — and waiting for
 * all leaves none running when the caller rolls back.
 */
export async function inOrder(pending: readonly Promise<unknown>[]): Promise<void> {
  const settled = await Promise.allSettled(pending);
  const failed = settled.find((s): s is PromiseRejectedResult => s.status === "rejected");
  if (failed) throw failed.reason;
}

/**
 * The rows of `steps`, in statement order: instances, waits, aliases,
 * outbox, audit. Statements are per tenant: with the tenant a single
 * parameter, every keyed one plans as a probe of the key's index, even on a
 * table nobody has analyzed (compared as a list, the tenant let a scan win).
 */
async function writeRows(tx: Transaction, steps: readonly StepCommit[]): Promise<void> {
  const tenants = Map.groupBy(steps, (c) => c.tenant);
  await inOrder([...tenants].map(([tenant, own]) => writeTenantRows(tx, tenant, own)));
}

async function writeTenantRows(
  tx: Transaction,
  tenant: string,
  steps: readonly StepCommit[],
): Promise<void> {
  await inOrder([
    insertInstances(tx, tenant, steps.filter((c) => c.owner === undefined)),
    updateInstances(tx, tenant, steps.filter((c) => c.owner !== undefined)),
    writeWaits(tx, tenant, steps),
    writeAliases(tx, tenant, steps),
    writeOutbox(tx, steps),
    ...steps.map((c) => withdrawOutbox(tx, c)),
    writeAudit(tx, steps),
  ]);
}

/** The condition, and its parameters, on a table's rows of `steps`' instances (tenant `$1`, ids `$2`). */
function instancesOf(tenant: string, steps: readonly StepCommit[]) {
  return {
    where: "tenant = $1 and instance_id = any($2::text[])",
    params: [tenant, steps.map((c) => c.instanceId)],
  };
}

/** The columns an instance row takes from its step. */
function instanceRow(c: StepCommit) {
  const snapshot = snapshotParts(c.snapshot);
  return {
    instance_id: c.instanceId,
    status: rowStatus(c.state),
    snapshot_text: snapshot.text,
    snapshot_hex: snapshot.hex,
    failure_code: c.state.failure?.code ?? null,
    failure_detail: c.state.failure?.message.toWellFormed() ?? null,
    failure_node: c.state.failure?.node ?? null,
    ended: isTerminal(c.state.status),
  };
}

const INSTANCE_COLUMNS = {
  instance_id: "text",
  status: "text",
  snapshot_text: "text",
  snapshot_hex: "text",
  failure_code: "text",
  failure_detail: "text",
  failure_node: "text",
  ended: "boolean",
};

const INSERT_INSTANCES = `insert into instances (tenant, instance_id, deployment_id, process_id,
    status, snapshot, failure_code, failure_detail, failure_node, ended_at, channel)
  select $1, instance_id, deployment_id, process_id, status,
    ${snapshotFromParts("snapshot_text", "snapshot_hex")},
    failure_code, failure_detail, failure_node, case when ended then now() end, channel
  from ${
  jsonRecords("v", {
    ...INSTANCE_COLUMNS,
    deployment_id: "text",
    process_id: "text",
    channel: "text",
  }, "$2")
}`;

async function insertInstances(
  tx: Transaction,
  tenant: string,
  steps: readonly StepCommit[],
): Promise<void> {
  if (steps.length === 0) return;
  const rows = steps.map((c) => ({
    ...instanceRow(c),
    deployment_id: c.deploymentId,
    process_id: c.processId,
    channel: c.admission?.channel ?? null,
  }));
  await tx.query(INSERT_INSTANCES, [tenant, rows]);
}

// Claimed by the step's owner, found by the ids ($2) so the plan probes the key.
const UPDATE_INSTANCES = `update instances as i set status = v.status,
    snapshot = ${snapshotFromParts("v.snapshot_text", "v.snapshot_hex")},
    failure_code = v.failure_code, failure_detail = v.failure_detail,
    failure_node = v.failure_node, owner = null, claimed_at = null, updated_at = now(),
    ended_at = case when v.ended then now() end
  from ${jsonRecords("v", { ...INSTANCE_COLUMNS, owner: "text" }, "$3")}
  where i.tenant = $1 and i.instance_id = any($2::text[])
    and i.instance_id = v.instance_id and i.owner = v.owner
  returning i.instance_id`;

/** Writes the instances the steps resumed, where each step's claim still holds. */
async function updateInstances(
  tx: Transaction,
  tenant: string,
  steps: readonly StepCommit[],
): Promise<void> {
  if (steps.length === 0) return;
  const rows = steps.map((c) => ({ ...instanceRow(c), owner: c.owner }));
  const { rows: written } = await tx.query<{ instance_id: string }>(UPDATE_INSTANCES, [
    tenant,
    steps.map((c) => c.instanceId),
    rows,
  ]);
  if (written.length === steps.length) return;
  const kept = new Set(written.map((r) => r.instance_id));
  const lost = steps.find((c) => !kept.has(c.instanceId))!;
  throw new ClaimLostError(lost.instanceId);
}

async function writeOutbox(tx: Transaction, steps: readonly StepCommit[]): Promise<void> {
  const rows = steps.flatMap((c) =>
    c.outbox.map((o) => [
      c.tenant,
      o.outboxId,
      c.instanceId,
      c.deploymentId,
      o.destination,
      o.headers,
      o.body,
      o.contentType ?? null,
      o.idempotencyKey,
    ])
  );
  if (rows.length === 0) return;
  const params: unknown[] = [];
  await tx.query(
    `insert into outbox (tenant, outbox_id, instance_id, deployment_id, destination, headers,
       body, content_type, idempotency_key)
     values ${valuesList(params, rows)}`,
    params,
  );
}

/**
 * Deletes the deliveries of requests the step withdrew (a channel call's
 * dead attempt), pending and poisoned alike: the one case where an
 * undelivered row goes, because delivering it late would race the
 * re-issued request. The failure itself stays on record in the snapshot.
 */
async function withdrawOutbox(tx: Transaction, c: StepCommit): Promise<void> {
  const keys = c.effects.withdrawals;
  if (keys.length === 0 || c.owner === undefined) return;
  const params: unknown[] = [c.tenant, c.instanceId];
  const list = valuesList(params, keys.map((k) => [k]));
  // A request already parked for a pull worker is withdrawn with it.
  await inOrder([
    tx.query(
      `delete from outbox where tenant = $1 and instance_id = $2 and idempotency_key in (${list})`,
      params,
    ),
    tx.query(
      `delete from external_tasks where tenant = $1 and instance_id = $2 and idempotency_key in (${list})`,
      params,
    ),
  ]);
}

async function writeAudit(tx: Transaction, steps: readonly StepCommit[]): Promise<void> {
  const rows = steps.filter((c) => c.journal).flatMap((c) =>
    c.effects.audit.map((a) => [
      c.tenant,
      c.instanceId,
      a.seq,
      a.type,
      a.node ?? null,
      new Date(a.at),
      a.flow === undefined && a.code === undefined ? null : { flow: a.flow, code: a.code },
    ])
  );
  if (rows.length === 0) return;
  const params: unknown[] = [];
  await tx.query(
    `insert into audit_events (tenant, instance_id, seq, event_type, node_id, at, data)
     values ${valuesList(params, rows)}`,
    params,
  );
}

const INSERT_WAITS = `insert into waits (tenant, wait_id, instance_id, kind, node_id, channel,
    message_type, due_at, detail)
  select $1, wait_id, instance_id, kind, node_id, channel, message_type, due_at, detail
  from ${
  jsonRecords("v", {
    wait_id: "text",
    instance_id: "text",
    kind: "text",
    node_id: "text",
    channel: "text",
    message_type: "text",
    due_at: "timestamptz",
    detail: "jsonb",
  }, "$2")
}`;

async function writeWaits(
  tx: Transaction,
  tenant: string,
  steps: readonly StepCommit[],
): Promise<void> {
  const live = steps.filter((c) => !isTerminal(c.state.status));
  // A new instance has no wait rows yet: the ones its step armed were never written.
  const ended = steps.filter((c) => isTerminal(c.state.status) && c.owner !== undefined);
  const resolved = live.flatMap((c) =>
    c.effects.waitsResolved.map((id) => waitKey(c.instanceId, id))
  );
  const armed = live.flatMap((c) => c.effects.waitsArmed.map((w) => ({ c, w })));
  const statements: Promise<unknown>[] = [];
  if (ended.length > 0) {
    const of = instancesOf(tenant, ended);
    statements.push(tx.query(`delete from waits where ${of.where}`, of.params));
  }
  if (resolved.length > 0) {
    statements.push(tx.query(
      "delete from waits where tenant = $1 and wait_id = any($2::text[])",
      [tenant, resolved],
    ));
  }
  if (armed.length > 0) {
    const rows = armed.map(({ c, w }) => ({
      wait_id: waitKey(c.instanceId, w.id),
      instance_id: c.instanceId,
      kind: w.kind,
      node_id: w.node,
      channel: w.channel ?? null,
      message_type: w.messageType ?? null,
      due_at: w.due === undefined ? null : new Date(w.due).toISOString(),
      detail: { wait: w.id, purpose: w.purpose, process: w.process, signal: w.signal ?? null },
    }));
    statements.push(tx.query(INSERT_WAITS, [tenant, rows]));
  }
  await inOrder(statements);
}

async function writeAliases(
  tx: Transaction,
  tenant: string,
  steps: readonly StepCommit[],
): Promise<void> {
  // A finished instance holds no key: its business value is free for a new
  // one. That covers every alias the step itself retires; a new instance
  // holds only the ones it just recorded.
  const ended = steps.filter((c) =>
    isTerminal(c.state.status) && (c.owner !== undefined || c.effects.aliasesRecorded.length > 0)
  );
  const retired = steps.filter((c) => !isTerminal(c.state.status)).flatMap((c) =>
    c.effects.aliasesRetired.map((a) => [c.instanceId, a.name, a.value])
  );
  const statements: Promise<unknown>[] = [recordAliases(tx, tenant, steps)];
  if (ended.length > 0) {
    const of = instancesOf(tenant, ended);
    statements.push(tx.query(
      `update aliases set retired_at = now() where ${of.where} and retired_at is null`,
      of.params,
    ));
  }
  if (retired.length > 0) {
    const params: unknown[] = [tenant];
    statements.push(tx.query(
      `update aliases set retired_at = now()
        where tenant = $1 and (instance_id, name, value) in (${valuesList(params, retired)})
          and retired_at is null`,
      params,
    ));
  }
  await inOrder(statements);
}

const RECORD_ALIASES = `insert into aliases (tenant, name, value, instance_id, is_unique)
  select $1, name, value, instance_id, is_unique
  from ${
  jsonRecords("v", { name: "text", value: "text", instance_id: "text", is_unique: "boolean" }, "$2")
}
  on conflict do nothing returning name, value, instance_id`;

/** Records the aliases of `steps`; throws for the first unique one another live instance holds. */
async function recordAliases(
  tx: Transaction,
  tenant: string,
  steps: readonly StepCommit[],
): Promise<void> {
  const recorded = steps.flatMap((c) =>
    c.effects.aliasesRecorded.map((a) => ({
      ...a,
      instanceId: c.instanceId,
    }))
  );
  if (recorded.length === 0) return;
  // `aliases_live` is the table's only unique index, so a row the insert
  // skipped is exactly a unique alias another live row holds (or one an
  // earlier row of the same statement took); naming it this way needs no
  // savepoint round trips around the insert.
  const { rows } = await tx.query<{ name: string; value: string; instance_id: string }>(
    RECORD_ALIASES,
    [
      tenant,
      recorded.map((a) => ({
        name: a.name,
        value: a.value,
        instance_id: a.instanceId,
        is_unique: a.unique,
      })),
    ],
  );
  if (rows.length === recorded.length) return;
  const key = (instanceId: string, name: string, value: string) =>
    [instanceId, name, value].join("\u0000");
  const written = rows.map((r) => key(r.instance_id, r.name, r.value));
  for (const a of recorded) {
    const at = written.indexOf(key(a.instanceId, a.name, a.value));
    if (at < 0) throw new AliasConflictError(a.name, a.value);
    written.splice(at, 1);
  }
}

/** Live instances holding an alias value (correlation). */
export async function instancesByAlias(
  db: Queryable,
  key: { tenant: string; name: string; value: string },
): Promise<string[]> {
  const { rows } = await db.query<{ instance_id: string }>(HOLDERS, [
    key.tenant,
    key.name,
    key.value,
  ]);
  return rows.map((r) => r.instance_id);
}
