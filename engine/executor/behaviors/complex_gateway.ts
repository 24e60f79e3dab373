/**
 * Complex gateway. Diverging: like an inclusive gateway (every flow whose
 * condition holds, else the default). Converging: arriving tokens wait
 * until the activation condition holds — it sees the variables plus
 * `arrived`, the number of incoming flows that have delivered a token (also
 * under BPMN's name for it, `activationCount`) — or,
 * without a condition, until every incoming flow has. Then one token per
 * arrived flow is merged and a single token continues. The gateway then
 * stays fired for the rest of the round: tokens still arriving on the other
 * incoming flows are absorbed, and the round ends (the gateway resets) once
 * every incoming flow has delivered or no token can reach the missing ones.
 *
 * @module
 */
import { feelNumber, type FeelValue } from "../../../lang/feel/mod.ts";
import type { PlanNode } from "../../bpmn/mod.ts";
import type { Behavior, Execution } from "../behavior.ts";
import type { Gate, ScopeInstance, Token } from "../state.ts";
import { divergeInclusive } from "./inclusive_gateway.ts";
import { joinedAt } from "./parallel_gateway.ts";

/** Complex gateways. */
export const complexGateway: Behavior = {
  activate(x, token) {
    const node = x.nodeOf(token);
    if (!node.join) {
      x.complete(token, undefined, { flows: divergeInclusive(x, token, node) });
      return;
    }
    x.park(token, "joined");
    step(x, node, x.scope(token.scope), joinedAt(x.state.tokens.values(), token));
  },
  settle(x, joined) {
    const node = x.nodeOf(joined[0]);
    const scope = x.scope(joined[0].scope);
    step(x, node, scope, joined);
  },
};

function step(x: Execution, node: PlanNode, scope: ScopeInstance, waiting: Token[]): void {
  const gate = scope.gates?.find((g) => g.node === node.index);
  if (gate) {
    absorbLate(x, scope, gate, waiting, node);
    return;
  }
  const firstPerFlow = new Map<number, Token>();
  for (const t of waiting) if (!firstPerFlow.has(t.arrival!)) firstPerFlow.set(t.arrival!, t);
  const join = node.join!;
  const arrived = feelNumber(firstPerFlow.size);
  const ready = node.activationCondition
    ? x.test(
      node.activationCondition,
      waiting[0],
      new Map<string, FeelValue>([["arrived", arrived], ["activationCount", arrived]]),
    )
    : join.incoming.every((f) => firstPerFlow.has(f));
  if (!ready) return;
  const merged = [...firstPerFlow.values()].sort((a, b) => a.id - b.id);
  const consumed = merged.map((t) => t.arrival!);
  for (const t of merged.slice(1)) x.absorb(t);
  if (consumed.length < join.incoming.length) {
    (scope.gates ??= []).push({ node: node.index, consumed });
  }
  x.complete(merged[0], undefined, { flows: divergeInclusive(x, merged[0], node) });
}

// After firing: absorb one late token per not-yet-served flow; reset when
// every flow was served or nothing can reach the rest.
function absorbLate(
  x: Execution,
  scope: ScopeInstance,
  gate: Gate,
  waiting: Token[],
  node: PlanNode,
): void {
  const late: Token[] = [];
  for (const t of waiting) {
    if (gate.consumed.includes(t.arrival!)) continue;
    gate.consumed.push(t.arrival!);
    late.push(t);
  }
  const join = node.join!;
  const missing = join.incoming.filter((f) => !gate.consumed.includes(f));
  const reachable = missing.some((f) => {
    const sources = join.upstream![join.incoming.indexOf(f)];
    for (const t of x.state.tokens.values()) {
      if (t.scope === scope.id && t.node !== node.index && sources.has(t.node)) return true;
    }
    return false;
  });
  if (missing.length === 0 || !reachable) {
    scope.gates = scope.gates!.filter((g) => g !== gate);
    if (scope.gates.length === 0) delete scope.gates;
  }
  // Last: absorbing the final token may complete the scope.
  for (const t of late) x.absorb(t);
}
