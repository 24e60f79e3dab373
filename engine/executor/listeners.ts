/**
 * Execution listeners: observers of instance and node lifecycle (audit,
 * metrics, the deferred-ack registry). They are a plain list fixed when the
 * executor is created and are called synchronously, in list order, as the
 * step runs. A listener observes; it cannot change the step. One that
 * throws is reported as a diagnostic effect and the step carries on.
 *
 * @module
 */

/** What a listener is told about. */
export interface ExecutionEvent {
  readonly instanceId: string;
  readonly process: string;
  /** The step's clock reading, epoch milliseconds. */
  readonly at: number;
  readonly node?: string;
  readonly flow?: string;
  /** Failures: the code. */
  readonly code?: string;
}

/** Callbacks for lifecycle events; implement the ones you need. */
export interface ExecutionListener {
  onInstanceStarted?(event: ExecutionEvent): void;
  onInstanceCompleted?(event: ExecutionEvent): void;
  onInstanceFailed?(event: ExecutionEvent): void;
  /** The instance parked on waits at the end of a step. */
  onInstanceSuspended?(event: ExecutionEvent): void;
  /** A step began on a parked instance. */
  onInstanceResumed?(event: ExecutionEvent): void;
  onNodeEntered?(event: ExecutionEvent): void;
  onNodeLeft?(event: ExecutionEvent): void;
  onFlowTaken?(event: ExecutionEvent): void;
}

/** The callback names of {@link ExecutionListener}. */
export type ListenerHook = keyof ExecutionListener;
