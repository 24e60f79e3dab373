/**
 * Committing a step: the new snapshot, waits, aliases, outbox rows, audit
 * rows and (for a captured on-persist message) the inbox row, all in one
 * transaction — then the caller's answer.
 *
 * @module
 */
import type { ExecutionPlan } from "../../bpmn/mod.ts";
import { diagnostic } from "../../core/diagnostic.ts";
import type { DeliveryOutcome } from "../../core/transport.ts";
import { encodeSnapshot, type StepResult } from "../../executor/mod.ts";
import type { Database } from "../../persistence/mod.ts";
import type { ActiveDeployment } from "../deployments/registry.ts";
import {
  AdmissionFullError,
  AliasConflictError,
  ClaimLostError,
  commitStep,
  inOrder,
} from "../instances/repository.ts";
import { outboxRows, replyOf } from "./encode.ts";
import { type Capture, markCaptured } from "./inbox.ts";
import { type DedupKey, DuplicateDeliveryError, recordDelivery } from "./dedup.ts";

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
}

/** Commits a step that was not refused and answers the caller. */
export async function commitResult(
  o: { readonly db: Database },
  t: CommitTarget,
  r: StepResult & { refusal?: undefined },
): Promise<DeliveryOutcome> {
  const { state, effects } = r;
  const snapshot = encodeSnapshot(t.plan, state);
  const outbox = outboxRows(t.deployment, effects);
  try {
    await o.db.transaction((tx) =>
      inOrder([
        commitStep(tx, {
          tenant: t.tenant,
          instanceId: t.instanceId,
          deploymentId: t.deployment.deploymentId,
          processId: t.processId,
          state,
          snapshot,
          effects,
          outbox,
          owner: t.owner,
          admission: t.admission,
        }),
        t.dedup && recordDelivery(tx, t.dedup, t.instanceId),
        t.capture && markCaptured(tx, {
          tenant: t.capture.tenant,
          eventId: t.capture.eventId,
          channel: t.capture.delivery.channel,
          instanceId: t.instanceId,
        }),
      ].filter((q) => q !== undefined))
    );
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
  const reply = replyOf(effects);
  return {
    kind: "settled",
    instances: [{ instanceId: t.instanceId, status: state.status }],
    ...(reply ? { reply } : {}),
  };
}
