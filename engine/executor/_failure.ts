/**
 * The one exception used inside a step: a reason the instance fails. The
 * step loop catches it and turns it into a FAILED state with the code and
 * node; it never leaves `step`.
 *
 * @module
 */

/** Codes the executor fails instances and refuses inputs with. */
export const ExecutorCode = {
  /** A FEEL evaluation was refused, or produced null because of an error where a value is needed. */
  EXPRESSION: "SUTRA.RUNTIME.EXPRESSION.FAILED",
  /** A timer expression gave a value that is not a usable duration, date or cycle. */
  TIMER_INVALID: "SUTRA.RUNTIME.TIMER.INVALID",
  /** A BPMN error (or a cancel end event) that no boundary or event sub-process catches. */
  UNHANDLED_ERROR: "SUTRA.RUNTIME.ERROR.UNHANDLED",
  /** A task attempt failed and the task has no retry policy. */
  TASK_FAILED: "SUTRA.RUNTIME.TASK.FAILED",
  /** A retry policy's budget is spent, or the failure code is non-retryable. */
  RETRY_EXHAUSTED: "SUTRA.RUNTIME.RETRY.EXHAUSTED",
  /** No outgoing flow's condition holds and there is no default flow. */
  NO_PATH: "SUTRA.RUNTIME.GATEWAY.NO_PATH",
  /** Tokens remain that nothing (no wait, no timer, no message) can ever move again. */
  STUCK: "SUTRA.RUNTIME.INSTANCE.STUCK",
  /** One step entered more nodes than a step may (a cycle with no wait state in it). */
  STEP_LIMIT: "SUTRA.RUNTIME.STEP.LIMIT",
  /** A call activity names a process the deployment does not have. */
  CALL_UNKNOWN: "SUTRA.RUNTIME.CALL.PROCESS_UNKNOWN",
  /** `q:dispatch onNoMatch="error"` and no case holds (a catchable BPMN error code). */
  DISPATCH_NO_MATCH: "SUTRA.RUNTIME.DISPATCH.NO_MATCH",
  /** A data-store read failed. */
  STORE_FAILED: "SUTRA.RUNTIME.DATASTORE.READ_FAILED",
  /** A defect inside the executor, contained to this instance. */
  UNEXPECTED: "SUTRA.RUNTIME.UNEXPECTED",
  /** Refusal: the input names no wait the instance holds. */
  WAIT_UNKNOWN: "SUTRA.RUNTIME.RESUME.WAIT_UNKNOWN",
  /** Refusal: the instance is already completed, terminated or failed. */
  NOT_ACTIVE: "SUTRA.RUNTIME.INSTANCE.NOT_ACTIVE",
  /** Refusal: a start input that names no start node, or a state that already exists. */
  START_INVALID: "SUTRA.RUNTIME.START.INVALID",
  /** Refusal: a response for a channel call whose next attempt is backing off. */
  RETRY_PENDING: "SUTRA.DISPATCH.CHANNEL_CALL.RETRY_PENDING",
  /** A channel call's route-less `q:timeout` fired (catchable error, or a retryable failure). */
  CALL_TIMEOUT: "SUTRA.DISPATCH.CHANNEL_CALL.TIMEOUT",
  /** Warning: an escalation nobody caught (the flow continues). */
  ESCALATION_UNCAUGHT: "SUTRA.RUNTIME.ESCALATION.UNCAUGHT",
  /** Warning: an execution listener threw; the step carried on. */
  LISTENER_FAILED: "SUTRA.RUNTIME.LISTENER.FAILED",
  /** A snapshot that cannot be decoded against the plan. */
  SNAPSHOT_INVALID: "SUTRA.RUNTIME.SNAPSHOT.INVALID",
} as const;

/** Raised inside a step to fail the instance. */
export class StepFailure extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly node?: string,
    readonly attributes?: Record<string, string | number | boolean>,
  ) {
    super(message);
    this.name = "StepFailure";
  }
}
