/**
 * Every FEEL expression a model holds, with what it is for and which node
 * evaluates it. Validation (syntax, paths, transient reads) and the planner
 * (compiled closures) walk this one list, so an expression kind added here
 * is checked and compiled everywhere at once.
 *
 * @module
 */
import type { Expression, FlowNode, Process } from "./model.ts";
import { isActivity, isEvent, isGateway } from "./model.ts";
import type { ModelIndex } from "./model_index.ts";
import { timerFeelExpression } from "./timer.ts";

/** What an expression is used for. */
export type ExpressionRole =
  | "condition"
  | "script"
  | "assignmentFrom"
  | "assignmentTo"
  | "transformation"
  | "alias"
  | "dedupKey"
  | "storeKey"
  | "dispatchCase"
  | "header"
  | "validatorPath"
  | "loopCondition"
  | "loopCardinality"
  | "completionCondition"
  | "activationCondition"
  | "conditionalEvent"
  | "timer"
  | "dataObjectValue";

/** One expression in context. */
export interface ExpressionSite {
  readonly expression: Expression;
  readonly role: ExpressionRole;
  readonly process: Process;
  /**
   * The flow node that evaluates the expression (a flow's condition is
   * evaluated when its source node completes). Absent for store keys, which
   * are evaluated by every node associated with the store reference, and
   * for data object initial values, evaluated when their scope starts. A
   * timer expression's node is the one whose entry arms the timer (a
   * boundary's activity, an event-based gateway, the sub-process around an
   * event sub-process); absent for an event sub-process of the process.
   */
  readonly node?: FlowNode;
  /** Data store reference id, for store keys. */
  readonly storeReference?: string;
  /** Names bound only at this site (`header` on intake, the source variable). */
  readonly localNames: readonly string[];
  /** True when the expression names a target to write instead of a value to read. */
  readonly isTarget: boolean;
}

/** Lists every expression of every process, in document order per process. */
export function collectExpressionSites(index: ModelIndex): ExpressionSite[] {
  const sites: ExpressionSite[] = [];
  for (const process of index.definitions.processes) {
    const add = (
      expression: Expression | undefined,
      role: ExpressionRole,
      node: FlowNode | undefined,
      extra: { localNames?: readonly string[]; storeReference?: string; isTarget?: boolean } = {},
    ) => {
      if (!expression) return;
      const site: { -readonly [K in keyof ExpressionSite]: ExpressionSite[K] } = {
        expression,
        role,
        process,
        localNames: extra.localNames ?? [],
        isTarget: extra.isTarget ?? false,
      };
      if (node) site.node = node;
      if (extra.storeReference !== undefined) site.storeReference = extra.storeReference;
      sites.push(site);
    };
    for (const { content } of index.containers.filter((c) => c.process === process)) {
      for (const flow of content.flows) {
        const source = index.nodes.get(flow.sourceRef)?.node;
        add(flow.condition, "condition", source);
      }
      for (const data of content.dataObjects) {
        for (const value of data.q.values) add(value.expression, "dataObjectValue", undefined);
      }
      for (const ref of content.dataStoreReferences) {
        for (const store of ref.q.stores) {
          add(store.key, "storeKey", undefined, { storeReference: ref.id });
        }
      }
    }
    for (const { node } of index.nodesOf(process)) {
      collectNodeSites(node, add);
      if (!isEvent(node)) continue;
      for (const definition of node.definitions) {
        // A timer written `=…` is FEEL, evaluated where the timer is armed.
        if (definition.type === "timer" && definition.expression) {
          add(timerFeelExpression(definition.expression), "timer", armingNode(index, node));
        }
      }
    }
  }
  return sites;
}

/**
 * The node whose entry arms a timer of `event`, so analyses of what a read
 * sees (transient variables after a wait) look at the right place: a
 * boundary's activity; the event-based gateway a branch follows; the
 * sub-process whose start arms an event sub-process's start (none at the
 * process level); otherwise the event itself.
 */
function armingNode(index: ModelIndex, event: FlowNode): FlowNode | undefined {
  if (event.kind === "boundaryEvent" && isEvent(event) && event.attachedToRef) {
    return index.nodes.get(event.attachedToRef)?.node ?? event;
  }
  for (const f of event.incoming) {
    const source = index.nodes.get(index.flows.get(f)?.flow.sourceRef ?? "")?.node;
    if (source?.kind === "eventBasedGateway") return source;
  }
  const owner = index.nodes.get(event.id)?.container.owner;
  if (event.kind === "startEvent" && owner?.triggeredByEvent) {
    return index.nodes.get(owner.id)?.container.owner;
  }
  return event;
}

type Add = (
  expression: Expression | undefined,
  role: ExpressionRole,
  node: FlowNode | undefined,
  extra?: { localNames?: readonly string[]; isTarget?: boolean },
) => void;

function collectNodeSites(node: FlowNode, add: Add): void {
  for (const association of [...node.dataInputAssociations, ...node.dataOutputAssociations]) {
    add(association.transformation, "transformation", node);
    for (const assignment of association.assignments) {
      add(assignment.from, "assignmentFrom", node);
      add(assignment.to, "assignmentTo", node, { isTarget: true });
    }
  }
  // On intake the transport headers and the decoded payload are in scope.
  for (const source of node.q.sources) {
    const intake = ["header", source.name];
    add(source.dedupKey, "dedupKey", node, { localNames: intake });
    for (const alias of source.aliases) {
      add(alias.expression, "alias", node, { localNames: intake });
    }
    for (const v of source.validators) {
      if (v.kind === "simple") add(v.path, "validatorPath", node, { localNames: intake });
    }
  }
  const intakeNames = node.q.sources.length > 0
    ? ["header", ...node.q.sources.map((s) => s.name)]
    : [];
  for (const alias of node.q.aliases) {
    add(alias.expression, "alias", node, { localNames: intakeNames });
  }
  for (const outbound of [...node.q.replies, ...node.q.sends]) {
    for (const header of outbound.headers) add(header.value, "header", node);
  }
  for (const dispatch of node.q.dispatches) {
    for (const c of dispatch.cases) add(c.when, "dispatchCase", node);
  }
  if (isEvent(node)) {
    for (const definition of node.definitions) {
      if (definition.type === "conditional") add(definition.condition, "conditionalEvent", node);
    }
  } else if (isGateway(node)) {
    add(node.activationCondition, "activationCondition", node, {
      localNames: ["arrived", "activationCount"],
    });
  } else if (isActivity(node)) {
    if (node.kind === "scriptTask") add(node.script, "script", node);
    if (node.kind === "adHocSubProcess") add(node.completionCondition, "completionCondition", node);
    const loop = node.loop;
    if (loop?.type === "standard") add(loop.condition, "loopCondition", node);
    if (loop?.type === "multiInstance") {
      const item = [loop.inputDataItem?.name, loop.inputDataItem?.id].filter((n): n is string =>
        !!n
      );
      add(loop.loopCardinality, "loopCardinality", node);
      add(loop.completionCondition, "completionCondition", node, {
        localNames: [
          ...item,
          "loopCounter",
          "nrOfInstances",
          "nrOfActiveInstances",
          "nrOfCompletedInstances",
        ],
      });
    }
  }
}
