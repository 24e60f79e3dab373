/**
 * Branching rules. A default flow must be one of the node's outgoing flows
 * (every process). In executable processes, every outgoing flow of a
 * diverging exclusive, inclusive or complex gateway needs a condition
 * unless it is the default, and an event-based gateway may only lead to
 * catch events or receive tasks.
 *
 * @module
 */
import type { FlowNode } from "../model.ts";
import { isEvent, isGateway } from "../model.ts";
import type { RuleContext } from "./context.ts";

const CONDITIONAL_GATEWAYS: ReadonlySet<string> = new Set([
  "exclusiveGateway",
  "inclusiveGateway",
  "complexGateway",
]);
const EVENT_GATEWAY_TRIGGERS: ReadonlySet<string> = new Set([
  "message",
  "timer",
  "signal",
  "conditional",
]);

/** Checks defaults, missing conditions and event-based gateway targets. */
export function checkGateways(ctx: RuleContext): void {
  for (const { node, container } of ctx.index.nodes.values()) {
    checkDefault(ctx, node);
    if (!ctx.executable(container.process) || !isGateway(node)) continue;
    if (CONDITIONAL_GATEWAYS.has(node.kind) && node.outgoing.length > 1) {
      for (const flowId of node.outgoing) {
        const flow = ctx.index.flows.get(flowId)?.flow;
        if (!flow || flow.id === node.defaultFlow || flow.condition?.text) continue;
        ctx.report(
          "SUTRA.CONFIG.BPMN.CONDITION_MISSING",
          `flow '${flow.id}' leaves ${node.kind} '${node.id}' without a condition and is not its default`,
          flow,
          { attributes: { flow: flow.id, gateway: node.id } },
        );
      }
    }
    if (node.kind === "eventBasedGateway") {
      for (const flowId of node.outgoing) {
        const target = ctx.index.nodes.get(ctx.index.flows.get(flowId)?.flow.targetRef ?? "")?.node;
        if (!target || isEventGatewayTarget(target)) continue;
        ctx.report(
          "SUTRA.CONFIG.BPMN.EVENT_GATEWAY_TARGET_INVALID",
          `event-based gateway '${node.id}' leads to ${target.kind} '${target.id}'; ` +
            "it may only lead to message, timer, signal or conditional catch events or receive tasks",
          target,
          { attributes: { gateway: node.id, target: target.id } },
        );
      }
    }
  }
}

function isEventGatewayTarget(node: FlowNode): boolean {
  if (node.kind === "receiveTask") return true;
  return isEvent(node) && node.kind === "intermediateCatchEvent" && node.definitions.length === 1 &&
    EVENT_GATEWAY_TRIGGERS.has(node.definitions[0].type);
}

function checkDefault(ctx: RuleContext, node: FlowNode): void {
  const defaultFlow = "defaultFlow" in node ? node.defaultFlow : undefined;
  if (defaultFlow === undefined || defaultFlow === "") return;
  const resolved = ctx.index.resolve(defaultFlow) ?? defaultFlow;
  if (!node.outgoing.includes(resolved)) {
    ctx.report(
      "SUTRA.CONFIG.BPMN.DEFAULT_NOT_OUTGOING",
      `default '${defaultFlow}' of ${node.kind} '${node.id}' is not one of its outgoing flows (${
        node.outgoing.join(", ") || "none"
      })`,
      node,
      { attributes: { node: node.id, default: defaultFlow } },
    );
    return;
  }
  const flow = ctx.index.flows.get(resolved)?.flow;
  if (flow?.condition?.text) {
    ctx.report(
      "SUTRA.CONFIG.BPMN.DEFAULT_HAS_CONDITION",
      `default flow '${flow.id}' has a condition, which is never evaluated`,
      flow,
      { severity: "WARNING", attributes: { flow: flow.id } },
    );
  }
}
