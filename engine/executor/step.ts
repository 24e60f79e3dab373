/**
 * The step API: `step(plan, state, input, ports) → {state, effects}`. One
 * call takes an instance from one quiescent point to the next — completed,
 * failed, or parked on waits — and returns the new state with everything
 * the runtime must commit alongside it. The caller's state is never
 * changed, and nothing is thrown: a failure inside the flow gives a FAILED
 * state carrying a `SUTRA.*` code and the node; an input that does not
 * apply (an unknown wait, a finished instance) is refused with the state
 * unchanged and no effects.
 *
 * @module
 */
import type { ExecutionPlan, PlanNode, ProcessPlan } from "../bpmn/mod.ts";
import { type Diagnostic, diagnostic } from "../core/mod.ts";
import type { Effects } from "./effects.ts";
import { NO_EFFECTS } from "./effects.ts";
import type { StartInput, StepInput } from "./input.ts";
import type { ExecutionListener } from "./listeners.ts";
import { Machine } from "./machine.ts";
import type { Ports } from "./ports.ts";
import { cloneState, emptyState, type InstanceState, isTerminal } from "./state.ts";
import { toFeel } from "./variables.ts";
import { behaviorOf } from "./behaviors/mod.ts";
import { ExecutorCode, StepFailure } from "./_failure.ts";
import { errorMessage } from "../core/errors.ts";

/** The outcome of one step: the new state and its effects, or a refusal. */
export type StepResult =
  | {
    readonly state: InstanceState;
    readonly effects: Effects;
    readonly refusal?: undefined;
  }
  | {
    /** The given state, unchanged (undefined for a refused start). */
    readonly state: InstanceState | undefined;
    /** Always empty. */
    readonly effects: Effects;
    /** Why the input was refused. */
    readonly refusal: Diagnostic;
  };

/** Options for {@link createExecutor}. */
export interface ExecutorOptions {
  /** Lifecycle observers, called synchronously in this order. */
  readonly listeners?: readonly ExecutionListener[];
}

/** An executor with its listeners fixed. */
export interface Executor {
  /** Runs one step; see {@link step}. */
  step(
    plan: ExecutionPlan,
    state: InstanceState | undefined,
    input: StepInput,
    ports: Ports,
  ): Promise<StepResult>;
}

/** Creates an executor whose steps notify `options.listeners`. */
export function createExecutor(options: ExecutorOptions = {}): Executor {
  const listeners = options.listeners ?? [];
  return { step: (plan, state, input, ports) => runStep(plan, state, input, ports, listeners) };
}

/**
 * Runs one step without listeners. `state` is undefined for a start input
 * and the instance's current state for every other input.
 */
export function step(
  plan: ExecutionPlan,
  state: InstanceState | undefined,
  input: StepInput,
  ports: Ports,
): Promise<StepResult> {
  return runStep(plan, state, input, ports, []);
}

async function runStep(
  plan: ExecutionPlan,
  state: InstanceState | undefined,
  input: StepInput,
  ports: Ports,
  listeners: readonly ExecutionListener[],
): Promise<StepResult> {
  try {
    return await guardedStep(plan, state, input, ports, listeners);
  } catch (e) {
    // Only a defect gets here (a port or the executor itself throwing
    // outside a flow's reach): contain it to this instance.
    if (state) return unexpected(plan, ports, state, undefined, e);
    const start = input as StartInput;
    const process = start.process ?? plan.processes[0]?.id ?? "";
    return unexpected(plan, ports, emptyState(start.instanceId ?? "", process), undefined, e);
  }
}

async function guardedStep(
  plan: ExecutionPlan,
  state: InstanceState | undefined,
  input: StepInput,
  ports: Ports,
  listeners: readonly ExecutionListener[],
): Promise<StepResult> {
  if (input.type === "start") {
    if (state !== undefined) {
      return refuse(
        state,
        ExecutorCode.START_INVALID,
        "a start input creates a new instance; pass no state",
      );
    }
    const target = startTarget(plan, input);
    if (typeof target === "string") return refuse(undefined, ExecutorCode.START_INVALID, target);
    const m = new Machine(plan, emptyState(input.instanceId, target.process.id), ports, listeners);
    return await drive(m, undefined, () => begin(m, target, input));
  }
  if (state === undefined) {
    return refuse(
      undefined,
      ExecutorCode.NOT_ACTIVE,
      `a ${input.type} input needs the instance state`,
    );
  }
  if (isTerminal(state.status)) {
    return refuse(
      state,
      ExecutorCode.NOT_ACTIVE,
      `instance ${state.instanceId} is ${state.status}`,
    );
  }
  const refusal = check(state, input);
  if (refusal) return refuse(state, refusal.code, refusal.message);
  const working = cloneState(state);
  working.status = "RUNNING";
  const m = new Machine(plan, working, ports, listeners);
  m.journal.lifecycle("onInstanceResumed", "instance.resumed");
  return await drive(m, state, () => accept(m, input));
}

interface StartTarget {
  readonly process: ProcessPlan;
  readonly node: PlanNode;
}

function startTarget(plan: ExecutionPlan, input: StartInput): StartTarget | string {
  const process = input.process !== undefined
    ? plan.processById.get(input.process)
    : plan.processes.length === 1
    ? plan.processes[0]
    : undefined;
  if (!process) {
    return input.process === undefined
      ? "the plan has several processes; name one"
      : `the plan has no process '${input.process}'`;
  }
  const entries = process.scopes[0].entries.map((i) => process.nodes[i]);
  if (input.node !== undefined) {
    const node = entries.find((n) => n.id === input.node);
    return node
      ? { process, node }
      : `'${input.node}' is not a start event of process '${process.id}'`;
  }
  const none = entries.filter((n) => (n.trigger?.type ?? "none") === "none" && !n.subscription);
  if (none.length === 1) return { process, node: none[0] };
  if (entries.length === 1) return { process, node: entries[0] };
  return `process '${process.id}' has no single none start event; name the routed start node`;
}

function begin(m: Machine, target: StartTarget, input: StartInput): void {
  const vars = new Map();
  for (const [k, v] of Object.entries(input.variables ?? {})) vars.set(k, toFeel(v));
  if (input.message) {
    vars.set(target.node.subscription?.variable ?? "payload", toFeel(input.message.payload));
    m.inbound(target.node, target.process.id, input.message);
  }
  m.state.startNode = target.node.id;
  const root = m.openScope({ kind: "process", process: target.process.id, planScope: 0, vars });
  m.journal.lifecycle("onInstanceStarted", "instance.started");
  const token = m.spawn(root, target.node.index);
  if (input.raise) {
    m.current = token;
    m.throwError(token, input.raise.code, input.raise.message ?? input.raise.code);
  }
}

// Refusals are decided on the untouched state, before anything runs.
function check(
  state: InstanceState,
  input: StepInput,
): { code: string; message: string } | undefined {
  switch (input.type) {
    case "message":
    case "timer":
    case "error":
    case "failure": {
      const wait = state.waits.get(input.wait);
      const kind = input.type === "timer"
        ? "timer"
        : input.type === "message"
        ? "message"
        : undefined;
      if (
        !wait || (kind !== undefined && wait.kind !== kind) ||
        (kind === undefined && wait.token === undefined)
      ) {
        return {
          code: ExecutorCode.WAIT_UNKNOWN,
          message: `instance ${state.instanceId} holds no ${kind ?? "task"} wait ${input.wait}`,
        };
      }
      const token = wait.token === undefined ? undefined : state.tokens.get(wait.token);
      if (input.type === "message" && wait.purpose === "response" && token?.state === "backoff") {
        return {
          code: ExecutorCode.RETRY_PENDING,
          message:
            `the call at wait ${input.wait} is backing off before its next attempt; this response belongs to a withdrawn request`,
        };
      }
      return undefined;
    }
    case "signal":
      for (const w of state.waits.values()) {
        if (w.kind === "signal" && w.signal === input.name) return undefined;
      }
      return {
        code: ExecutorCode.WAIT_UNKNOWN,
        message: `instance ${state.instanceId} does not wait for signal '${input.name}'`,
      };
    default:
      return undefined;
  }
}

function accept(m: Machine, input: Exclude<StepInput, StartInput>): void | Promise<void> {
  switch (input.type) {
    case "message":
      return m.deliver(m.state.waits.get(input.wait)!, input.message);
    case "timer":
      return m.deliver(m.state.waits.get(input.wait)!, undefined);
    case "signal":
      m.broadcast(input.name);
      return;
    case "cancel":
      m.cancel();
      return;
    case "error": {
      const token = m.state.tokens.get(m.state.waits.get(input.wait)!.token!)!;
      m.current = token;
      m.resolveOwn(token);
      m.throwError(token, input.code, input.message ?? input.code);
      return;
    }
    case "failure": {
      const token = m.state.tokens.get(m.state.waits.get(input.wait)!.token!)!;
      m.current = token;
      const behavior = behaviorOf(m.nodeOf(token), token);
      const message = input.message ?? input.code;
      if (behavior.fail) behavior.fail(m, token, input.code, message);
      else m.failAttempt(token, input.code, message);
      return;
    }
  }
}

async function drive(
  m: Machine,
  original: InstanceState | undefined,
  first: () => void | Promise<void>,
): Promise<StepResult> {
  try {
    const r = first();
    if (r !== undefined) await r;
    await m.run();
    m.settleStatus();
  } catch (e) {
    if (!(e instanceof StepFailure)) {
      const base = original ?? emptyState(m.state.instanceId, m.state.process);
      return unexpected(m.plan, m.ports, base, currentNode(m), e);
    }
    m.failed(e);
  }
  m.flushWrites();
  return { state: m.state, effects: m.effects.build() };
}

function currentNode(m: Machine): string | undefined {
  try {
    return m.current ? m.nodeOf(m.current).id : undefined;
  } catch {
    return undefined;
  }
}

// A defect inside the executor: the instance fails from the state it had
// before this step, so nothing half-done is kept.
function unexpected(
  plan: ExecutionPlan,
  ports: Ports,
  base: InstanceState,
  node: string | undefined,
  e: unknown,
): StepResult {
  let now = 0;
  try {
    now = ports.clock.now();
  } catch {
    // The clock itself is what failed; the failure is stamped at the epoch.
  }
  const fresh = new Machine(plan, cloneState(base), { ...ports, clock: { now: () => now } }, []);
  fresh.failed(
    new StepFailure(
      ExecutorCode.UNEXPECTED,
      `the executor failed: ${errorMessage(e)}`,
      node,
    ),
  );
  return { state: fresh.state, effects: fresh.effects.build() };
}

function refuse(state: InstanceState | undefined, code: string, message: string): StepResult {
  return { state, effects: NO_EFFECTS, refusal: diagnostic(code, message) };
}
