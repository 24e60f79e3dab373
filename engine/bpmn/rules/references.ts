/**
 * Every id reference must name an element of the right kind: flows connect
 * nodes of their own container, boundary events sit on activities of their
 * own container, event definitions name messages, signals, errors and
 * escalations that exist, data associations name data elements, and so on.
 * These checks apply to every process: a broken reference is a broken file.
 *
 * @module
 */
import type { DataAssociation, FlowNode, IdKind, RefSite } from "../model.ts";
import { isActivity, isEvent } from "../model.ts";
import type { ContainerEntry } from "../model_index.ts";
import type { RuleContext } from "./context.ts";

const FLOW_NODE_KINDS: ReadonlySet<IdKind> = new Set<IdKind>([
  "startEvent",
  "endEvent",
  "intermediateCatchEvent",
  "intermediateThrowEvent",
  "boundaryEvent",
  "task",
  "serviceTask",
  "sendTask",
  "receiveTask",
  "userTask",
  "manualTask",
  "businessRuleTask",
  "scriptTask",
  "subProcess",
  "transaction",
  "adHocSubProcess",
  "callActivity",
  "exclusiveGateway",
  "parallelGateway",
  "inclusiveGateway",
  "eventBasedGateway",
  "complexGateway",
]);
const ACTIVITY_KINDS: ReadonlySet<IdKind> = new Set<IdKind>(
  [...FLOW_NODE_KINDS].filter((k) => !k.endsWith("Event") && !k.endsWith("Gateway")),
);
const DATA_KINDS: ReadonlySet<IdKind> = new Set<IdKind>([
  "dataObject",
  "dataObjectReference",
  "dataStoreReference",
  "dataInput",
  "dataOutput",
  "property",
]);

interface At {
  readonly line: number;
  readonly column: number;
}

/** Checks every reference in the model. */
export function checkReferences(ctx: RuleContext): void {
  const { index } = ctx;
  const defs = index.definitions;

  /** Resolves `ref` and checks its kind; returns the resolved id when it passes. */
  const check = (
    ref: string | undefined,
    kinds: ReadonlySet<IdKind> | IdKind,
    at: At,
    attribute: string,
    options: { required?: boolean } = {},
  ): string | undefined => {
    if (ref === undefined || ref === "") {
      if (options.required) {
        ctx.report(
          "SUTRA.CONFIG.BPMN.REFERENCE_MISSING",
          `${attribute} is required here but not given`,
          at,
          { attributes: { attribute } },
        );
      }
      return undefined;
    }
    const id = index.resolve(ref);
    const entry = id === undefined ? undefined : defs.ids.get(id);
    if (id === undefined || entry === undefined) {
      ctx.report(
        "SUTRA.CONFIG.BPMN.REFERENCE_DANGLING",
        `${attribute} '${ref}' names nothing in this file`,
        at,
        { attributes: { attribute, ref } },
      );
      return undefined;
    }
    const allowed = typeof kinds === "string" ? new Set([kinds]) : kinds;
    if (!allowed.has(entry.kind)) {
      ctx.report(
        "SUTRA.CONFIG.BPMN.REFERENCE_WRONG_KIND",
        `${attribute} '${ref}' names ${
          entry.kind === "other" ? "an element of another kind" : `a ${entry.kind}`
        } (line ${entry.line}), expected ${[...allowed].slice(0, 4).join(" or ")}${
          allowed.size > 4 ? " …" : ""
        }`,
        at,
        { attributes: { attribute, ref, kind: entry.kind } },
      );
      return undefined;
    }
    return id;
  };

  for (const container of index.containers) {
    checkContainer(ctx, container, check);
  }
  for (const collaboration of defs.collaborations) {
    for (const p of collaboration.participants) check(p.processRef, "process", p, "processRef");
    for (const f of collaboration.messageFlows) {
      check(f.sourceRef, anyKind(defs.ids), f, "sourceRef", { required: true });
      check(f.targetRef, anyKind(defs.ids), f, "targetRef", { required: true });
      check(f.messageRef, "message", f, "messageRef");
    }
  }
  for (const m of defs.messages) check(m.itemRef, "itemDefinition", m, "itemRef");
  for (const s of defs.dataStores) check(s.itemSubjectRef, "itemDefinition", s, "itemSubjectRef");
}

type Check = (
  ref: string | undefined,
  kinds: ReadonlySet<IdKind> | IdKind,
  at: At,
  attribute: string,
  options?: { required?: boolean },
) => string | undefined;

function anyKind(ids: ReadonlyMap<string, { kind: IdKind }>): ReadonlySet<IdKind> {
  return new Set([...ids.values()].map((e) => e.kind));
}

function checkContainer(ctx: RuleContext, container: ContainerEntry, check: Check): void {
  const { index } = ctx;
  const content = container.content;
  for (const flow of content.flows) {
    for (const [attribute, ref] of [["sourceRef", flow.sourceRef], ["targetRef", flow.targetRef]]) {
      const id = check(ref, FLOW_NODE_KINDS, flow, attribute, { required: true });
      const owner = id === undefined ? undefined : index.nodes.get(id)?.container;
      if (owner && owner.id !== container.id) {
        ctx.report(
          "SUTRA.CONFIG.BPMN.FLOW_CROSSES_SCOPE",
          `sequence flow '${flow.id}' connects '${ref}' inside '${owner.id}' from '${container.id}'; ` +
            "sequence flows stay within one process or sub-process",
          flow,
          { attributes: { flow: flow.id, [attribute]: ref } },
        );
      }
    }
  }
  for (const node of content.nodes) checkNode(ctx, container, node, check);
  for (const ref of content.dataObjectReferences) {
    check(ref.dataObjectRef, "dataObject", ref, "dataObjectRef", { required: true });
  }
  for (const ref of content.dataStoreReferences) {
    check(ref.dataStoreRef, "dataStore", ref, "dataStoreRef");
  }
  for (const a of content.associations) {
    check(a.sourceRef, anyKind(index.definitions.ids), a, "sourceRef", { required: true });
    check(a.targetRef, anyKind(index.definitions.ids), a, "targetRef", { required: true });
  }
  const lanes = [...content.lanes];
  while (lanes.length > 0) {
    const lane = lanes.pop()!;
    lanes.push(...lane.childLanes);
    for (const site of lane.flowNodeRefs) check(site.ref, FLOW_NODE_KINDS, site, "flowNodeRef");
  }
  for (const d of content.dataObjects) {
    check(d.itemSubjectRef, "itemDefinition", d, "itemSubjectRef");
  }
}

/**
 * Whether a compensation thrown in `from` can name an activity of `to`: its own container's, or,
 * thrown in an event sub-process, those of the scope the event sub-process belongs to.
 */
function compensationReaches(
  index: RuleContext["index"],
  from: ContainerEntry,
  to: ContainerEntry,
): boolean {
  if (to.id === from.id) return true;
  if (!from.owner?.triggeredByEvent) return false;
  return index.nodes.get(from.owner.id)?.container.id === to.id;
}

function checkNode(
  ctx: RuleContext,
  container: ContainerEntry,
  node: FlowNode,
  check: Check,
): void {
  const { index } = ctx;
  for (const site of node.declaredFlowRefs) checkFlowRef(check, site);
  for (const a of node.dataInputAssociations) checkAssociation(check, a, node.id, "target");
  for (const a of node.dataOutputAssociations) checkAssociation(check, a, node.id, "source");
  if (isEvent(node)) {
    if (node.kind === "boundaryEvent") {
      const id = check(node.attachedToRef, ACTIVITY_KINDS, node, "attachedToRef", {
        required: true,
      });
      const host = id === undefined ? undefined : index.nodes.get(id);
      if (host && host.container.id !== container.id) {
        ctx.report(
          "SUTRA.CONFIG.BPMN.FLOW_CROSSES_SCOPE",
          `boundary event '${node.id}' is attached to '${id}', which sits in '${host.container.id}'`,
          node,
          { attributes: { node: node.id, attachedToRef: id! } },
        );
      }
    }
    for (const d of node.definitions) {
      if (d.type === "message") check(d.messageRef, "message", d, "messageRef");
      if (d.type === "signal") check(d.signalRef, "signal", d, "signalRef");
      if (d.type === "error") check(d.errorRef, "error", d, "errorRef");
      if (d.type === "escalation") check(d.escalationRef, "escalation", d, "escalationRef");
      if (d.type === "compensate") {
        const id = check(d.activityRef, ACTIVITY_KINDS, d, "activityRef");
        const target = id === undefined ? undefined : index.nodes.get(id);
        if (target && !compensationReaches(index, container, target.container)) {
          ctx.report(
            "SUTRA.CONFIG.BPMN.FLOW_CROSSES_SCOPE",
            `'${node.id}' compensates '${id}', which sits in '${target.container.id}': a ` +
              `compensation throw names an activity of its own process or sub-process ('${container.id}')`,
            d,
            { attributes: { node: node.id, activityRef: id! } },
          );
        }
      }
    }
    return;
  }
  if (!isActivity(node)) return;
  for (
    const item of [...node.properties, ...(node.io?.inputs ?? []), ...(node.io?.outputs ?? [])]
  ) {
    check(
      item.itemSubjectRef,
      "itemDefinition",
      { line: item.line, column: node.column },
      "itemSubjectRef",
    );
  }
  if (node.loop?.type === "multiInstance") {
    const at = { line: node.loop.line, column: node.column };
    check(node.loop.loopDataInputRef, DATA_KINDS, at, "loopDataInputRef");
    check(node.loop.loopDataOutputRef, DATA_KINDS, at, "loopDataOutputRef");
  }
  if (node.kind === "callActivity" && node.calledElement) {
    // A called element outside this file (a plain id this file lacks, or a
    // QName bound to another namespace) is resolved when the package is
    // assembled; one inside it must be a process.
    const here = node.calledNamespace === undefined ||
      node.calledNamespace === index.definitions.targetNamespace;
    const id = here ? index.resolve(node.calledElement) : undefined;
    const entry = id === undefined ? undefined : index.definitions.ids.get(id);
    if (entry && entry.kind !== "process") {
      ctx.report(
        "SUTRA.CONFIG.BPMN.ELEMENT_UNSUPPORTED",
        `call activity '${node.id}' calls '${node.calledElement}', a ${
          entry.kind === "globalTask" ? "global task" : entry.kind
        }; only processes can be called`,
        node,
        { attributes: { node: node.id, calledElement: node.calledElement } },
      );
    }
  }
  if ("messageRef" in node) check(node.messageRef, "message", node, "messageRef");
  if ("operationRef" in node) check(node.operationRef, "operation", node, "operationRef");
}

function checkFlowRef(check: Check, site: RefSite): void {
  check(site.ref, "sequenceFlow", site, site.attribute);
}

/**
 * Data association ends must be data elements, except the end on the
 * activity's own side, which several modelers write as the activity's id.
 */
function checkAssociation(
  check: Check,
  a: DataAssociation,
  host: string,
  hostSide: "source" | "target",
): void {
  for (const source of a.sources) {
    if (!(hostSide === "source" && source === host)) check(source, DATA_KINDS, a, "sourceRef");
  }
  if (!(hostSide === "target" && a.target === host)) check(a.target, DATA_KINDS, a, "targetRef");
}
