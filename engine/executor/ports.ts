/**
 * Ports: everything the executor needs from the world, passed in by the
 * caller. The executor itself performs no I/O; the runtime binds these to
 * the engine database, the registered task table, the DMN and .srl
 * evaluators and the template renderer, and tests bind them to in-process
 * fakes. Any port method may answer synchronously or with a promise.
 *
 * @module
 */
import type { FeelValue } from "../../lang/feel/mod.ts";
import type { Clock } from "../core/mod.ts";

/** A value or a promise of it. */
export type MaybePromise<T> = T | Promise<T>;

/** A keyed read through a `q:store` data store reference. */
export interface StoreReadRequest {
  readonly store: string;
  readonly key: string;
  /** Take a row lock held until the step commits. */
  readonly forUpdate: boolean;
}

/** What a store holds under a key. */
export interface StoreRecord {
  /** The stored value (plain JSON-shaped data or FEEL values). */
  readonly value: unknown;
  /** Revision, for `expect="unchanged"` compare-and-set writes. */
  readonly rev?: number;
  /**
   * The store's sensitivity class (`pii`, `pci`, `phi`, `financial`), when
   * it declares one: the variable a read lands in is marked sensitive.
   */
  readonly dataClass?: string;
}

/** Reads from data stores; writes are effects committed with the step. */
export interface StorePort {
  /** The record under the key, or undefined when there is none. */
  read(request: StoreReadRequest): MaybePromise<StoreRecord | undefined>;
  /**
   * The store's sensitivity class, for reads the step answers from its own
   * uncommitted writes (no record comes back from the store then).
   */
  dataClass?(store: string): MaybePromise<string | undefined>;
}

/** What a registered task is called with. */
export interface TaskCall {
  readonly name: string;
  readonly instanceId: string;
  readonly node: string;
  /** 1 for the first attempt. */
  readonly attempt: number;
  /** Visible variables with the task's data inputs on top. */
  readonly variables: ReadonlyMap<string, FeelValue>;
}

/** How a registered task ended. */
export type TaskOutcome =
  | {
    /** Variables to set (plain JS values or FEEL values). */
    readonly outputs?: Readonly<Record<string, unknown>>;
  }
  | {
    /** A BPMN error, routed to a matching boundary or event sub-process. */
    readonly bpmnError: { readonly code: string; readonly message?: string };
  }
  | {
    /** A failed attempt with a structured code (`q:retry nonRetryableCodes` may name it). */
    readonly failure: { readonly code: string; readonly message?: string };
  };

/** Functions the embedding application registered (`implementation="registered:<name>"`). */
export interface TaskPort {
  /** Runs one attempt. A thrown exception counts as a failed attempt. */
  run(call: TaskCall): MaybePromise<TaskOutcome>;
}

/** A decision or ruleset evaluation request. */
export interface DecisionRequest {
  /** The `.dmn` or `.srl` file as the business-rule task names it. */
  readonly source: string;
  /** The decision id within a `.dmn` file. */
  readonly decision?: string;
  readonly inputs: ReadonlyMap<string, FeelValue>;
}

/** A decision's result. */
export type DecisionOutcome =
  | {
    /** Named outputs, merged into the variables. */
    readonly outputs: Readonly<Record<string, unknown>>;
  }
  | { readonly failure: { readonly code: string; readonly message: string } };

/** Evaluates DMN decisions and .srl rulesets. */
export interface DecisionPort {
  evaluate(request: DecisionRequest): MaybePromise<DecisionOutcome>;
}

/** A rendering request. */
export interface RenderRequest {
  /** The template key as the task names it. */
  readonly template: string;
  readonly variables: ReadonlyMap<string, FeelValue>;
}

/** A rendered body. */
export interface Rendered {
  readonly body: string;
  readonly contentType?: string;
}

/** Renders Handlebars and XSLT templates. */
export interface TemplatePort {
  render(request: RenderRequest): MaybePromise<Rendered>;
}

/** Everything a step may use. Only the clock is required. */
export interface Ports {
  readonly clock: Clock;
  readonly store?: StorePort;
  readonly tasks?: TaskPort;
  readonly decisions?: DecisionPort;
  readonly templates?: TemplatePort;
}
