/**
 * When timers come due. All instants are epoch milliseconds and derive from
 * the step's single clock reading, so a step is reproducible.
 *
 * A timer written as a FEEL expression is resolved to a spec when it is
 * armed ({@link evaluateTimer}); a cycle keeps that spec in its wait, and
 * every later occurrence is computed from it ({@link armedSpec}), never
 * from a new evaluation.
 *
 * @module
 */
import { type EvaluateOptions, type FeelContext, formatFeel } from "../../lang/feel/mod.ts";
import type { PlanTimerExpression, TimerSpec } from "../bpmn/mod.ts";
import { timerFromValue } from "../bpmn/mod.ts";
import { ExecutorCode } from "./_failure.ts";
import type { Wait } from "./state.ts";

/** What evaluating a timer expression gave: a spec, or why the timer cannot be armed. */
export type TimerEvaluation =
  | { readonly ok: true; readonly spec: TimerSpec }
  | {
    readonly ok: false;
    readonly code: string;
    readonly message: string;
    readonly attributes: Record<string, string | number>;
  };

/**
 * Evaluates the timer expression of node `node` in `context` and reads the
 * value as its form. An evaluation error is `SUTRA.RUNTIME.EXPRESSION.FAILED`,
 * as for every other expression; a value that is no usable timer (null,
 * another type, malformed or unsupported text, a negative duration) is
 * `SUTRA.RUNTIME.TIMER.INVALID`.
 */
export function evaluateTimer(
  timer: PlanTimerExpression,
  context: FeelContext,
  options: EvaluateOptions & { readonly node: string },
): TimerEvaluation {
  const { expression, form } = timer;
  const where = `${form} of '${options.node}'`;
  const base = {
    node: options.node,
    form,
    expression: expression.text,
    line: expression.line,
  };
  const r = expression.compiled.evaluate(context, options);
  if (r.diagnostics !== undefined) {
    return {
      ok: false,
      code: ExecutorCode.EXPRESSION,
      message: `expression '${expression.text}' (line ${expression.line}) of the ${where} failed: ${
        r.diagnostics.map((d) => d.message).join("; ")
      }`,
      attributes: base,
    };
  }
  const parsed = timerFromValue(form, r.value);
  if (parsed.ok) return parsed;
  const value = formatFeel(r.value);
  const why = r.value === null && r.warnings.length > 0 ? ` (${r.warnings.join("; ")})` : "";
  return {
    ok: false,
    code: ExecutorCode.TIMER_INVALID,
    message:
      `the ${where} cannot be armed: expression '${expression.text}' (line ${expression.line}) ` +
      `gave ${value}${why}; ${parsed.reason}`,
    attributes: { ...base, value, refusal: parsed.refusal },
  };
}

/**
 * The spec a timer wait's later occurrences follow: the one resolved when a
 * timer expression armed it, else the plan's literal spec (waits armed from
 * literal text, and those of snapshots written before waits kept a spec).
 */
export function armedSpec(wait: Wait, literal: TimerSpec | undefined): TimerSpec | undefined {
  return wait.timer ?? literal;
}

/** The first due instant of a timer armed at `now`. */
export function firstDue(spec: TimerSpec, now: number): number {
  switch (spec.kind) {
    case "duration":
      return now + spec.millis;
    case "date":
      return spec.epochMillis;
    case "cycle":
      return spec.startEpochMillis ?? now + spec.intervalMillis;
  }
}

/**
 * The next occurrence of a cycle after the one due at `due` (the
 * `fired`-th), or undefined when the cycle is spent. Non-cycles never
 * repeat. Occurrences keep to the cycle's own grid, so a late firing does
 * not shift later ones.
 */
export function nextDue(spec: TimerSpec, due: number, fired: number): number | undefined {
  if (spec.kind !== "cycle") return undefined;
  if (spec.repetitions !== null && fired >= spec.repetitions) return undefined;
  const next = due + spec.intervalMillis;
  if (spec.endEpochMillis !== undefined && next > spec.endEpochMillis) return undefined;
  return next;
}

/** The slot a fire at `now` stands for, and the next one after it. */
export interface Coalesced {
  /** Grid index (1-based) of the slot fired: every slot up to it is spent. */
  readonly slot: number;
  /** The next slot's due instant; undefined when the grid is spent. */
  readonly next?: number;
}

/**
 * Coalesces the slots due by `now`, starting at the slot due at `due`
 * (grid index `slots + 1`): one fire covers all of them, and the next due
 * instant is the first slot after `now`.
 */
export function coalesce(spec: TimerSpec, due: number, slots: number, now: number): Coalesced {
  let at = due;
  let slot = slots + 1;
  for (;;) {
    const next = nextDue(spec, at, slot);
    if (next === undefined || next > now) return next === undefined ? { slot } : { slot, next };
    at = next;
    slot++;
  }
}
