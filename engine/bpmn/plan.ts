/**
 * The execution plan: the immutable, indexed form of a validated BPMN
 * document that the executor runs on. Built once per deployment by
 * `plan_builder.ts`; deeply frozen, maps included.
 *
 * Shape, in short:
 *
 * - An {@link ExecutionPlan} holds one {@link ProcessPlan} per executable
 *   process, the channel {@link Subscription}s (which node a message on a
 *   channel starts or resumes), the timer-start {@link Schedule}s, and the
 *   document's messages, signals, errors and escalations.
 * - A {@link ProcessPlan} numbers its nodes, flows and scopes. Every
 *   cross-reference inside it is an index into `nodes`, `flows` or
 *   `scopes` (never an id lookup on the hot path); `nodeIndex` and
 *   `flowIndex` map ids back for persistence, which records ids.
 * - Scope 0 is the process body. Every sub-process (embedded, event,
 *   transaction, ad-hoc) owns one scope; a token inside it is represented
 *   in the parent scope by the sub-process node (`PlanScope.node`).
 * - Converging gateways carry {@link PlanJoin}: the incoming flows, and for
 *   inclusive and complex joins, per incoming flow the set of nodes of the same scope
 *   from which a token could still reach that flow without passing the
 *   join. An inclusive join may fire when no token sits on any node of the
 *   sets of its still-empty incoming flows.
 * - Every FEEL expression is a {@link PlanExpression}: compiled once, with
 *   the paths it reads and its position in the file.
 *
 * @module
 */
import type { CompiledExpression } from "../../lang/feel/mod.ts";
import type { Implementation } from "./implementation.ts";
import type { NodeSet } from "./node_set.ts";
import type { FlowNodeKind, TimerForm } from "./model.ts";
import type {
  AckMode,
  DataClass,
  QAudit,
  QOnValidation,
  QRetry,
  QTimeout,
  QValidator,
  QVariable,
  ReplyMode,
} from "./q_model.ts";
import type { TimerSpec } from "./timer.ts";

/** Index into {@link ProcessPlan.nodes}. */
export type NodeIndex = number;
/** Index into {@link ProcessPlan.flows}. */
export type FlowIndex = number;
/** Index into {@link ProcessPlan.scopes}. */
export type ScopeIndex = number;

/** A compiled FEEL expression and where it came from. */
export interface PlanExpression {
  readonly text: string;
  readonly compiled: CompiledExpression;
  /** Context paths the expression reads. */
  readonly paths: readonly string[];
  readonly line: number;
  readonly column: number;
}

/**
 * A timer written as a FEEL expression (`=…`): evaluated when the timer is
 * armed, in the scope arming it, and read as {@link TimerForm} `form`.
 */
export interface PlanTimerExpression {
  readonly form: TimerForm;
  readonly expression: PlanExpression;
}

/** What triggers (catch) or is thrown by (throw) an event node. */
export interface PlanTrigger {
  readonly type:
    | "none"
    | "message"
    | "timer"
    | "signal"
    | "conditional"
    | "error"
    | "escalation"
    | "compensate"
    | "cancel"
    | "terminate"
    | "link";
  /** Timer events written as literal ISO-8601 text. */
  readonly timer?: TimerSpec;
  /** Timer events written as a FEEL expression (`=…`); `timer` is then absent. */
  readonly timerExpression?: PlanTimerExpression;
  /** Conditional events. */
  readonly condition?: PlanExpression;
  /** Message events: the referenced message's name (or id). */
  readonly message?: string;
  /** Signal events: the signal's name (or id); signals match by name. */
  readonly signal?: string;
  /** Error events: the error code (absent on a catch-all error boundary or start). */
  readonly errorCode?: string;
  /** Escalation events: the escalation code (absent on a catch-all). */
  readonly escalationCode?: string;
  /** Link throws: the catch node they continue at. */
  readonly linkTarget?: NodeIndex;
  /** Compensation throws: the activity to compensate (absent: the whole scope). */
  readonly compensate?: NodeIndex;
  readonly waitForCompletion?: boolean;
}

/** Join bookkeeping of a converging gateway. */
export interface PlanJoin {
  readonly kind: "parallel" | "inclusive" | "complex";
  /** Incoming flows, in the node's `incoming` order. */
  readonly incoming: readonly FlowIndex[];
  /**
   * Inclusive and complex joins: for each entry of `incoming`, the nodes of
   * the join's scope from which a token can still reach that flow.
   */
  readonly upstream?: readonly NodeSet[];
}

/** A correlation alias. */
export interface PlanAlias {
  readonly name: string;
  readonly expression: PlanExpression;
  readonly unique: boolean;
  readonly onConflict: "correlate" | "reject";
}

/** A channel subscription: a message-consuming node and what it accepts. */
export interface Subscription {
  readonly process: string;
  readonly node: NodeIndex;
  readonly nodeId: string;
  /** `start` creates an instance; `relay` resumes an instance parked at the node. */
  readonly role: "start" | "relay";
  readonly channel: string;
  readonly messageTypeValue?: string;
  /** Compiled `messageTypePattern`, matched against the whole message type. */
  readonly messageTypePattern?: RegExp;
  /** Variable the decoded payload is bound to. */
  readonly variable: string;
  readonly ack?: AckMode;
  readonly dedupKey?: PlanExpression;
  readonly dataClass: DataClass;
  readonly validators: readonly QValidator[];
  readonly redactors: readonly string[];
  /** Aliases recorded (start) or correlated on (relay). */
  readonly aliases: readonly PlanAlias[];
  readonly onValidation?: QOnValidation;
  /** True when the node sits in an event sub-process (a start there is an in-instance trigger). */
  readonly inEventSubProcess: boolean;
}

/**
 * A timer start event: a schedule armed while the deployment is active.
 * Exactly one of `timer` (literal text) and `timerExpression` is present.
 */
export interface Schedule {
  readonly process: string;
  readonly node: NodeIndex;
  readonly nodeId: string;
  readonly timer?: TimerSpec;
  /** Evaluated with no variables when the schedule is armed (and when it fires). */
  readonly timerExpression?: PlanTimerExpression;
}

/** A header computed onto an outbound message. */
export interface PlanHeader {
  readonly name: string;
  readonly value: PlanExpression;
}

/** `q:reply` on a node. */
export interface PlanReply {
  readonly mode: ReplyMode;
  readonly contentType?: string;
  readonly continue: boolean;
  readonly headers: readonly PlanHeader[];
}

/** `q:send` on a node. */
export interface PlanSend {
  readonly destination?: string;
  readonly channel?: string;
  readonly headers: readonly PlanHeader[];
}

/** `q:dispatch` on a call activity. */
export interface PlanDispatch {
  readonly cases: readonly { readonly when: PlanExpression; readonly calledElement: string }[];
  readonly default?: string;
  readonly onNoMatch: "error" | "default";
}

/** Keyed data-store access through a `q:store` reference. */
export interface PlanStore {
  /** The dataStoreReference id. */
  readonly reference: string;
  /** The store name (as declared in datastores.yaml). */
  readonly store: string;
  readonly key: PlanExpression;
  readonly forUpdate: boolean;
  readonly field?: string;
  readonly expect?: "unchanged";
}

/**
 * A data input or output association. Ends are kept by id (store
 * references match by id) and by name: the variable or data input/output
 * name an end stands for — the item's `name`, else its id; a data object
 * reference stands for its data object (see {@link PlanDataObject.name}).
 */
export interface PlanDataAssociation {
  /** Source item ids (data objects, references, inputs/outputs, properties). */
  readonly sources: readonly string[];
  /** The names behind `sources`, index for index. */
  readonly sourceNames: readonly string[];
  readonly target?: string;
  /** The name behind `target`. */
  readonly targetName?: string;
  readonly transformation?: PlanExpression;
  readonly assignments: readonly { readonly from?: PlanExpression; readonly to?: string }[];
  /** Present when a source or the target is a keyed data store reference. */
  readonly store?: PlanStore;
}

/** Loop characteristics. */
export type PlanLoop =
  | {
    readonly type: "standard";
    readonly condition?: PlanExpression;
    readonly maximum?: number;
    readonly testBefore: boolean;
  }
  | {
    readonly type: "multiInstance";
    readonly sequential: boolean;
    readonly cardinality?: PlanExpression;
    readonly inputCollection?: string;
    /**
     * The input collection is a data input of the activity itself (BPMN's
     * form for a task): its input association fills it once, before the
     * instances start, from what the activity sees.
     */
    readonly inputCollectionIsInput?: boolean;
    readonly outputCollection?: string;
    /**
     * The output collection is a data output of the activity itself: each
     * run's result is its output element, and the collection leaves through
     * the activity's output associations once, when every run is done.
     */
    readonly outputCollectionIsOutput?: boolean;
    readonly inputElement?: string;
    readonly outputElement?: string;
    readonly completionCondition?: PlanExpression;
  };

/** What an ad-hoc sub-process says about running its activities. */
export interface PlanAdHoc {
  /** `Sequential`: one enabled activity (and what its flows lead to) at a time, in document order. */
  readonly ordering: "Parallel" | "Sequential";
  /** Checked after each inner activity completes; true completes the sub-process. */
  readonly completionCondition?: PlanExpression;
  /** When the condition holds: withdraw what still runs (true) or let it finish (false). */
  readonly cancelRemainingInstances: boolean;
}

/** A data object: a variable of the scope that declares it. */
export interface PlanDataObject {
  readonly id: string;
  /**
   * The variable name: the data object's `name`, else the name of a data
   * object reference to it (modelers often name only the reference), else
   * its id.
   */
  readonly name: string;
  /** `q:value`: the initial value, evaluated when the declaring scope starts. */
  readonly value?: PlanExpression;
}

/** One flow node. Optional parts are present only for the kinds they concern. */
export interface PlanNode {
  readonly index: NodeIndex;
  readonly id: string;
  readonly name?: string;
  readonly kind: FlowNodeKind;
  readonly scope: ScopeIndex;
  readonly line: number;
  readonly incoming: readonly FlowIndex[];
  readonly outgoing: readonly FlowIndex[];
  readonly defaultFlow?: FlowIndex;
  /** Boundary events attached to this activity. */
  readonly boundaries: readonly NodeIndex[];
  /** Boundary events: the activity they sit on, and whether they interrupt it. */
  readonly attachedTo?: NodeIndex;
  readonly interrupting: boolean;
  /** Sub-processes: the scope of their content. */
  readonly childScope?: ScopeIndex;
  /** Events: trigger (catch) or result (throw). */
  readonly trigger?: PlanTrigger;
  /** Converging gateways. */
  readonly join?: PlanJoin;
  /** Complex gateways. */
  readonly activationCondition?: PlanExpression;
  /** Tasks. */
  readonly implementation?: Implementation;
  readonly script?: PlanExpression;
  /** Script tasks: `q:resultVariable`. */
  readonly resultVariable?: string;
  /** Ad-hoc sub-processes. */
  readonly adHoc?: PlanAdHoc;
  readonly loop?: PlanLoop;
  /** Message-consuming nodes. */
  readonly subscription?: Subscription;
  /** Aliases recorded when the node completes (besides those of its subscription). */
  readonly aliases: readonly PlanAlias[];
  readonly reply?: PlanReply;
  readonly send?: PlanSend;
  readonly retry?: QRetry;
  readonly timeout?: QTimeout;
  readonly dispatch?: PlanDispatch;
  readonly calledElement?: string;
  readonly inputs: readonly PlanDataAssociation[];
  readonly outputs: readonly PlanDataAssociation[];
  /**
   * The data outputs the node declares (an activity's `ioSpecification`, a
   * catch event's `dataOutput`), by name: its output associations read them
   * from what the node produced, not from variables.
   */
  readonly dataOutputs?: readonly string[];
  /** True when an instance may park here (see `parksInstance`). */
  readonly waitState: boolean;
  readonly isForCompensation: boolean;
  /** The compensation handler associated with this activity's compensation boundary. */
  readonly compensationHandler?: NodeIndex;
  /**
   * Sub-processes: the compensation start event of an event sub-process
   * drawn in the body — the sub-process's own compensation handler.
   */
  readonly compensationStart?: NodeIndex;
}

/** One sequence flow. */
export interface PlanFlow {
  readonly index: FlowIndex;
  readonly id: string;
  readonly name?: string;
  readonly source: NodeIndex;
  readonly target: NodeIndex;
  readonly condition?: PlanExpression;
  readonly isDefault: boolean;
}

/** A trigger that starts an event sub-process of a scope. */
export interface EventSubProcessTrigger {
  /** The event sub-process's own scope. */
  readonly scope: ScopeIndex;
  /** Its start event. */
  readonly start: NodeIndex;
  readonly interrupting: boolean;
}

/** A process body or sub-process body. */
export interface PlanScope {
  readonly index: ScopeIndex;
  readonly id: string;
  readonly kind: "process" | "subProcess" | "eventSubProcess" | "transaction" | "adHocSubProcess";
  readonly parent?: ScopeIndex;
  /** The sub-process node owning this scope, in the parent scope. */
  readonly node?: NodeIndex;
  readonly nodes: readonly NodeIndex[];
  /**
   * Where a token entering the scope starts: its start events; or (ad-hoc)
   * the enabled nodes — those without incoming flows, in document order,
   * leaving out boundary events, compensation handlers and event
   * sub-processes; or, in an embedded body without a start event, the
   * activities and gateways without incoming flows, the same way.
   */
  readonly entries: readonly NodeIndex[];
  /**
   * Data objects declared directly in this scope, in document order, then the
   * properties of the sub-process that owns it (local to its body the same way).
   */
  readonly dataObjects: readonly PlanDataObject[];
  /** Event sub-processes this scope can trigger while active. */
  readonly eventSubProcesses: readonly EventSubProcessTrigger[];
  /** Link name → catch node. */
  readonly links: ReadonlyMap<string, NodeIndex>;
}

/** A declared coverage route, flows as indexes. */
export interface PlanCoverage {
  readonly path: string;
  readonly flows: readonly FlowIndex[];
}

/** One executable process. */
export interface ProcessPlan {
  readonly id: string;
  readonly name?: string;
  /** `q:process idempotent`. */
  readonly idempotent: boolean;
  readonly audit?: QAudit;
  readonly nodes: readonly PlanNode[];
  readonly flows: readonly PlanFlow[];
  readonly scopes: readonly PlanScope[];
  readonly nodeIndex: ReadonlyMap<string, NodeIndex>;
  readonly flowIndex: ReadonlyMap<string, FlowIndex>;
  readonly variables: readonly QVariable[];
  /** Names never persisted. */
  readonly transient: ReadonlySet<string>;
  /** Names redacted on observability surfaces. */
  readonly sensitive: ReadonlySet<string>;
  readonly coverage: readonly PlanCoverage[];
  /** True when any node parks (the process needs persistence). */
  readonly stateful: boolean;
}

/** A named root definition (message, signal, error, escalation). */
export interface PlanDefinition {
  readonly id: string;
  readonly name?: string;
  /** Error and escalation codes. */
  readonly code?: string;
}

/** The plan of one BPMN document. */
export interface ExecutionPlan {
  readonly uri: string;
  readonly definitionsId: string;
  readonly processes: readonly ProcessPlan[];
  readonly processById: ReadonlyMap<string, ProcessPlan>;
  /** Every subscription of every process, in document order. */
  readonly subscriptions: readonly Subscription[];
  readonly subscriptionsByChannel: ReadonlyMap<string, readonly Subscription[]>;
  readonly schedules: readonly Schedule[];
  readonly messages: ReadonlyMap<string, PlanDefinition>;
  readonly signals: ReadonlyMap<string, PlanDefinition>;
  readonly errors: ReadonlyMap<string, PlanDefinition>;
  readonly escalations: ReadonlyMap<string, PlanDefinition>;
}
