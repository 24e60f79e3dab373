/**
 * Event sub-processes. While a scope instance (a process, sub-process,
 * transaction or called process) runs, the event sub-processes drawn in it
 * can start: message, timer, signal and conditional starts are armed as
 * waits when the scope opens; error, escalation and compensation starts
 * are found when something is thrown inside the scope.
 *
 * An interrupting start ends everything else in the scope (and disarms its
 * other event sub-processes) before the event sub-process runs; when that
 * run ends the scope completes. A non-interrupting start runs alongside
 * the scope, may start again (message and signal starts stay armed, a
 * timer cycle re-arms) while the scope's own flow runs, and the scope
 * completes only when its runs are done too; meanwhile its starts are
 * disarmed (the machine's `#completing`). Each run has its own variables, where the trigger's payload
 * (or `error` / `escalation` details) is bound.
 *
 * @module
 */
import type { PlanNode } from "../../bpmn/mod.ts";
import type { EventSubProcessTrigger, Execution } from "../behavior.ts";
import type { ScopeInstance } from "../state.ts";
import { toFeel, visible } from "../variables.ts";
import { FeelContext } from "../../../lang/feel/mod.ts";
import { armedSpec, coalesce } from "../_timers.ts";

/** Scope kinds whose plan scope draws event sub-processes (loop bodies do not). */
function hasBody(scope: ScopeInstance): boolean {
  return scope.kind !== "multiInstance" && scope.kind !== "instance" && scope.kind !== "loop" &&
    scope.kind !== "compensation";
}

/** Arms the awaited starts of the event sub-processes of a scope instance that just opened. */
export function armEventSubProcesses(x: Execution, scope: ScopeInstance): void {
  if (!hasBody(scope)) return;
  const proc = x.process(scope.process);
  for (const t of proc.scopes[scope.planScope].eventSubProcesses) {
    const start = proc.nodes[t.start];
    const spec = x.triggerWait(
      start,
      "eventSubProcess",
      () => new FeelContext(visible(x.state, scope)),
    );
    if (spec) x.arm(undefined, { ...spec, scope: scope.id });
  }
}

/**
 * The start event of an event sub-process of `scope` that catches a thrown
 * error or escalation `code` (an exact code wins over a catch-all start).
 */
export function findEventSubProcess(
  x: Execution,
  scope: ScopeInstance,
  type: "error" | "escalation",
  code: string | undefined,
): PlanNode | undefined {
  if (!hasBody(scope)) return undefined;
  const proc = x.process(scope.process);
  let catchAll: PlanNode | undefined;
  for (const t of proc.scopes[scope.planScope].eventSubProcesses) {
    const start = proc.nodes[t.start];
    if (start.trigger?.type !== type) continue;
    const expected = type === "error" ? start.trigger.errorCode : start.trigger.escalationCode;
    if (expected === undefined) catchAll ??= start;
    else if (expected === code) return start;
  }
  return catchAll;
}

/** Starts a run of the event sub-process whose start is `start`, in `scope`. */
export function startEventSubProcess(
  x: Execution,
  scope: ScopeInstance,
  start: PlanNode,
  trigger: EventSubProcessTrigger,
): void {
  const interrupting = start.interrupting;
  const wait = trigger.wait;
  if (wait) {
    if (interrupting || wait.kind === "timer") x.resolve(wait);
    const spec = wait.kind === "timer" ? armedSpec(wait, start.trigger!.timer) : undefined;
    if (!interrupting && spec !== undefined) {
      // Slots the engine missed (it was down, or the cycle starts in the past) are one firing.
      const { slot, next } = coalesce(spec, wait.due!, wait.fired ?? 0, x.now);
      if (next !== undefined) {
        x.arm(undefined, {
          kind: "timer",
          purpose: "eventSubProcess",
          node: start.index,
          scope: scope.id,
          due: next,
          fired: slot,
          // An expression's cycle keeps the value it gave when the scope started.
          ...(wait.timer === undefined ? {} : { timer: wait.timer }),
        });
      }
    }
  }
  if (interrupting) {
    for (const w of [...x.state.waits.values()]) if (w.scope === scope.id) x.resolve(w);
    x.clear(scope);
  }
  const vars = trigger.vars ?? new Map();
  if (trigger.message) {
    vars.set(start.subscription?.variable ?? "payload", toFeel(trigger.message.payload));
  }
  const run = x.openScope({
    kind: "eventSubProcess",
    process: scope.process,
    planScope: start.scope,
    parent: scope,
    interrupting,
    vars,
    counted: true,
  });
  x.spawn(run, start.index);
}
