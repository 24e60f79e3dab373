/**
 * How an administrative change reads and rewrites one instance: inside one
 * transaction, with the instance row locked, and only while no lane or
 * replica holds the instance's claim.
 *
 * The row lock is what makes the change safe without a claim of its own: a
 * step that wants to claim the instance meanwhile waits for this
 * transaction and then claims the rewritten row, so it resumes from the
 * changed state; a step already holding the claim makes the change refuse
 * (retry-safe, nothing written) instead of racing its commit.
 *
 * @module
 */
import { decodeSnapshot, type InstanceState } from "../../executor/mod.ts";
import { encodeAtRest, type Keyring, openSnapshot } from "../crypto/mod.ts";
import { DiagnosticError } from "../../core/diagnostic.ts";
import type { ExecutionPlan } from "../../bpmn/mod.ts";
import type { Database, Transaction } from "../../persistence/mod.ts";
import { rowStatus } from "./repository.ts";
import {
  SNAPSHOT_COLUMN,
  snapshotFromColumn,
  snapshotFromParts,
  snapshotParts,
} from "./snapshot_column.ts";
import type { Diagnostic } from "../../core/diagnostic.ts";

/** The locked row. */
export interface LockedRow {
  readonly tenant: string;
  readonly instanceId: string;
  readonly deploymentId: string;
  readonly processId: string;
  /** The row status (RUNNING for every live instance). */
  readonly status: string;
  /** The snapshot as stored; {@link openRow} opens its encrypted variables. */
  readonly snapshot: string | Uint8Array;
  /** Why the encrypted variables could not be opened (the snapshot is then still sealed). */
  readonly unreadable?: readonly Diagnostic[];
}

/**
 * The row with its snapshot's encrypted variables opened under the tenant's
 * key; when they cannot be, the row says why in `unreadable` and
 * {@link decodeRow} answers that instead of a state.
 */
export async function openRow(row: LockedRow, keyring?: Keyring): Promise<LockedRow> {
  try {
    return { ...row, snapshot: await openSnapshot(row.snapshot, { tenant: row.tenant, keyring }) };
  } catch (error) {
    if (error instanceof DiagnosticError) return { ...row, unreadable: error.diagnostics };
    throw error;
  }
}

/** Why the row was not handed over. */
export type LockRefusal = "missing" | "held";

/** The instance columns a {@link LockedRow} is read from, as selected by {@link INSTANCE_ROW_SELECT}. */
export interface InstanceRowColumns {
  readonly tenant: string;
  readonly deployment_id: string;
  readonly process_id: string;
  readonly status: string;
  readonly snapshot: string;
}

/** The select list of {@link InstanceRowColumns}. */
export const INSTANCE_ROW_SELECT = `tenant, deployment_id, process_id, status, ${SNAPSHOT_COLUMN}`;

/** The row of `instanceId` as read, its snapshot still sealed. */
export function lockedRowOf(instanceId: string, r: InstanceRowColumns): LockedRow {
  return {
    tenant: r.tenant,
    instanceId,
    deploymentId: r.deployment_id,
    processId: r.process_id,
    status: r.status,
    snapshot: snapshotFromColumn(r.snapshot),
  };
}

/**
 * Runs `change` on the locked row of `instanceId` in one transaction; what
 * it returns is the answer, and a throw rolls everything back. The row is
 * not handed over when it does not exist or another owner holds its claim.
 */
export async function withLockedInstance<T>(
  db: Database,
  instanceId: string,
  change: (tx: Transaction, row: LockedRow) => Promise<T>,
): Promise<T | LockRefusal> {
  return await db.transaction(async (tx) => {
    const { rows } = await tx.query<InstanceRowColumns & { owner: string | null }>(
      `select ${INSTANCE_ROW_SELECT}, owner
         from instances where instance_id = $1 order by tenant limit 1 for update`,
      [instanceId],
    );
    if (rows.length === 0) return "missing" as const;
    const r = rows[0];
    if (r.owner !== null) return "held" as const;
    return await change(tx, lockedRowOf(instanceId, r));
  });
}

/** Decodes the locked row's snapshot against `plan`, or the decoder's diagnostics. */
export function decodeRow(
  plan: ExecutionPlan,
  row: LockedRow,
): InstanceState | readonly Diagnostic[] {
  if (row.unreadable) return row.unreadable;
  const decoded = decodeSnapshot(plan, row.snapshot);
  return decoded.diagnostics ?? decoded.state;
}

/** Where a rewritten row lands: its pin may change with it (migration). */
export interface RowTarget {
  readonly deploymentId: string;
  readonly processId: string;
}

/**
 * Writes `state` (encoded against `plan`) back into the locked row, with
 * its status and failure columns derived from the state, and moves the pin
 * to `target` when one is given.
 */
export async function writeState(
  tx: Transaction,
  row: LockedRow,
  plan: ExecutionPlan,
  state: InstanceState,
  options: { readonly target?: RowTarget; readonly keyring?: Keyring } = {},
): Promise<void> {
  const target = options.target ?? row;
  // Sensitive variables are sealed again; a tenant without a key throws (nothing is written).
  const parts = snapshotParts(
    await encodeAtRest(plan, state, { tenant: row.tenant, keyring: options.keyring }),
  );
  const failed = state.status === "FAILED";
  await tx.query(
    `update instances set snapshot = ${snapshotFromParts("$3", "$4")}, status = $5,
        failure_code = $6, failure_detail = $7, failure_node = $8,
        deployment_id = $9, process_id = $10, updated_at = now(),
        ended_at = case when $5 in ('RUNNING', 'SUSPENDED') then null else ended_at end
      where instance_id = $1 and tenant = $2`,
    [
      row.instanceId,
      row.tenant,
      parts.text,
      parts.hex,
      rowStatus(state),
      failed ? state.failure?.code ?? null : null,
      failed ? state.failure?.message.toWellFormed() ?? null : null,
      failed ? state.failure?.node ?? null : null,
      target.deploymentId,
      target.processId,
    ],
  );
}

/**
 * Appends one administrative event to the instance's audit journal (when
 * the journal is on) and advances the state's audit sequence, so the
 * executor's next event follows it.
 */
export async function auditAdminEvent(
  tx: Transaction,
  row: LockedRow,
  state: InstanceState,
  event: {
    readonly type: string;
    readonly journal: boolean;
    readonly node?: string;
    readonly data: Readonly<Record<string, unknown>>;
  },
): Promise<void> {
  state.auditSeq += 1;
  if (!event.journal) return;
  await tx.query(
    `insert into audit_events (tenant, instance_id, seq, event_type, node_id, at, data)
     values ($1, $2, $3, $4, $5, now(), $6)`,
    [row.tenant, row.instanceId, state.auditSeq, event.type, event.node ?? null, {
      ...event.data,
      by: "admin",
    }],
  );
}
