/**
 * The typed model of a BPMN 2.0 document as the loader reads it, before any
 * validation or planning. It mirrors the XML closely (ids are strings,
 * references are unresolved ids) so that inspection tools can show a file
 * that does not validate yet. Every element carries its line and column.
 *
 * Incoming and outgoing flows of a node are derived from the sequence
 * flows' `sourceRef`/`targetRef`, which BPMN makes authoritative; the
 * redundant `<incoming>`/`<outgoing>` children are only checked to exist.
 *
 * @module
 */
import type { QSettings } from "./q_model.ts";

/** A FEEL (or other language) text and where it sits in the file. */
export interface Expression {
  /** The text, trimmed. */
  readonly text: string;
  /** The declared language URI, when the author named one. */
  readonly language?: string;
  /** 1-based line of the first character of `text`. */
  readonly line: number;
  /** 1-based column of the first character of `text`. */
  readonly column: number;
  /** Raw source span the decoded text came from (for mapping inner positions). */
  readonly rawStart: number;
  readonly rawEnd: number;
  /** Decoded index within that span where the trimmed `text` begins. */
  readonly lead: number;
}

/** Common to every element with an id. */
export interface ModelElement {
  readonly id: string;
  readonly name?: string;
  /** BPMN local element name (`serviceTask`, `sequenceFlow`, …). */
  readonly element: string;
  readonly line: number;
  readonly column: number;
  readonly documentation?: string;
  /** The q: vocabulary attached through `extensionElements`. */
  readonly q: QSettings;
}

/** Event kinds. */
export type EventKind =
  | "startEvent"
  | "endEvent"
  | "intermediateCatchEvent"
  | "intermediateThrowEvent"
  | "boundaryEvent";

/** Task kinds. */
export type TaskKind =
  | "task"
  | "serviceTask"
  | "sendTask"
  | "receiveTask"
  | "userTask"
  | "manualTask"
  | "businessRuleTask"
  | "scriptTask";

/** Sub-process kinds (an event sub-process is a `subProcess` with `triggeredByEvent`). */
export type SubProcessKind = "subProcess" | "transaction" | "adHocSubProcess";

/** Gateway kinds. */
export type GatewayKind =
  | "exclusiveGateway"
  | "parallelGateway"
  | "inclusiveGateway"
  | "eventBasedGateway"
  | "complexGateway";

/** Every flow node kind. */
export type FlowNodeKind = EventKind | TaskKind | SubProcessKind | "callActivity" | GatewayKind;

/** Which of the three BPMN timer forms a timer uses. */
export type TimerForm = "timeDate" | "timeDuration" | "timeCycle";

/** An event definition, as written on (or referenced by) an event. */
export type EventDefinition =
  | EventDefinitionBase & {
    readonly type: "message";
    readonly messageRef?: string;
    readonly operationRef?: string;
  }
  | EventDefinitionBase & {
    readonly type: "timer";
    readonly form?: TimerForm;
    readonly expression?: Expression;
  }
  | EventDefinitionBase & { readonly type: "signal"; readonly signalRef?: string }
  | EventDefinitionBase & { readonly type: "conditional"; readonly condition?: Expression }
  | EventDefinitionBase & { readonly type: "error"; readonly errorRef?: string }
  | EventDefinitionBase & { readonly type: "escalation"; readonly escalationRef?: string }
  | EventDefinitionBase & {
    readonly type: "compensate";
    readonly activityRef?: string;
    readonly waitForCompletion: boolean;
  }
  | EventDefinitionBase & { readonly type: "cancel" }
  | EventDefinitionBase & { readonly type: "terminate" }
  | EventDefinitionBase & {
    readonly type: "link";
    /** Link name pairing throws with catches (falls back to the event name). */
    readonly linkName?: string;
    readonly sources: readonly string[];
    readonly target?: string;
  };

/** Fields every event definition has. */
export interface EventDefinitionBase {
  /** The definition's own id (may be empty: BPMN does not require one). */
  readonly id: string;
  readonly line: number;
  readonly column: number;
}

/** An `<assignment>` inside a data association. */
export interface Assignment {
  readonly line: number;
  readonly from?: Expression;
  readonly to?: Expression;
}

/** A data input or output association. */
export interface DataAssociation {
  readonly id: string;
  readonly line: number;
  readonly column: number;
  readonly sources: readonly string[];
  readonly target?: string;
  readonly transformation?: Expression;
  readonly assignments: readonly Assignment[];
}

/** A data input or output of an io specification, or a property. */
export interface DataItem {
  readonly id: string;
  readonly name?: string;
  readonly line: number;
  readonly itemSubjectRef?: string;
  readonly isCollection: boolean;
}

/** `ioSpecification`: the declared inputs and outputs of an activity or process. */
export interface IoSpecification {
  readonly inputs: readonly DataItem[];
  readonly outputs: readonly DataItem[];
}

/** Standard or multi-instance loop characteristics. */
export type LoopCharacteristics =
  | {
    readonly type: "standard";
    readonly line: number;
    readonly condition?: Expression;
    readonly maximum?: number;
    readonly testBefore: boolean;
  }
  | {
    readonly type: "multiInstance";
    readonly line: number;
    readonly isSequential: boolean;
    readonly loopCardinality?: Expression;
    readonly loopDataInputRef?: string;
    readonly loopDataOutputRef?: string;
    /** Name of the per-instance input item. */
    readonly inputDataItem?: DataItem;
    readonly outputDataItem?: DataItem;
    readonly completionCondition?: Expression;
  };

/** Fields every flow node has. */
export interface FlowNodeBase extends ModelElement {
  readonly kind: FlowNodeKind;
  /** Sequence-flow ids ending here (derived from the flows). */
  readonly incoming: readonly string[];
  /** Sequence-flow ids leaving here (derived from the flows). */
  readonly outgoing: readonly string[];
  /** Ids written in `<incoming>`/`<outgoing>` children (checked, not trusted). */
  readonly declaredFlowRefs: readonly RefSite[];
  readonly dataInputAssociations: readonly DataAssociation[];
  readonly dataOutputAssociations: readonly DataAssociation[];
}

/** A reference written somewhere, kept with its position for diagnostics. */
export interface RefSite {
  readonly ref: string;
  readonly attribute: string;
  readonly line: number;
  readonly column: number;
}

/** An event. */
export interface EventNode extends FlowNodeBase {
  readonly kind: EventKind;
  readonly definitions: readonly EventDefinition[];
  /** Boundary events: the activity the event sits on. */
  readonly attachedToRef?: string;
  /** Boundary events: interrupting (default true). */
  readonly cancelActivity: boolean;
  /** Start events of event sub-processes: interrupting (default true). */
  readonly isInterrupting: boolean;
  readonly parallelMultiple: boolean;
}

/** Fields every activity has. */
export interface ActivityBase extends FlowNodeBase {
  readonly loop?: LoopCharacteristics;
  readonly isForCompensation: boolean;
  readonly defaultFlow?: string;
  readonly io?: IoSpecification;
  readonly properties: readonly DataItem[];
  /** Boundary event ids attached to this activity (derived). */
  readonly boundaries: readonly string[];
}

/** A task of any kind. */
export interface TaskNode extends ActivityBase {
  readonly kind: TaskKind;
  /** `implementation` attribute as written (service, send, receive, rule, user tasks). */
  readonly implementation?: string;
  readonly messageRef?: string;
  readonly operationRef?: string;
  /** Script tasks. */
  readonly scriptFormat?: string;
  readonly script?: Expression;
  /** Script tasks: `q:resultVariable`, the variable the script's value is stored under. */
  readonly resultVariable?: string;
  /** Receive tasks: `instantiate`. */
  readonly instantiate: boolean;
}

/** A sub-process, transaction or ad-hoc sub-process, with its own content. */
export interface SubProcessNode extends ActivityBase {
  readonly kind: SubProcessKind;
  readonly triggeredByEvent: boolean;
  readonly content: FlowContainer;
  /** Ad-hoc: completion condition and ordering. */
  readonly completionCondition?: Expression;
  readonly ordering?: "Parallel" | "Sequential";
  readonly cancelRemainingInstances: boolean;
  /** Transaction: `method` as written. */
  readonly method?: string;
}

/** A call activity. */
export interface CallActivityNode extends ActivityBase {
  readonly kind: "callActivity";
  /** The called process, as written: an id, or a QName (`ns:child`). */
  readonly calledElement?: string;
  /** For a QName: the namespace its prefix is bound to there (absent when unbound). */
  readonly calledNamespace?: string;
}

/** A gateway. */
export interface GatewayNode extends FlowNodeBase {
  readonly kind: GatewayKind;
  readonly defaultFlow?: string;
  readonly direction?: string;
  /** Event-based: `instantiate` and `eventGatewayType`. */
  readonly instantiate: boolean;
  readonly eventGatewayType?: string;
  /** Complex: `activationCondition`. */
  readonly activationCondition?: Expression;
}

/** Any flow node. */
export type FlowNode = EventNode | TaskNode | SubProcessNode | CallActivityNode | GatewayNode;

/** Any activity. */
export type ActivityNode = TaskNode | SubProcessNode | CallActivityNode;

/** A sequence flow. */
export interface SequenceFlow extends ModelElement {
  readonly sourceRef: string;
  readonly targetRef: string;
  readonly condition?: Expression;
}

/** A data object (per-instance variable). */
export interface DataObject extends ModelElement {
  readonly itemSubjectRef?: string;
  readonly isCollection: boolean;
}

/** A reference to a data object (`dataObjectReference`). */
export interface DataObjectReference extends ModelElement {
  readonly dataObjectRef?: string;
}

/** A reference to a data store, carrying `q:store` when keyed. */
export interface DataStoreReference extends ModelElement {
  readonly dataStoreRef?: string;
}

/** An association artifact (compensation handlers hang off these). */
export interface Association extends ModelElement {
  readonly sourceRef: string;
  readonly targetRef: string;
  readonly direction?: string;
}

/** A lane and its nested lanes. */
export interface Lane extends ModelElement {
  readonly flowNodeRefs: readonly RefSite[];
  readonly childLanes: readonly Lane[];
}

/** The contents of a process or sub-process. */
export interface FlowContainer {
  readonly nodes: readonly FlowNode[];
  readonly flows: readonly SequenceFlow[];
  readonly dataObjects: readonly DataObject[];
  readonly dataObjectReferences: readonly DataObjectReference[];
  readonly dataStoreReferences: readonly DataStoreReference[];
  readonly associations: readonly Association[];
  readonly lanes: readonly Lane[];
}

/** A process. */
export interface Process extends ModelElement {
  /** `isExecutable` as written; absent counts as executable. */
  readonly isExecutable?: boolean;
  readonly content: FlowContainer;
  readonly io?: IoSpecification;
  readonly properties: readonly DataItem[];
}

/** A pool. */
export interface Participant extends ModelElement {
  readonly processRef?: string;
}

/** A message flow between pools or their nodes. */
export interface MessageFlow extends ModelElement {
  readonly sourceRef: string;
  readonly targetRef: string;
  readonly messageRef?: string;
}

/** A collaboration. */
export interface Collaboration extends ModelElement {
  readonly participants: readonly Participant[];
  readonly messageFlows: readonly MessageFlow[];
}

/** Root-level `message`. */
export interface MessageDefinition extends ModelElement {
  readonly itemRef?: string;
}

/** Root-level `signal`. */
export interface SignalDefinition extends ModelElement {
  readonly structureRef?: string;
}

/** Root-level `error`. */
export interface ErrorDefinition extends ModelElement {
  readonly errorCode?: string;
}

/** Root-level `escalation`. */
export interface EscalationDefinition extends ModelElement {
  readonly escalationCode?: string;
}

/** Root-level `dataStore`. */
export interface DataStoreDefinition extends ModelElement {
  readonly itemSubjectRef?: string;
}

/** Root-level `itemDefinition`. */
export interface ItemDefinition extends ModelElement {
  readonly structureRef?: string;
  readonly itemKind?: string;
  readonly isCollection: boolean;
}

/** Root-level `import`. */
export interface Import {
  readonly namespace?: string;
  readonly location?: string;
  readonly importType?: string;
  readonly line: number;
}

/** What an id in the document names (for reference checks). */
export type IdKind =
  | FlowNodeKind
  | "sequenceFlow"
  | "process"
  | "collaboration"
  | "participant"
  | "messageFlow"
  | "message"
  | "signal"
  | "error"
  | "escalation"
  | "dataStore"
  | "itemDefinition"
  | "dataObject"
  | "dataObjectReference"
  | "dataStoreReference"
  | "dataInput"
  | "dataOutput"
  | "property"
  | "association"
  | "lane"
  | "eventDefinition"
  | "interface"
  | "operation"
  | "globalTask"
  | "other";

/** One entry of the document-wide id index. */
export interface IdEntry {
  readonly kind: IdKind;
  readonly line: number;
  readonly column: number;
  /** The process (or sub-process) id whose content holds the element, if any. */
  readonly container?: string;
  /** The element's `name`, when written (data items are variables by name). */
  readonly name?: string;
}

/** A whole `definitions` document. */
export interface Definitions extends ModelElement {
  /** Where the document came from (file path or URN). */
  readonly uri: string;
  readonly targetNamespace?: string;
  /** Default expression language URI, when declared. */
  readonly expressionLanguage?: string;
  readonly exporter?: string;
  readonly processes: readonly Process[];
  readonly collaborations: readonly Collaboration[];
  readonly messages: readonly MessageDefinition[];
  readonly signals: readonly SignalDefinition[];
  readonly errors: readonly ErrorDefinition[];
  readonly escalations: readonly EscalationDefinition[];
  readonly dataStores: readonly DataStoreDefinition[];
  readonly itemDefinitions: readonly ItemDefinition[];
  readonly imports: readonly Import[];
  /** Every id in the document and what it names. */
  readonly ids: ReadonlyMap<string, IdEntry>;
}

/** Type guard: is the node an event? */
export function isEvent(node: FlowNode): node is EventNode {
  return node.kind.endsWith("Event");
}

/** Type guard: is the node a gateway? */
export function isGateway(node: FlowNode): node is GatewayNode {
  return node.kind.endsWith("Gateway");
}

/** Type guard: is the node an activity (task, sub-process or call activity)? */
export function isActivity(node: FlowNode): node is ActivityNode {
  return !isEvent(node) && !isGateway(node);
}

/** Type guard: is the node a task? */
export function isTask(node: FlowNode): node is TaskNode {
  return node.kind === "task" || node.kind.endsWith("Task");
}

/** Type guard: is the node a sub-process of any kind? */
export function isSubProcess(node: FlowNode): node is SubProcessNode {
  return node.kind === "subProcess" || node.kind === "transaction" ||
    node.kind === "adHocSubProcess";
}

/**
 * The link a link event throws to or catches: the definition's name, else
 * the event's name, with white space collapsed (modelers wrap long labels).
 * Undefined for events that are not link events.
 */
export function linkName(node: FlowNode): string | undefined {
  if (!isEvent(node) || node.definitions.length !== 1) return undefined;
  const d = node.definitions[0];
  if (d.type !== "link") return undefined;
  return (d.linkName ?? node.name ?? "").replace(/\s+/g, " ").trim();
}
