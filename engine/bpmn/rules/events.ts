/**
 * Event rules. In every process: each event definition must be legal where
 * it is used (BPMN's trigger/position table), events with several
 * definitions ("multiple" triggers) are not supported, and link throws
 * must pair with exactly one catch of the same name, and a compensation
 * start sits only where something can trigger it (the single compensation
 * handler of a sub-process that can complete). In executable
 * processes: a start event is triggered by a message or by a clock, never
 * both; throws that need a referenced error, escalation or signal name one;
 * a process has a start event.
 *
 * @module
 */
import type { EventDefinition, EventNode } from "../model.ts";
import { isEvent, linkName } from "../model.ts";
import type { ContainerEntry } from "../model_index.ts";
import type { RuleContext } from "./context.ts";

type Trigger = EventDefinition["type"] | "none";

// Which triggers each event position accepts, per BPMN 2.0 (section 10.5).
const TOP_START: ReadonlySet<Trigger> = new Set([
  "none",
  "message",
  "timer",
  "signal",
  "conditional",
]);
const EVENT_SUB_START: ReadonlySet<Trigger> = new Set([
  "message",
  "timer",
  "signal",
  "conditional",
  "error",
  "escalation",
  "compensate",
]);
const NESTED_START: ReadonlySet<Trigger> = new Set(["none"]);
const CATCH: ReadonlySet<Trigger> = new Set(["message", "timer", "signal", "conditional", "link"]);
const THROW: ReadonlySet<Trigger> = new Set([
  "none",
  "message",
  "signal",
  "escalation",
  "compensate",
  "link",
]);
const BOUNDARY: ReadonlySet<Trigger> = new Set([
  "message",
  "timer",
  "signal",
  "conditional",
  "error",
  "escalation",
  "compensate",
  "cancel",
]);
const END: ReadonlySet<Trigger> = new Set([
  "none",
  "message",
  "signal",
  "error",
  "escalation",
  "compensate",
  "cancel",
  "terminate",
]);

/** Checks every event of every process. */
export function checkEvents(ctx: RuleContext): void {
  for (const container of ctx.index.containers) {
    const links = new Map<string, EventNode[]>();
    const throws: EventNode[] = [];
    for (const node of container.content.nodes) {
      if (
        node.kind === "eventBasedGateway" &&
        (node.instantiate || node.eventGatewayType === "Parallel")
      ) {
        ctx.report(
          "SUTRA.CONFIG.BPMN.ELEMENT_UNSUPPORTED",
          `event-based gateway '${node.id}': ${
            node.instantiate ? "instantiating" : "parallel"
          } event-based gateways are not supported; start the process with start events`,
          node,
          { attributes: { node: node.id, element: "eventBasedGateway" } },
        );
      }
      if (node.kind === "receiveTask" && node.instantiate) {
        ctx.report(
          "SUTRA.CONFIG.BPMN.ELEMENT_UNSUPPORTED",
          `receive task '${node.id}': instantiate="true" is not supported; start the process ` +
            "with a message start event",
          node,
          { attributes: { node: node.id, element: "receiveTask", attribute: "instantiate" } },
        );
      }
      if (!isEvent(node)) continue;
      if (
        container.owner?.kind === "adHocSubProcess" &&
        (node.kind === "startEvent" || node.kind === "endEvent")
      ) {
        // BPMN 2.0.2 §10.3.5: an ad-hoc sub-process holds no start or end events.
        ctx.report(
          "SUTRA.CONFIG.BPMN.EVENT_DEFINITION_INVALID",
          `${node.kind} '${node.id}': an ad-hoc sub-process ('${container.id}') has no start or ` +
            "end events; its activities start as they are enabled",
          node,
          { attributes: { node: node.id, element: node.kind } },
        );
        continue;
      }
      checkPosition(ctx, container, node);
      const name = linkName(node);
      if (name !== undefined) {
        if (node.kind === "intermediateCatchEvent") {
          links.set(name, [...(links.get(name) ?? []), node]);
        } else if (node.kind === "intermediateThrowEvent") {
          throws.push(node);
        }
      }
      if (ctx.executable(container.process)) checkExecutable(ctx, node);
    }
    for (const [name, catches] of links) {
      for (const duplicate of catches.slice(1)) {
        ctx.report(
          "SUTRA.CONFIG.BPMN.LINK_DUPLICATE",
          `link catch '${duplicate.id}' reuses the link name '${name}' of '${catches[0].id}'`,
          duplicate,
          { attributes: { node: duplicate.id, link: name } },
        );
      }
    }
    for (const t of throws) {
      const name = linkName(t) ?? "";
      if (!links.has(name)) {
        ctx.report(
          "SUTRA.CONFIG.BPMN.LINK_UNMATCHED",
          `link throw '${t.id}' names link '${name}', which no catch event in '${container.id}' has`,
          t,
          { attributes: { node: t.id, link: name } },
        );
      }
    }
    if (
      !container.owner && ctx.executable(container.process) &&
      !container.content.nodes.some((n) => n.kind === "startEvent") &&
      !calledInFile(ctx, container.id)
    ) {
      // BPMN allows it (what no flow leads to starts), but channels bind to start events, so only a
      // call activity, perhaps in another file of the package, can run such a process.
      ctx.report(
        "SUTRA.CONFIG.BPMN.START_MISSING",
        `executable process '${container.id}' has no start event, so no channel can start it; ` +
          "only a call activity can run it",
        container.process,
        { severity: "WARNING", attributes: { process: container.id } },
      );
    }
  }
}

/** Whether a call activity of this file calls process `id` by its plain id. */
function calledInFile(ctx: RuleContext, id: string): boolean {
  return ctx.index.containers.some((c) =>
    c.content.nodes.some((n) =>
      n.kind === "callActivity" && n.calledElement !== undefined &&
      ctx.index.resolve(n.calledElement) === id
    )
  );
}

function allowedTriggers(container: ContainerEntry, node: EventNode): ReadonlySet<Trigger> {
  switch (node.kind) {
    case "startEvent":
      if (!container.owner) return TOP_START;
      return container.owner.triggeredByEvent ? EVENT_SUB_START : NESTED_START;
    case "intermediateCatchEvent":
      return CATCH;
    case "intermediateThrowEvent":
      return THROW;
    case "boundaryEvent":
      return BOUNDARY;
    case "endEvent":
      return END;
  }
}

function checkPosition(ctx: RuleContext, container: ContainerEntry, node: EventNode): void {
  if (node.definitions.length > 1 || node.parallelMultiple) {
    ctx.report(
      "SUTRA.CONFIG.BPMN.ELEMENT_UNSUPPORTED",
      `${node.kind} '${node.id}' has ${node.definitions.length} event definitions; ` +
        "multiple and parallel-multiple triggers are not supported",
      node,
      { attributes: { node: node.id, element: node.kind } },
    );
    return;
  }
  const trigger: Trigger = node.definitions[0]?.type ?? "none";
  if (trigger === "conditional" && node.kind === "startEvent" && !container.owner) {
    // Before the instance there are no variables for the condition to read, and nothing here
    // would evaluate it; an event sub-process's conditional start is supported.
    ctx.report(
      "SUTRA.CONFIG.BPMN.ELEMENT_UNSUPPORTED",
      `startEvent '${node.id}': a conditional start event of a process is not supported; start ` +
        "the process with a message, timer or signal start event",
      node,
      { attributes: { node: node.id, element: "startEvent", trigger } },
    );
    return;
  }
  const allowed = allowedTriggers(container, node);
  let reason = allowed.has(trigger)
    ? undefined
    : `a ${node.kind} here cannot have a ${trigger} trigger`;
  if (
    !reason && trigger === "cancel" && container.owner?.kind !== "transaction" &&
    !(node.kind === "boundaryEvent" &&
      ctx.index.nodes.get(node.attachedToRef ?? "")?.node.kind === "transaction")
  ) {
    reason = "cancel events belong to transactions";
  }
  if (!reason && trigger === "compensate" && node.kind === "startEvent") {
    const problem = compensationStartProblem(ctx, container);
    if (problem) {
      ctx.report(problem.code, `startEvent '${node.id}': ${problem.reason}`, node.definitions[0], {
        attributes: { node: node.id, trigger },
      });
    }
    return;
  }
  if (!reason) return;
  ctx.report(
    "SUTRA.CONFIG.BPMN.EVENT_DEFINITION_INVALID",
    `${node.kind} '${node.id}': ${reason}`,
    node.definitions[0] ?? node,
    { attributes: { node: node.id, trigger } },
  );
}

function checkExecutable(ctx: RuleContext, node: EventNode): void {
  const d = node.definitions[0];
  if (node.kind === "startEvent" && d?.type === "timer" && node.q.sources.length > 0) {
    ctx.report(
      "SUTRA.CONFIG.BPMN.START_TRIGGER_AMBIGUOUS",
      `start event '${node.id}' has both a q:source and a timer; a start is triggered by a message or by a clock`,
      node,
      { attributes: { node: node.id } },
    );
  }
  const throwing = node.kind === "endEvent" || node.kind === "intermediateThrowEvent";
  if (!d || !throwing) return;
  const missing = d.type === "error" && !d.errorRef
    ? "errorRef"
    : d.type === "escalation" && !d.escalationRef
    ? "escalationRef"
    : d.type === "signal" && !d.signalRef
    ? "signalRef"
    : undefined;
  if (missing) {
    ctx.report(
      "SUTRA.CONFIG.BPMN.REFERENCE_MISSING",
      `${node.kind} '${node.id}' throws a ${d.type} but names none (${missing})`,
      d,
      { attributes: { node: node.id, attribute: missing } },
    );
  }
}

/**
 * Why a compensation start (in event sub-process `container`) could never
 * run, or would compete with another handler of the same sub-process.
 */
function compensationStartProblem(
  ctx: RuleContext,
  container: ContainerEntry,
): { code: string; reason: string } | undefined {
  const esp = container.owner!;
  const host = ctx.index.nodes.get(esp.id)?.container;
  const owner = host?.owner;
  if (!host || !owner) {
    return {
      code: "SUTRA.CONFIG.BPMN.EVENT_DEFINITION_INVALID",
      reason: `a compensation event sub-process ('${esp.id}') belongs in a sub-process; ` +
        "a process is never compensated, so it would never run",
    };
  }
  if (owner.triggeredByEvent) {
    return {
      code: "SUTRA.CONFIG.BPMN.ELEMENT_UNSUPPORTED",
      reason: `a compensation event sub-process ('${esp.id}') inside event sub-process ` +
        `'${owner.id}' would never run: an event sub-process run is not compensated`,
    };
  }
  const first = host.content.nodes.find((n) =>
    n.kind === "subProcess" && n.triggeredByEvent &&
    n.content.nodes.some((s) => s.kind === "startEvent" && s.definitions[0]?.type === "compensate")
  );
  if (first && first.id !== esp.id) {
    return {
      code: "SUTRA.CONFIG.BPMN.COMPENSATION_HANDLER_AMBIGUOUS",
      reason: `sub-process '${owner.id}' already has compensation event sub-process ` +
        `'${first.id}'; it can have one compensation handler`,
    };
  }
  const outer = ctx.index.nodes.get(owner.id)?.container;
  const boundary = outer?.content.nodes.find((n) =>
    n.kind === "boundaryEvent" && n.attachedToRef === owner.id &&
    n.definitions[0]?.type === "compensate"
  );
  if (boundary) {
    return {
      code: "SUTRA.CONFIG.BPMN.COMPENSATION_HANDLER_AMBIGUOUS",
      reason: `sub-process '${owner.id}' has both compensation boundary '${boundary.id}' and ` +
        `compensation event sub-process '${esp.id}'; it can have one compensation handler`,
    };
  }
  return undefined;
}
