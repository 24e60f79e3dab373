/**
 * The two ways a step runs, shared by every caller (intake, timers, the
 * poison wake, schedules, administrative cancellation):
 *
 * - {@link startInstance}: step a new instance and insert it;
 * - {@link advanceInstance}: claim a live instance, rehydrate it, let the
 *   caller choose the input from its state, step and commit — the claim is
 *   released on every exit that does not commit.
 *
 * Both give the step its data stores and release them on every way out.
 * When a store's database aborts the step's transaction for contention (a
 * deadlock, a serialization failure, a lock wait timeout) nothing was
 * written anywhere, so the step runs again on fresh store transactions —
 * a few times, with a jittered backoff spent off the lane, the instance's
 * claim held throughout — and only then is refused with
 * `SUTRA.RUNTIME.DATASTORE.CONTENDED`.
 *
 * @module
 */
import type { ExecutionPlan } from "../../bpmn/mod.ts";
import type { Clock } from "../../core/clock.ts";
import { type Diagnostic, diagnostic } from "../../core/diagnostic.ts";
import {
  DEFAULT_STORE_RETRY,
  isTransientStoreError,
  retryDelayMs,
  type StoreRetryPolicy,
  type TransientStoreError,
} from "../../datastore/mod.ts";
import { type InstanceState, type StartInput, type StepInput } from "../../executor/mod.ts";
import type { ActiveDeployment, DeploymentRegistry } from "../deployments/registry.ts";
import { type ClaimKey, releaseClaim } from "../instances/repository.ts";
import { claimsOf } from "./claims.ts";
import {
  type CommitOptions,
  type CommitOutcome,
  commitResult,
  type CommitTarget,
} from "./commit.ts";
import { type DeploymentStores, type StepPorts, stepPorts } from "./ports.ts";
import { offLane } from "./lanes.ts";
import { stepOf, telemetryOf } from "../telemetry/mod.ts";
import { errorMessage } from "../../core/errors.ts";
import { decodeAtRest } from "../crypto/mod.ts";

/** What running a step needs. */
export interface StepContext extends CommitOptions {
  readonly clock: Clock;
  /** The deployments' data stores; without them a step can neither read nor write a store. */
  readonly stores?: DeploymentStores;
  /** How a step whose store transaction was aborted for contention runs again (default {@link DEFAULT_STORE_RETRY}). */
  readonly storeRetry?: StoreRetryPolicy;
}

/** What a step of a new instance commits with, beyond the instance itself. */
export type StartCommit = Omit<CommitTarget, "plan" | "stores" | "owner" | "processId">;

/** What a new instance's step came to. */
export type Started =
  /** The executor refused the start input; nothing was written. */
  | { readonly kind: "refused-step"; readonly refusal: Diagnostic }
  /** The commit's answer (settled, or refused by the commit). */
  | { readonly kind: "committed"; readonly outcome: CommitOutcome };

/** Runs a start step on `plan` and inserts the new instance with what it produced. */
export async function startInstance(
  o: StepContext,
  plan: ExecutionPlan,
  input: StartInput & { readonly process: string },
  commit: StartCommit,
): Promise<Started> {
  const ran = await withStoreRetries(o, commit.deployment, async ({ ports, stores }) => {
    const r = await stepOf(o.db)(plan, undefined, input, ports);
    abortIfContended(stores);
    if (r.refusal) return { kind: "refused-step", refusal: r.refusal } as const;
    const outcome = await commitResult(o, {
      ...commit,
      plan,
      processId: input.process,
      stores,
    }, r);
    return { kind: "committed", outcome } as const;
  });
  if ("aborted" in ran) return { kind: "committed", outcome: contended(commit.instanceId, ran) };
  return ran;
}

/** A claimed instance, rehydrated. */
export interface LoadedInstance {
  readonly deployment: ActiveDeployment;
  readonly plan: ExecutionPlan;
  readonly processId: string;
  readonly state: InstanceState;
}

/** The input to step the loaded instance with, or why it is left alone. */
export type Choice = StepInput | { readonly leave: string };

/** What advancing an instance came to. */
export type Advanced =
  /** Claimed elsewhere: retry later. */
  | { readonly kind: "held" }
  /** No such instance, or it has ended, or (`moved`) the alias it was claimed through leads elsewhere now. */
  | { readonly kind: "gone"; readonly why: "missing" | "not-active" | "moved" }
  /** Pinned to a deployment this replica does not serve. */
  | { readonly kind: "unloaded"; readonly deploymentId: string }
  /** The snapshot cannot be read by its plan. */
  | { readonly kind: "undecodable"; readonly diagnostics: readonly Diagnostic[] }
  /** The chooser declined to step it. */
  | { readonly kind: "left"; readonly reason: string }
  /** The executor refused the input; nothing was written. */
  | { readonly kind: "refused-step"; readonly refusal: Diagnostic }
  /** The commit's answer (settled, or refused by the commit). */
  | {
    readonly kind: "committed";
    readonly outcome: CommitOutcome;
    readonly state: InstanceState;
  };

/** The parts of the commit a resumed step adds: the consumed capture, the dedup identity, the delivery's hold. */
export type ResumeCommit = Pick<CommitTarget, "capture" | "dedup" | "hold" | "inbound" | "replyTo">;

/** Options for {@link advanceInstance}. */
export interface AdvanceOptions extends StepContext {
  readonly registry: DeploymentRegistry;
  /** A claim older than this is stale and taken over (`sutra.instance.claim-timeout`). */
  readonly claimTimeoutMs?: number;
}

/**
 * Claims the instance (a held claim is a refusal, never a wait), decodes
 * it, asks `choose` for the input, steps and commits.
 */
export async function advanceInstance(
  o: AdvanceOptions,
  key: ClaimKey,
  choose: (loaded: LoadedInstance) => Choice | Promise<Choice>,
  commit: ResumeCommit = {},
): Promise<Advanced> {
  // Batched with the claims other lanes take at the same moment.
  const claimed = await claimsOf(o.db).claim(key, { staleAfterMs: o.claimTimeoutMs });
  if (claimed === "held") {
    telemetryOf(o.db)?.claimBounced(key.owner);
    return { kind: "held" };
  }
  if (typeof claimed === "string") return { kind: "gone", why: claimed };
  let committed = false;
  try {
    const deployment = o.registry.get(claimed.deploymentId);
    const plan = deployment?.plans.get(claimed.processId);
    if (!deployment || !plan) return { kind: "unloaded", deploymentId: claimed.deploymentId };
    const decoded = await decodeAtRest(plan, claimed.snapshot, {
      tenant: key.tenant,
      keyring: o.protection?.keyring,
    });
    if (decoded.diagnostics) return { kind: "undecodable", diagnostics: decoded.diagnostics };
    const loaded = { deployment, plan, processId: claimed.processId, state: decoded.state };
    const input = await choose(loaded);
    if ("leave" in input) return { kind: "left", reason: input.leave };
    const ran = await withStoreRetries(o, deployment, async ({ ports, stores }) => {
      // The executor steps a copy of the state, so every run starts from the same one.
      const r = await stepOf(o.db)(plan, decoded.state, input, ports);
      abortIfContended(stores);
      if (r.refusal) return { kind: "refused-step", refusal: r.refusal } as const;
      const outcome = await commitResult(o, {
        ...commit,
        tenant: key.tenant,
        instanceId: key.instanceId,
        deployment,
        plan,
        processId: claimed.processId,
        owner: key.owner,
        stores,
      }, r);
      committed = outcome.kind === "settled";
      return { kind: "committed", outcome, state: r.state } as const;
    });
    if ("aborted" in ran) {
      return {
        kind: "committed",
        outcome: contended(key.instanceId, ran),
        state: decoded.state,
      };
    }
    return ran;
  } finally {
    if (!committed) await releaseClaim(o.db, key);
  }
}

/** Every run aborted by a store: the last abort, and how many runs there were. */
interface Contended {
  readonly aborted: TransientStoreError;
  readonly attempts: number;
}

/**
 * Runs `run` with fresh ports (and fresh store transactions) until no
 * store aborts it for contention, at most `storeRetry.attempts` times,
 * releasing each run's store work on the way out. An aborted run is one
 * that threw a {@link TransientStoreError} before anything was committed
 * (see {@link abortIfContended}; the commit rethrows one met while
 * applying the store writes).
 */
async function withStoreRetries<T>(
  o: StepContext,
  deployment: ActiveDeployment,
  run: (ports: StepPorts) => Promise<T>,
): Promise<T | Contended> {
  const policy = o.storeRetry ?? DEFAULT_STORE_RETRY;
  for (let attempt = 1;; attempt++) {
    const ports = stepPorts(deployment, o.clock, o.stores);
    try {
      return await run(ports);
    } catch (error) {
      if (!isTransientStoreError(error)) throw error;
      if (attempt >= policy.attempts) return { aborted: error, attempts: attempt };
    } finally {
      await ports.release();
    }
    // Waiting is not running: the lane serves other instances meanwhile.
    await offLane(() => delay(retryDelayMs(policy, attempt)));
  }
}

/** Ends the run when a store aborted one of the step's reads: its result cannot stand. */
function abortIfContended(stores: StepPorts["stores"]): void {
  if (stores?.transient) throw stores.transient;
}

/** The refusal of a step every run of which a store aborted: nothing was written. */
function contended(instanceId: string, c: Contended): CommitOutcome {
  return {
    kind: "refused",
    refusal: "retry",
    diagnostics: [diagnostic(
      "SUTRA.RUNTIME.DATASTORE.CONTENDED",
      `instance ${instanceId}: nothing was written: data store '${c.aborted.store}' aborted ` +
        `the step's transaction on each of ${c.attempts} attempt(s), the last time for a ` +
        `${c.aborted.reason}: ${errorMessage(c.aborted.cause)}`,
      {
        attributes: {
          instanceId,
          store: c.aborted.store,
          reason: c.aborted.reason,
          attempts: c.attempts,
        },
      },
    )],
  };
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
