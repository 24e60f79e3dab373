/**
 * Reads the flow elements of a process or sub-process: nodes, sequence
 * flows, data objects and references, associations and lanes, with every
 * event definition, loop characteristic and data association they carry.
 *
 * @module
 */
import { textExpression } from "./_expression_text.ts";
import {
  booleanAttribute,
  BPMN_NAMESPACE,
  bpmnChild,
  bpmnChildren,
  type ReadContext,
} from "./_read_context.ts";
import { attribute, qnameNamespace, type XmlElement } from "./_xml.ts";
import type {
  Assignment,
  Association,
  DataAssociation,
  DataItem,
  DataObject,
  DataObjectReference,
  DataStoreReference,
  EventDefinition,
  EventKind,
  Expression,
  FlowContainer,
  FlowNode,
  FlowNodeBase,
  FlowNodeKind,
  GatewayKind,
  IoSpecification,
  Lane,
  LoopCharacteristics,
  RefSite,
  SequenceFlow,
  SubProcessKind,
  TaskKind,
  TimerForm,
} from "./model.ts";
import { Q_NAMESPACE } from "./q_model.ts";

const EVENT_KINDS: ReadonlySet<string> = new Set<EventKind>([
  "startEvent",
  "endEvent",
  "intermediateCatchEvent",
  "intermediateThrowEvent",
  "boundaryEvent",
]);
const TASK_KINDS: ReadonlySet<string> = new Set<TaskKind>([
  "task",
  "serviceTask",
  "sendTask",
  "receiveTask",
  "userTask",
  "manualTask",
  "businessRuleTask",
  "scriptTask",
]);
const SUB_PROCESS_KINDS: ReadonlySet<string> = new Set<SubProcessKind>([
  "subProcess",
  "transaction",
  "adHocSubProcess",
]);
const GATEWAY_KINDS: ReadonlySet<string> = new Set<GatewayKind>([
  "exclusiveGateway",
  "parallelGateway",
  "inclusiveGateway",
  "eventBasedGateway",
  "complexGateway",
]);

// Flow-element positions may hold these without them affecting execution:
// artifacts, documentation, performer hints, monitoring, and (inside a
// sub-process element) the sub-process's own activity-level children, which
// the node reader takes.
const IGNORED_IN_CONTAINER: ReadonlySet<string> = new Set([
  "incoming",
  "outgoing",
  "standardLoopCharacteristics",
  "multiInstanceLoopCharacteristics",
  "dataInputAssociation",
  "dataOutputAssociation",
  "completionCondition",
  "rendering",
  "documentation",
  "extensionElements",
  "textAnnotation",
  "group",
  "auditing",
  "monitoring",
  "ioSpecification",
  "property",
  "ioBinding",
  "supportedInterfaceRef",
  "categoryValueRef",
  "correlationSubscription",
  "performer",
  "humanPerformer",
  "potentialOwner",
  "resourceRole",
]);

// BPMN constructs that are well-formed but that this engine does not run.
const UNSUPPORTED_IN_CONTAINER: ReadonlyMap<string, string> = new Map([
  ["choreographyTask", "choreography tasks describe message exchanges, not executable work"],
  ["subChoreography", "choreographies describe message exchanges, not executable work"],
  ["callChoreography", "choreographies describe message exchanges, not executable work"],
  ["implicitThrowEvent", "implicit throw events belong to choreographies"],
]);

const EVENT_DEFINITIONS: ReadonlyMap<string, EventDefinition["type"]> = new Map([
  ["messageEventDefinition", "message"],
  ["timerEventDefinition", "timer"],
  ["signalEventDefinition", "signal"],
  ["conditionalEventDefinition", "conditional"],
  ["errorEventDefinition", "error"],
  ["escalationEventDefinition", "escalation"],
  ["compensateEventDefinition", "compensate"],
  ["cancelEventDefinition", "cancel"],
  ["terminateEventDefinition", "terminate"],
  ["linkEventDefinition", "link"],
]);

/** True for the BPMN event definition element names (`timerEventDefinition`, …). */
export function isEventDefinitionElement(local: string): boolean {
  return EVENT_DEFINITIONS.has(local);
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

// `q:VariableName` of xsd/q.xsd.
const VARIABLE_NAME = /^[\p{L}_][\p{L}\p{N}_]*$/u;

/** Reads the flow elements of processes and sub-processes. */
export class FlowReader {
  readonly #ctx: ReadContext;
  /** Root-level event definitions by id, for `eventDefinitionRef`. */
  readonly #sharedDefinitions: ReadonlyMap<string, XmlElement>;

  constructor(ctx: ReadContext, sharedDefinitions: ReadonlyMap<string, XmlElement>) {
    this.#ctx = ctx;
    this.#sharedDefinitions = sharedDefinitions;
  }

  /** Reads the contents of a process or sub-process element. */
  container(el: XmlElement, containerId: string): FlowContainer {
    const ctx = this.#ctx;
    const nodes: FlowNode[] = [];
    const flows: SequenceFlow[] = [];
    const dataObjects: DataObject[] = [];
    const dataObjectReferences: DataObjectReference[] = [];
    const dataStoreReferences: DataStoreReference[] = [];
    const associations: Association[] = [];
    const lanes: Lane[] = [];
    for (const child of el.children) {
      if (child.uri !== BPMN_NAMESPACE) continue;
      const local = child.local;
      if (
        EVENT_KINDS.has(local) || TASK_KINDS.has(local) || SUB_PROCESS_KINDS.has(local) ||
        GATEWAY_KINDS.has(local) || local === "callActivity"
      ) {
        nodes.push(this.#node(child, local as FlowNodeKind, containerId));
      } else if (local === "sequenceFlow") {
        flows.push(this.#sequenceFlow(child, containerId));
      } else if (local === "dataObject") {
        dataObjects.push({
          ...this.#element(child, "dataObject", containerId),
          ...optional("itemSubjectRef", attribute(child, "itemSubjectRef")),
          isCollection: booleanAttribute(ctx, child, "isCollection", false),
        });
      } else if (local === "dataObjectReference") {
        dataObjectReferences.push({
          ...this.#element(child, "dataObjectReference", containerId),
          ...optional("dataObjectRef", attribute(child, "dataObjectRef")),
        });
      } else if (local === "dataStoreReference") {
        dataStoreReferences.push({
          ...this.#element(child, "dataStoreReference", containerId),
          ...optional("dataStoreRef", attribute(child, "dataStoreRef")),
        });
      } else if (local === "association") {
        associations.push({
          ...this.#element(child, "association", containerId),
          sourceRef: attribute(child, "sourceRef")?.trim() ?? "",
          targetRef: attribute(child, "targetRef")?.trim() ?? "",
          ...optional("direction", attribute(child, "associationDirection")),
        });
      } else if (local === "laneSet") {
        for (const lane of bpmnChildren(child, "lane")) lanes.push(this.#lane(lane));
      } else if (UNSUPPORTED_IN_CONTAINER.has(local)) {
        ctx.report(
          "SUTRA.CONFIG.BPMN.ELEMENT_UNSUPPORTED",
          `<${child.name}> is not supported: ${UNSUPPORTED_IN_CONTAINER.get(local)}`,
          child,
          { attributes: { element: local } },
        );
      } else if (!IGNORED_IN_CONTAINER.has(local)) {
        ctx.report(
          "SUTRA.CONFIG.BPMN.ELEMENT_UNKNOWN",
          `<${child.name}> is not a BPMN 2.0 flow element`,
          child,
          { attributes: { element: local } },
        );
      }
    }
    // Incoming/outgoing come from the flows, which BPMN makes authoritative.
    const incoming = new Map<string, string[]>();
    const outgoing = new Map<string, string[]>();
    for (const f of flows) {
      if (f.id === "") continue;
      push(outgoing, f.sourceRef, f.id);
      push(incoming, f.targetRef, f.id);
    }
    const boundaries = new Map<string, string[]>();
    for (const n of nodes) {
      if (n.kind === "boundaryEvent" && n.attachedToRef && n.id) {
        push(boundaries, n.attachedToRef, n.id);
      }
    }
    for (const n of nodes as Mutable<FlowNode>[]) {
      n.incoming = incoming.get(n.id) ?? [];
      n.outgoing = outgoing.get(n.id) ?? [];
      if ("boundaries" in n) n.boundaries = boundaries.get(n.id) ?? [];
    }
    return {
      nodes,
      flows,
      dataObjects,
      dataObjectReferences,
      dataStoreReferences,
      associations,
      lanes,
    };
  }

  /** Reads an `ioSpecification`, registering its inputs and outputs. */
  io(el: XmlElement, containerId: string): IoSpecification | undefined {
    const spec = bpmnChild(el, "ioSpecification");
    if (!spec) return undefined;
    return {
      inputs: bpmnChildren(spec, "dataInput").map((d) =>
        this.#dataItem(d, "dataInput", containerId)
      ),
      outputs: bpmnChildren(spec, "dataOutput").map((d) =>
        this.#dataItem(d, "dataOutput", containerId)
      ),
    };
  }

  /** Reads the `property` children of a process or activity. */
  properties(el: XmlElement, containerId: string): DataItem[] {
    return bpmnChildren(el, "property").map((p) => this.#dataItem(p, "property", containerId));
  }

  #element(el: XmlElement, kind: Parameters<ReadContext["register"]>[1], containerId: string) {
    const ctx = this.#ctx;
    const id = ctx.register(el, kind, { container: containerId });
    const documentation = bpmnChildren(el, "documentation")
      .map((d) => d.text.trim())
      .filter((text) => text !== "")
      .join("\n");
    return {
      id,
      element: el.local,
      line: el.line,
      column: el.column,
      q: ctx.q(el),
      ...optional("name", attribute(el, "name")),
      ...optional("documentation", documentation || undefined),
    };
  }

  #dataItem(
    el: XmlElement,
    kind: "dataInput" | "dataOutput" | "property",
    containerId: string,
  ): DataItem {
    const id = this.#ctx.register(el, kind, { container: containerId });
    return {
      id,
      line: el.line,
      isCollection: booleanAttribute(this.#ctx, el, "isCollection", false),
      ...optional("name", attribute(el, "name")),
      ...optional("itemSubjectRef", attribute(el, "itemSubjectRef")),
    };
  }

  #sequenceFlow(el: XmlElement, containerId: string): SequenceFlow {
    const condition = bpmnChild(el, "conditionExpression");
    return {
      ...this.#element(el, "sequenceFlow", containerId),
      sourceRef: attribute(el, "sourceRef")?.trim() ?? "",
      targetRef: attribute(el, "targetRef")?.trim() ?? "",
      ...optional("condition", condition ? this.#expression(condition) : undefined),
    };
  }

  #expression(el: XmlElement): Expression {
    return textExpression(this.#ctx.source, el, attribute(el, "language")?.trim() || undefined);
  }

  #childExpression(el: XmlElement, local: string): Expression | undefined {
    const child = bpmnChild(el, local);
    return child ? this.#expression(child) : undefined;
  }

  #lane(el: XmlElement): Lane {
    const childSet = bpmnChild(el, "childLaneSet");
    return {
      ...this.#element(el, "lane", ""),
      flowNodeRefs: bpmnChildren(el, "flowNodeRef").map((r) => refSite(r, "flowNodeRef")),
      childLanes: childSet ? bpmnChildren(childSet, "lane").map((l) => this.#lane(l)) : [],
    };
  }

  #node(el: XmlElement, kind: FlowNodeKind, containerId: string): FlowNode {
    const ctx = this.#ctx;
    const base: FlowNodeBase = {
      ...this.#element(el, kind, containerId),
      kind,
      incoming: [],
      outgoing: [],
      declaredFlowRefs: [
        ...bpmnChildren(el, "incoming").map((r) => refSite(r, "incoming")),
        ...bpmnChildren(el, "outgoing").map((r) => refSite(r, "outgoing")),
      ],
      dataInputAssociations: bpmnChildren(el, "dataInputAssociation").map((a) =>
        this.#association(a, containerId)
      ),
      dataOutputAssociations: bpmnChildren(el, "dataOutputAssociation").map((a) =>
        this.#association(a, containerId)
      ),
    };
    if (EVENT_KINDS.has(kind)) {
      // Catch events declare outputs, throw events inputs; both are data items.
      for (const d of bpmnChildren(el, "dataOutput")) this.#dataItem(d, "dataOutput", containerId);
      for (const d of bpmnChildren(el, "dataInput")) this.#dataItem(d, "dataInput", containerId);
      return {
        ...base,
        kind: kind as EventKind,
        definitions: this.#eventDefinitions(el),
        cancelActivity: booleanAttribute(ctx, el, "cancelActivity", true),
        isInterrupting: booleanAttribute(ctx, el, "isInterrupting", true),
        parallelMultiple: booleanAttribute(ctx, el, "parallelMultiple", false),
        ...optional("attachedToRef", attribute(el, "attachedToRef")?.trim()),
      };
    }
    if (GATEWAY_KINDS.has(kind)) {
      return {
        ...base,
        kind: kind as GatewayKind,
        instantiate: booleanAttribute(ctx, el, "instantiate", false),
        ...optional("defaultFlow", attribute(el, "default")?.trim()),
        ...optional("direction", attribute(el, "gatewayDirection")),
        ...optional("eventGatewayType", attribute(el, "eventGatewayType")),
        ...optional("activationCondition", this.#childExpression(el, "activationCondition")),
      };
    }
    this.#checkQuantities(el);
    const activity = {
      ...base,
      isForCompensation: booleanAttribute(ctx, el, "isForCompensation", false),
      properties: this.properties(el, containerId),
      boundaries: [],
      ...optional("defaultFlow", attribute(el, "default")?.trim()),
      ...optional("io", this.io(el, containerId)),
      ...optional("loop", this.#loop(el, containerId)),
    };
    if (TASK_KINDS.has(kind)) {
      const script = bpmnChild(el, "script");
      return {
        ...optional("resultVariable", this.#resultVariable(el, kind)),
        ...activity,
        kind: kind as TaskKind,
        instantiate: booleanAttribute(ctx, el, "instantiate", false),
        ...optional("implementation", attribute(el, "implementation")?.trim()),
        ...optional("messageRef", attribute(el, "messageRef")?.trim()),
        ...optional("operationRef", attribute(el, "operationRef")?.trim()),
        ...optional("scriptFormat", attribute(el, "scriptFormat")?.trim()),
        ...optional("script", script ? textExpression(ctx.source, script) : undefined),
      };
    }
    if (SUB_PROCESS_KINDS.has(kind)) {
      const written = attribute(el, "ordering")?.trim();
      const ordering = written === "Parallel" || written === "Sequential" ? written : undefined;
      return {
        ...activity,
        kind: kind as SubProcessKind,
        triggeredByEvent: booleanAttribute(ctx, el, "triggeredByEvent", false),
        content: this.container(el, base.id),
        cancelRemainingInstances: booleanAttribute(ctx, el, "cancelRemainingInstances", true),
        ...optional("completionCondition", this.#childExpression(el, "completionCondition")),
        ...optional<"ordering", "Parallel" | "Sequential">("ordering", ordering),
        ...optional("method", attribute(el, "method")?.trim()),
      };
    }
    const called = attribute(el, "calledElement")?.trim();
    return {
      ...activity,
      kind: "callActivity",
      ...optional("calledElement", called),
      ...optional("calledNamespace", qnameNamespace(el, called)),
    };
  }

  /**
   * `q:resultVariable` (script tasks): an attribute on a BPMN element, so the
   * q: schema check never sees it and the loader checks it here.
   */
  #resultVariable(el: XmlElement, kind: FlowNodeKind): string | undefined {
    const written = attribute(el, "resultVariable", Q_NAMESPACE);
    if (written === undefined) return undefined;
    const name = written.trim();
    if (kind !== "scriptTask") {
      this.#ctx.report(
        "SUTRA.CONFIG.BPMN.Q_NOT_APPLICABLE",
        `q:resultVariable has no meaning on <${el.name}>: only script tasks have a result variable`,
        el,
        { attributes: { element: "q:resultVariable", host: kind } },
      );
      return undefined;
    }
    if (!VARIABLE_NAME.test(name)) {
      this.#ctx.report(
        "SUTRA.CONFIG.BPMN.VALUE_INVALID",
        `q:resultVariable="${written}" is not a variable name (a letter or underscore, then letters, digits or underscores)`,
        el,
        { attributes: { attribute: "q:resultVariable", value: written } },
      );
      return undefined;
    }
    return name;
  }

  #eventDefinitions(el: XmlElement): EventDefinition[] {
    const found: EventDefinition[] = [];
    for (const child of el.children) {
      if (child.uri !== BPMN_NAMESPACE) continue;
      if (EVENT_DEFINITIONS.has(child.local)) {
        found.push(this.#eventDefinition(child));
      } else if (child.local === "eventDefinitionRef") {
        const ref = child.text.trim();
        const shared = this.#sharedDefinitions.get(ref) ??
          this.#sharedDefinitions.get(ref.slice(ref.indexOf(":") + 1));
        if (shared) {
          found.push({ ...this.#eventDefinition(shared), line: child.line, column: child.column });
        } else {
          this.#ctx.report(
            "SUTRA.CONFIG.BPMN.REFERENCE_DANGLING",
            `eventDefinitionRef '${ref}' names no root-level event definition`,
            child,
            { attributes: { attribute: "eventDefinitionRef", ref } },
          );
        }
      }
    }
    return found;
  }

  #eventDefinition(el: XmlElement): EventDefinition {
    const base = { id: attribute(el, "id")?.trim() ?? "", line: el.line, column: el.column };
    const type = EVENT_DEFINITIONS.get(el.local)!;
    switch (type) {
      case "message":
        return {
          ...base,
          type,
          ...optional("messageRef", attribute(el, "messageRef")?.trim()),
          ...optional("operationRef", bpmnChild(el, "operationRef")?.text.trim()),
        };
      case "timer": {
        const form = (["timeDate", "timeDuration", "timeCycle"] as const).find((f) =>
          bpmnChild(el, f)
        );
        return {
          ...base,
          type,
          ...optional("form", form as TimerForm | undefined),
          ...optional("expression", form ? this.#expression(bpmnChild(el, form)!) : undefined),
        };
      }
      case "signal":
        return { ...base, type, ...optional("signalRef", attribute(el, "signalRef")?.trim()) };
      case "conditional":
        return { ...base, type, ...optional("condition", this.#childExpression(el, "condition")) };
      case "error":
        return { ...base, type, ...optional("errorRef", attribute(el, "errorRef")?.trim()) };
      case "escalation":
        return {
          ...base,
          type,
          ...optional("escalationRef", attribute(el, "escalationRef")?.trim()),
        };
      case "compensate":
        return {
          ...base,
          type,
          waitForCompletion: booleanAttribute(this.#ctx, el, "waitForCompletion", true),
          ...optional("activityRef", attribute(el, "activityRef")?.trim()),
        };
      case "link":
        return {
          ...base,
          type,
          sources: bpmnChildren(el, "source").map((s) => s.text.trim()).filter((s) => s),
          ...optional("linkName", attribute(el, "name")?.trim() || undefined),
          ...optional("target", bpmnChild(el, "target")?.text.trim() || undefined),
        };
      default:
        return { ...base, type };
    }
  }

  // Tokens are one per activation both ways; other counts would change what a model means.
  #checkQuantities(el: XmlElement): void {
    for (const name of ["startQuantity", "completionQuantity"]) {
      const value = attribute(el, name)?.trim();
      if (value === undefined || value === "1") continue;
      this.#ctx.report(
        "SUTRA.CONFIG.BPMN.ELEMENT_UNSUPPORTED",
        `${name}="${value}" on <${el.name}> is not supported: an activity starts on each token ` +
          "and sends one token down each outgoing flow",
        el,
        { attributes: { element: el.local, attribute: name } },
      );
    }
  }

  #loop(el: XmlElement, containerId: string): LoopCharacteristics | undefined {
    const ctx = this.#ctx;
    const standard = bpmnChild(el, "standardLoopCharacteristics");
    if (standard) {
      const maximumText = attribute(standard, "loopMaximum")?.trim();
      const maximum = maximumText === undefined ? undefined : Number(maximumText);
      if (maximum !== undefined && !(Number.isInteger(maximum) && maximum >= 0)) {
        ctx.report(
          "SUTRA.CONFIG.BPMN.VALUE_INVALID",
          `loopMaximum="${maximumText}" is not a non-negative integer`,
          standard,
          { attributes: { attribute: "loopMaximum", value: maximumText ?? "" } },
        );
      }
      return {
        type: "standard",
        line: standard.line,
        testBefore: booleanAttribute(ctx, standard, "testBefore", false),
        ...optional("condition", this.#childExpression(standard, "loopCondition")),
        ...optional(
          "maximum",
          maximum !== undefined && Number.isInteger(maximum) && maximum >= 0 ? maximum : undefined,
        ),
      };
    }
    const multi = bpmnChild(el, "multiInstanceLoopCharacteristics");
    if (!multi) return undefined;
    if (bpmnChild(multi, "complexBehaviorDefinition")) {
      ctx.report(
        "SUTRA.CONFIG.BPMN.ELEMENT_UNSUPPORTED",
        "<complexBehaviorDefinition> is not supported: multi-instance events are not thrown",
        bpmnChild(multi, "complexBehaviorDefinition")!,
        { attributes: { element: "complexBehaviorDefinition" } },
      );
    }
    const input = bpmnChild(multi, "inputDataItem");
    const output = bpmnChild(multi, "outputDataItem");
    return {
      type: "multiInstance",
      line: multi.line,
      isSequential: booleanAttribute(ctx, multi, "isSequential", false),
      ...optional("loopCardinality", this.#childExpression(multi, "loopCardinality")),
      ...optional("loopDataInputRef", bpmnChild(multi, "loopDataInputRef")?.text.trim()),
      ...optional("loopDataOutputRef", bpmnChild(multi, "loopDataOutputRef")?.text.trim()),
      ...optional(
        "inputDataItem",
        input ? this.#dataItem(input, "dataInput", containerId) : undefined,
      ),
      ...optional(
        "outputDataItem",
        output ? this.#dataItem(output, "dataOutput", containerId) : undefined,
      ),
      ...optional("completionCondition", this.#childExpression(multi, "completionCondition")),
    };
  }

  #association(el: XmlElement, containerId: string): DataAssociation {
    const id = this.#ctx.register(el, "other", { container: containerId, required: false });
    const transformation = bpmnChild(el, "transformation");
    return {
      id,
      line: el.line,
      column: el.column,
      sources: bpmnChildren(el, "sourceRef").map((s) => s.text.trim()).filter((s) => s),
      assignments: bpmnChildren(el, "assignment").map((a) => this.#assignment(a)),
      ...optional("target", bpmnChild(el, "targetRef")?.text.trim() || undefined),
      ...optional("transformation", transformation ? this.#expression(transformation) : undefined),
    };
  }

  #assignment(el: XmlElement): Assignment {
    return {
      line: el.line,
      ...optional("from", this.#childExpression(el, "from")),
      ...optional("to", this.#childExpression(el, "to")),
    };
  }
}

function push(map: Map<string, string[]>, key: string, value: string): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

function refSite(el: XmlElement, attribute: string): RefSite {
  return { ref: el.text.trim(), attribute, line: el.line, column: el.column };
}

/** `{ [key]: value }` when the value is defined, `{}` otherwise (exactOptionalPropertyTypes-safe). */
export function optional<K extends string, V>(
  key: K,
  value: V | undefined,
): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}
