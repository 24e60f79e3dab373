/**
 * Boundary events. Message, timer, signal and conditional boundaries are
 * armed while their activity runs (when it first parks); when one fires,
 * an interrupting boundary withdraws the activity and everything under it,
 * a non-interrupting one leaves it running (message and signal boundaries
 * stay armed; a timer cycle re-arms for its next occurrence). Error,
 * escalation, cancel and compensation boundaries are not armed: the step
 * loop finds them when something is thrown.
 *
 * The token placed on the boundary event completes at once and leaves by
 * the boundary's outgoing flows.
 *
 * @module
 */
import type { Behavior, WaitSpec } from "../behavior.ts";
import type { Wait } from "../state.ts";
import { armedSpec, coalesce } from "../_timers.ts";

/** Boundary events of every trigger type. */
export const boundaryEvent: Behavior = {
  activate(x, token) {
    x.complete(token);
  },
  // Called with the activity's token and the boundary's wait.
  trigger(x, activity, wait, message) {
    const proc = x.processOf(activity);
    const boundary = proc.nodes[wait.node];
    const t = x.spawn(x.scope(activity.scope), boundary.index);
    x.bindMessage(t, boundary, message);
    if (boundary.interrupting) {
      x.resolve(wait);
      x.terminate(activity);
      return;
    }
    if (wait.kind === "timer") {
      x.resolve(wait);
      const spec = armedSpec(wait, boundary.trigger!.timer);
      if (spec === undefined) return;
      // Slots the engine missed (it was down, or the cycle starts in the past) are one firing.
      const { slot, next } = coalesce(spec, wait.due!, wait.fired ?? 0, x.now);
      if (next !== undefined) x.arm(activity, { ...specOf(wait), due: next, fired: slot });
    }
  },
};

function specOf(wait: Wait): WaitSpec {
  const spec: WaitSpec = { kind: wait.kind, purpose: wait.purpose, node: wait.node };
  // An expression's cycle travels with its waits, so every occurrence follows the first evaluation.
  if (wait.timer !== undefined) spec.timer = wait.timer;
  return spec;
}
