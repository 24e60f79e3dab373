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
 *
 * @module
 */
import type { ExecutionPlan } from "../../bpmn/mod.ts";
import type { Clock } from "../../core/clock.ts";
import type { Diagnostic } from "../../core/diagnostic.ts";
import {
  decodeSnapshot,
  type InstanceState,
  type StartInput,
  step,
  type StepInput,
} from "../../executor/mod.ts";
import type { ActiveDeployment, DeploymentRegistry } from "../deployments/registry.ts";
import { claimInstance, type ClaimKey, releaseClaim } from "../instances/repository.ts";
import {
  type CommitOptions,
  type CommitOutcome,
  commitResult,
  type CommitTarget,
} from "./commit.ts";
import { type DeploymentStores, stepPorts } from "./ports.ts";

/** What running a step needs. */
export interface StepContext extends CommitOptions {
  readonly clock: Clock;
  /** The deployments' data stores; without them a step can neither read nor write a store. */
  readonly stores?: DeploymentStores;
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
  const { ports, stores, release } = stepPorts(commit.deployment, o.clock, o.stores);
  try {
    const r = await step(plan, undefined, input, ports);
    if (r.refusal) return { kind: "refused-step", refusal: r.refusal };
    const outcome = await commitResult(o, {
      ...commit,
      plan,
      processId: input.process,
      stores,
    }, r);
    return { kind: "committed", outcome };
  } finally {
    await release();
  }
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
export type ResumeCommit = Pick<CommitTarget, "capture" | "dedup" | "hold" | "inbound">;

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
  const claimed = await claimInstance(o.db, key, { staleAfterMs: o.claimTimeoutMs });
  if (claimed === "held") return { kind: "held" };
  if (typeof claimed === "string") return { kind: "gone", why: claimed };
  let committed = false;
  try {
    const deployment = o.registry.get(claimed.deploymentId);
    const plan = deployment?.plans.get(claimed.processId);
    if (!deployment || !plan) return { kind: "unloaded", deploymentId: claimed.deploymentId };
    const decoded = decodeSnapshot(plan, claimed.snapshot);
    if (decoded.diagnostics) return { kind: "undecodable", diagnostics: decoded.diagnostics };
    const loaded = { deployment, plan, processId: claimed.processId, state: decoded.state };
    const input = await choose(loaded);
    if ("leave" in input) return { kind: "left", reason: input.leave };
    const { ports, stores, release } = stepPorts(deployment, o.clock, o.stores);
    try {
      const r = await step(plan, decoded.state, input, ports);
      if (r.refusal) return { kind: "refused-step", refusal: r.refusal };
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
      return { kind: "committed", outcome, state: r.state };
    } finally {
      await release();
    }
  } finally {
    if (!committed) await releaseClaim(o.db, key);
  }
}
