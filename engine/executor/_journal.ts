/**
 * The step's journal: audit events at the process's `q:audit` capture level
 * (one sequence per instance, carried in the state) and the execution
 * listeners. A listener that throws becomes a warning diagnostic; it never
 * stops the step.
 *
 * @module
 */
import type { QAudit } from "../bpmn/mod.ts";
import { diagnostic } from "../core/mod.ts";
import type { AuditEvent, EffectsBuilder } from "./effects.ts";
import type { ExecutionEvent, ExecutionListener, ListenerHook } from "./listeners.ts";
import type { InstanceState } from "./state.ts";
import { ExecutorCode } from "./_failure.ts";
import { errorMessage } from "../core/errors.ts";

const CAPTURE = { none: 0, lifecycle: 1, nodes: 2, full: 3 } as const;

/** Audit events and listener calls of one step. */
export class Journal {
  readonly #state: InstanceState;
  readonly #effects: EffectsBuilder;
  readonly #now: number;
  readonly #listeners: readonly ExecutionListener[];
  readonly #capture: number;

  constructor(
    state: InstanceState,
    effects: EffectsBuilder,
    options: {
      now: number;
      listeners: readonly ExecutionListener[];
      capture: NonNullable<QAudit["capture"]>;
    },
  ) {
    this.#state = state;
    this.#effects = effects;
    this.#now = options.now;
    this.#listeners = options.listeners;
    this.#capture = CAPTURE[options.capture];
  }

  /** An instance lifecycle event (started, suspended, resumed, completed, failed). */
  lifecycle(hook: ListenerHook, type: string, node?: string, code?: string): void {
    if (this.#capture >= CAPTURE.lifecycle) this.audit(type, node, undefined, code);
    if (this.#listeners.length > 0) this.#notify(hook, { node, code });
  }

  /** A node entered or left. */
  node(hook: "onNodeEntered" | "onNodeLeft", type: string, node: string): void {
    if (this.#capture >= CAPTURE.nodes) this.audit(type, node);
    if (this.#listeners.length > 0) this.#notify(hook, { node });
  }

  /** A sequence flow taken. */
  flow(flow: string): void {
    if (this.#capture >= CAPTURE.full) this.audit("flow.taken", undefined, flow);
    if (this.#listeners.length > 0) this.#notify("onFlowTaken", { flow });
  }

  /** Appends an audit event, unless the capture level is `none`. */
  audit(type: string, node?: string, flow?: string, code?: string): void {
    if (this.#capture === CAPTURE.none) return;
    const event: { -readonly [K in keyof AuditEvent]: AuditEvent[K] } = {
      seq: ++this.#state.auditSeq,
      at: this.#now,
      type,
    };
    if (node !== undefined) event.node = node;
    if (flow !== undefined) event.flow = flow;
    if (code !== undefined) event.code = code;
    (this.#effects.audit ??= []).push(event);
  }

  #notify(hook: ListenerHook, detail: { node?: string; flow?: string; code?: string }): void {
    const event: { -readonly [K in keyof ExecutionEvent]: ExecutionEvent[K] } = {
      instanceId: this.#state.instanceId,
      process: this.#state.process,
      at: this.#now,
    };
    if (detail.node !== undefined) event.node = detail.node;
    if (detail.flow !== undefined) event.flow = detail.flow;
    if (detail.code !== undefined) event.code = detail.code;
    for (const listener of this.#listeners) {
      const fn = listener[hook];
      if (!fn) continue;
      try {
        fn.call(listener, event);
      } catch (e) {
        (this.#effects.diagnostics ??= []).push(diagnostic(
          ExecutorCode.LISTENER_FAILED,
          `execution listener ${hook} threw: ${errorMessage(e)}`,
          { severity: "WARNING", attributes: { hook } },
        ));
      }
    }
  }
}
