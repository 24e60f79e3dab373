/**
 * Committing a step: the new snapshot, waits, aliases, outbox rows, audit
 * rows and (for a captured on-persist message) the inbox row, all in one
 * transaction (shared with the steps committing at the same moment, see
 * `group_commit.ts`) — then the caller's answer.
 *
 * A step that touched data stores has a second transaction per store, open
 * since its first read (holding any `forUpdate` row locks). The order is:
 * apply the step's store writes inside those transactions (a conflict or a
 * refused value stops here, with nothing written anywhere; a store that
 * aborts the transaction for contention throws its `TransientStoreError`
 * to the caller, which runs the step again); commit the engine transaction
 * (an alias clash, a full channel or a lost claim rolls the store writes
 * back); then commit the stores. Only a failure of that last commit leaves
 * the two sides apart, and it is reported loudly as
 * `SUTRA.RUNTIME.DATASTORE.COMMIT_FAILED` rather than answered as success
 * — saying whether the step had store writes that are now missing.
 *
 * @module
 */
import type { ExecutionPlan } from "../../bpmn/mod.ts";
import { type Diagnostic, diagnostic, DiagnosticError } from "../../core/diagnostic.ts";
import { isConflict, type StoreMark } from "../../core/datastore.ts";
import { isTransientStoreError, type StepStores } from "../../datastore/mod.ts";
import type { DeliveryOutcome, ReplyRoute } from "../../core/transport.ts";
import { encodeSnapshotText, type StepResult } from "../../executor/mod.ts";
import type { Database, Transaction } from "../../persistence/mod.ts";
import type { ActiveDeployment } from "../deployments/registry.ts";
import {
  AdmissionFullError,
  AliasConflictError,
  ClaimLostError,
  commitsNothing,
  inOrder,
  leavesNoRow,
  type StepCommit,
} from "../instances/repository.ts";
import { type EncodeContext, outboxRows, replyOf } from "./encode.ts";
import { replyRows } from "./reply_route.ts";
import { groupCommitOf } from "./group_commit.ts";
import { offLane } from "./lanes.ts";
import { signalRows } from "../signals/rows.ts";
import { stampOutboxRow, telemetryOf, traced } from "../telemetry/mod.ts";
import { aliasPredictionsOf } from "./alias_predictions.ts";
import type { Capture } from "./inbox.ts";
import { type DedupKey, DuplicateDeliveryError } from "./dedup.ts";
import { errorMessage } from "../../core/errors.ts";
import type { AckHold, DeferredAckRegistry } from "../acks/registry.ts";
import { effectsBeyondLimits } from "./limits.ts";
import type { Protection } from "../audit/mod.ts";
import { encodeAtRest } from "../crypto/mod.ts";
import { coverageOfStep } from "../coverage/mod.ts";
import { newStoreMark, recordRedo, redoRetirerOf } from "../store_redo/mod.ts";

/** The instance a step ran on. */
export interface CommitTarget {
  readonly tenant: string;
  readonly instanceId: string;
  readonly deployment: ActiveDeployment;
  readonly plan: ExecutionPlan;
  readonly processId: string;
  /** The on-persist capture the step consumed. */
  readonly capture?: Capture;
  /** The claim owner of a resumed instance; absent for a new one. */
  readonly owner?: string;
  /** A new instance: its channel and that channel's `maxConcurrentInstances`. */
  readonly admission?: { readonly channel: string; readonly cap?: number };
  /** The message's `dedupKey` identity, recorded with the step. */
  readonly dedup?: DedupKey;
  /** The step's data-store work (from `stepPorts`); a step writing a store needs it. */
  readonly stores?: StepStores;
  /**
   * More engine writes that must commit with the step or not at all (a
   * schedule moving to its next slot). What it throws aborts the commit and
   * reaches the caller.
   */
  readonly also?: (tx: Transaction) => Promise<unknown>;
  /** The deferred acknowledgement of the delivery the step consumed, named before the commit. */
  readonly hold?: AckHold;
  /** Where the step's `q:reply` goes as an outbox row (the delivery's reply-to). */
  readonly replyTo?: ReplyRoute;
  /** The CloudEvents mode the consumed message arrived in (a `match-inbound` reply follows it). */
  readonly inbound?: EncodeContext["inbound"];
}

/** What a commit answers: the step settled, or the commit refused it and wrote nothing. */
export type CommitOutcome = Extract<DeliveryOutcome, { kind: "settled" | "refused" }>;

/** How steps commit: the engine-wide history settings. */
export interface CommitOptions {
  readonly db: Database;
  /** Write each step's audit events (`sutra.audit.sql`); off when absent. */
  readonly auditJournal?: boolean;
  /**
   * The audit sinks (each process's `q:audit` route; replaces `auditJournal`
   * when set) and the keyring that encrypts sensitive variables at rest.
   */
  readonly protection?: Protection;
  /** Delete instances as they complete (`sutra.instance.retention` PT0S); kept when absent. */
  readonly deleteAtCompletion?: boolean;
  /** Told of every instance a commit ends, for the acknowledgements held until then. */
  readonly acks?: DeferredAckRegistry;
  /** The engine clock (a CloudEvent's `time`). */
  readonly clock?: EncodeContext["clock"];
}

/**
 * Commits a step that was not refused and answers the caller. The
 * delivery's hold names the instance before the commit (nothing can end it
 * elsewhere first: its aliases and waits are not written yet) and takes the
 * name back when the commit does not go through.
 */
export async function commitResult(
  o: CommitOptions,
  t: CommitTarget,
  r: StepResult & { refusal?: undefined },
): Promise<CommitOutcome> {
  t.hold?.expect(t.tenant, t.instanceId);
  let outcome: CommitOutcome | undefined;
  try {
    outcome = await traced(
      "sutra.commit",
      { "bpm.instance.id": t.instanceId, "bpm.process.id": t.processId },
      () => commitAndAnswer(o, t, r),
    );
    return outcome;
  } finally {
    if (outcome?.kind !== "settled") t.hold?.forget(t.tenant, t.instanceId);
  }
}

async function commitAndAnswer(
  o: CommitOptions,
  t: CommitTarget,
  r: StepResult & { refusal?: undefined },
): Promise<CommitOutcome> {
  const { state, effects } = r;
  const beyond = effectsBeyondLimits(effects);
  if (beyond) return beyond;
  const mark = t.stores && effects.storeWrites.length > 0 ? newStoreMark() : undefined;
  const unwritable = await applyStoreWrites(t, r, mark);
  if (unwritable) return { kind: "refused", refusal: "failed", diagnostics: [unwritable] };
  // The writes ride in the engine's commit too, for a replay should the stores' commit not happen.
  const redo = mark && t.stores?.redo;
  const redone = redo &&
    ((tx: Transaction) =>
      recordRedo(tx, {
        tenant: t.tenant,
        instanceId: t.instanceId,
        deploymentId: t.deployment.deploymentId,
        mark,
        writes: redo,
      }));
  // With the coverage store on the engine database, the step's marks are statements of its commit.
  const coverage = await coverageOfStep(o.db, { ...t, result: r });
  const at = { ...t, clock: o.clock };
  const works = [t.also, coverage.work, redone].filter((w) => w !== undefined);
  const work = works.length === 0
    ? undefined
    : works.length === 1
    ? works[0]
    : (tx: Transaction) => inOrder(works.map((w) => w(tx)));
  const step = {
    tenant: t.tenant,
    instanceId: t.instanceId,
    deploymentId: t.deployment.deploymentId,
    processId: t.processId,
    state,
    effects,
    outbox: [
      // Stamped with this commit as their trace parent, for the sends to continue.
      ...outboxRows(effects, at).map(stampOutboxRow),
      ...replyRows(t.replyTo, effects, at).map(stampOutboxRow),
      ...signalRows(t.tenant, t.instanceId, effects).map(stampOutboxRow),
    ],
    owner: t.owner,
    admission: t.admission,
    journal: o.protection
      ? o.protection.audit.writesSql(t.plan, t.processId)
      : o.auditJournal === true,
    deleteAtCompletion: o.deleteAtCompletion === true,
  };
  // Sensitive variables are sealed before the commit: a tenant without a data key refuses the
  // step (nothing written) rather than store them in clear.
  let sealed: string | undefined;
  if (o.protection?.keyring && !leavesNoRow(step)) {
    try {
      sealed = await encodeAtRest(t.plan, state, {
        tenant: t.tenant,
        keyring: o.protection.keyring,
      });
    } catch (error) {
      if (error instanceof DiagnosticError) {
        return { kind: "refused", refusal: "failed", diagnostics: error.diagnostics };
      }
      throw error;
    }
  }
  try {
    // A step with nothing to make durable (it ended at once and keeps no history) skips the database.
    if (t.dedup || work || t.capture || !commitsNothing(step)) {
      // A step that erases its instance writes no snapshot: none is rendered for it.
      const snapshot = leavesNoRow(step) ? "" : sealed ?? encodeSnapshotText(t.plan, state);
      const written: StepCommit = { ...step, snapshot };
      // Waiting for the log flush is not running: the lane steps other instances meanwhile,
      // whose commits join this one's group (the instance's own next step still waits).
      await offLane(() =>
        groupCommitOf(o.db).commit({
          step: written,
          ...(t.dedup ? { delivered: { key: t.dedup, instanceId: t.instanceId } } : {}),
          ...(t.capture
            ? {
              captured: {
                tenant: t.capture.tenant,
                channel: t.capture.delivery.channel,
                eventId: t.capture.eventId,
                instanceId: t.instanceId,
              },
            }
            : {}),
          ...(work ? { work } : {}),
        })
      );
    }
  } catch (error) {
    if (error instanceof AliasConflictError) {
      return {
        kind: "refused",
        refusal: "conflict",
        diagnostics: [diagnostic(
          "SUTRA.RUNTIME.ALIAS.DUPLICATE",
          `a live instance already holds ${error.alias}=${error.value}`,
          { attributes: { alias: error.alias, value: error.value } },
        )],
      };
    }
    if (error instanceof AdmissionFullError) {
      return {
        kind: "refused",
        refusal: "overloaded",
        diagnostics: [diagnostic("SUTRA.INBOUND.CONCURRENCY_LIMIT", error.message, {
          attributes: { channel: error.channel, maxConcurrentInstances: error.cap },
        })],
      };
    }
    if (error instanceof DuplicateDeliveryError) {
      return {
        kind: "refused",
        refusal: "conflict",
        diagnostics: [diagnostic("SUTRA.INBOUND.DUPLICATE", error.message, {
          attributes: { channel: error.key.channel, eventId: error.key.eventId },
        })],
      };
    }
    if (error instanceof ClaimLostError) {
      return {
        kind: "refused",
        refusal: "retry",
        diagnostics: [diagnostic("SUTRA.RUNTIME.RESUME.CLAIM_HELD", error.message, {
          attributes: { instanceId: t.instanceId },
        })],
      };
    }
    throw error;
  }
  o.acks?.ended(t.tenant, t.instanceId, state.status);
  telemetryOf(o.db)?.committed({
    tenant: t.tenant,
    instanceId: t.instanceId,
    processId: t.processId,
    owner: t.owner,
    status: state.status,
    failureCode: state.failure?.code,
  });
  o.protection?.audit.committed({
    tenant: t.tenant,
    instanceId: t.instanceId,
    deploymentId: t.deployment.deploymentId,
    processId: t.processId,
    plan: t.plan,
    state,
    events: effects.audit,
  });
  aliasPredictionsOf(o.db).committed(t.tenant, t.instanceId, effects);
  const unfinished = await commitStores(t, r.effects.storeWrites.length);
  if (unfinished) return { kind: "refused", refusal: "failed", diagnostics: [unfinished] };
  if (redone) redoRetirerOf(o.db).retire(mark.redoId);
  // Never throwing: a coverage write after the commit cannot fail the step.
  await coverage.committed();
  const reply = replyOf(effects, at);
  return {
    kind: "settled",
    instances: [{ instanceId: t.instanceId, status: state.status }],
    ...(reply ? { reply } : {}),
  };
}

/**
 * Applies the step's store writes inside the step's store transactions;
 * answers the diagnostic that refuses the step when they cannot all be
 * applied (the caller's release then rolls back what was). A contention
 * abort is thrown instead: the caller runs the step again.
 */
async function applyStoreWrites(
  t: CommitTarget,
  r: StepResult,
  mark: StoreMark | undefined,
): Promise<Diagnostic | undefined> {
  const writes = r.effects.storeWrites;
  if (writes.length === 0) return undefined;
  const attributes = { instanceId: t.instanceId, store: writes[0].store };
  if (!t.stores) {
    // Dropping the writes would lose them silently: refuse the step instead.
    return diagnostic(
      "SUTRA.RUNTIME.DATASTORE.UNAVAILABLE",
      `instance ${t.instanceId} wrote to data store '${writes[0].store}', but the step ran ` +
        "without the deployment's data stores",
      { attributes },
    );
  }
  try {
    await t.stores.apply(writes, mark);
    return undefined;
  } catch (error) {
    if (isConflict(error)) return (error as DiagnosticError).diagnostics[0];
    if (isTransientStoreError(error)) throw error;
    return diagnostic(
      "SUTRA.RUNTIME.DATASTORE.WRITE_FAILED",
      `instance ${t.instanceId}: writing data store '${writes[0].store}' failed, nothing was ` +
        `written: ${reasonOf(error)}`,
      { attributes },
    );
  }
}

/**
 * Commits the step's store transactions after the engine's; a failure here
 * is reported, never hidden, and says what it cost: the step's `writes`
 * store writes, or (with none) nothing but the end of its reads.
 */
async function commitStores(t: CommitTarget, writes: number): Promise<Diagnostic | undefined> {
  if (!t.stores) return undefined;
  try {
    await t.stores.commit();
    return undefined;
  } catch (error) {
    const what = writes > 0
      ? `the step was committed but its ${writes} data-store write(s) were not; they are kept ` +
        "and replayed into the store once it answers (sutra.datastore.redo-after)"
      : "the step was committed; it wrote nothing to its data stores, so nothing there is " +
        "missing, but ending their transaction failed";
    return diagnostic(
      "SUTRA.RUNTIME.DATASTORE.COMMIT_FAILED",
      `instance ${t.instanceId}: ${what}: ${reasonOf(error)}`,
      { attributes: { instanceId: t.instanceId, engineCommitted: true, storeWrites: writes } },
    );
  }
}

function reasonOf(error: unknown): string {
  if (error instanceof DiagnosticError) return error.diagnostics.map((d) => d.message).join("; ");
  return errorMessage(error);
}
