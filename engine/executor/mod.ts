/**
 * engine/executor: the token executor. It runs a compiled BPMN plan over an
 * explicit instance state, one step at a time, with no I/O of its own:
 * the clock, data stores, registered tasks, decisions and templates come
 * in as ports, and everything the runtime must do comes out as effects.
 *
 * ```ts
 * import { step } from "./mod.ts";
 * import { ManualClock } from "../core/mod.ts";
 *
 * const clock = new ManualClock("2026-01-01T00:00:00Z");
 * const r = await step(plan, undefined, {
 *   type: "start",
 *   instanceId: "i-1",
 *   variables: { amount: 150 },
 * }, { clock });
 * // r.state.status === "COMPLETED", r.effects.audit lists the lifecycle
 * ```
 *
 * Snapshots: {@link encodeSnapshot} / {@link decodeSnapshot} write and read
 * the canonical, typed form of a state (decode then encode reproduces the
 * bytes exactly).
 *
 * Sensitivity: {@link sensitiveVariables} names the variables a surface
 * that shows them must mask (declared sensitive, or marked because their
 * value came from a store with a `dataClass`).
 *
 * @module
 */
export { createExecutor, step } from "./step.ts";
export type { Executor, ExecutorOptions, StepResult } from "./step.ts";
export type * from "./input.ts";
export type * from "./effects.ts";
export type * from "./ports.ts";
export type * from "./listeners.ts";
export type * from "./state.ts";
export { cloneState, isTerminal } from "./state.ts";
export { decodeSnapshot, encodeSnapshot, encodeSnapshotText } from "./snapshot.ts";
export type { DecodeResult } from "./snapshot.ts";
export { DECLARED_SENSITIVE, sensitiveVariables } from "./sensitivity.ts";
export { decodeValue, encodeValue, TypedValueError } from "./typed_value.ts";
export { ExecutorCode } from "./_failure.ts";
export { requestKey } from "./effects.ts";
export {
  coalesce,
  type Coalesced,
  evaluateTimer,
  firstDue,
  nextDue,
  type TimerEvaluation,
} from "./_timers.ts";
