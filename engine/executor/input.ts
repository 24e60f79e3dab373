/**
 * What one step reacts to: a start through a routed start node, or one
 * event addressed to a parked instance (a message for a wait, a due timer,
 * a broadcast signal, a cancellation) — plus two injections the runtime and
 * tests use to report what happened outside (a BPMN error raised on a
 * waiting task, a task failure such as a poisoned delivery).
 *
 * @module
 */

/** An inbound message as the intake pipeline hands it over. */
export interface InboundMessage {
  /** The decoded body (plain JSON-shaped data or FEEL values). */
  readonly payload: unknown;
  readonly headers?: Readonly<Record<string, string>>;
  readonly messageType?: string;
  /**
   * Variables intake derived from the message (the validation summary of
   * the consuming node's `q:source`), set beside the payload when a wait
   * takes the message.
   */
  readonly variables?: Readonly<Record<string, unknown>>;
}

/** Creates the instance and runs it from a start node. */
export interface StartInput {
  readonly type: "start";
  readonly instanceId: string;
  /** The process; may be left out when the plan has exactly one. */
  readonly process?: string;
  /** The routed start node id; left out, the process's none start event. */
  readonly node?: string;
  readonly message?: InboundMessage;
  /** Initial variables (plain JS values or FEEL values). */
  readonly variables?: Readonly<Record<string, unknown>>;
  /**
   * A BPMN error the start node raises instead of running on (`q:onValidation
   * mode="error"` judged the message): the process's error event
   * sub-processes see it, and without one the instance fails with it.
   */
  readonly raise?: { readonly code: string; readonly message?: string };
}

/** A message for a message wait (relay, channel-call response, boundary, event sub-process). */
export interface MessageInput {
  readonly type: "message";
  readonly wait: number;
  readonly message: InboundMessage;
}

/** A timer wait came due (timers, retry backoffs, respond-and-continue). */
export interface TimerInput {
  readonly type: "timer";
  readonly wait: number;
}

/** A signal broadcast by another instance or the runtime (signals carry no data into a catch). */
export interface SignalInput {
  readonly type: "signal";
  readonly name: string;
}

/** Ends the instance now (TERMINATED). */
export interface CancelInput {
  readonly type: "cancel";
  readonly reason?: string;
}

/** Raises a BPMN error on the task waiting on `wait`, as if the task had thrown it. */
export interface ErrorInput {
  readonly type: "error";
  readonly wait: number;
  readonly code: string;
  readonly message?: string;
}

/** Reports a failed attempt of the task waiting on `wait` (e.g. a poisoned request delivery). */
export interface TaskFailureInput {
  readonly type: "failure";
  readonly wait: number;
  readonly code: string;
  readonly message?: string;
}

/** Every input a step accepts. */
export type StepInput =
  | StartInput
  | MessageInput
  | TimerInput
  | SignalInput
  | CancelInput
  | ErrorInput
  | TaskFailureInput;
