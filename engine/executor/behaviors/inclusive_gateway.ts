/**
 * Inclusive gateway. Diverging: every outgoing flow whose condition holds
 * is taken; if none holds, the default flow; with neither the instance
 * fails (`SUTRA.RUNTIME.GATEWAY.NO_PATH`). Converging: arrived tokens wait
 * only for tokens that can still arrive. When every incoming flow has a
 * token the gateway fires at once; otherwise it fires once the step's
 * agenda has drained and no token of the scope instance sits on a node from
 * which a still-empty incoming flow can be reached but no flow that has a
 * token can (the plan precomputes those node sets). A token parked on a wait
 * upstream therefore holds the join, and a branch that was never started
 * does not.
 *
 * @module
 */
import type { FlowIndex, PlanNode } from "../../bpmn/mod.ts";
import type { Behavior, Execution } from "../behavior.ts";
import type { Token } from "../state.ts";
import { ExecutorCode } from "../_failure.ts";
import { joinedAt } from "./parallel_gateway.ts";

/** Inclusive (OR) gateways. */
export const inclusiveGateway: Behavior = {
  activate(x, token) {
    const node = x.nodeOf(token);
    if (!node.join) {
      x.complete(token, undefined, { flows: divergeInclusive(x, token, node) });
      return;
    }
    x.park(token, "joined");
    const waiting = joinedAt(x.state.tokens.values(), token);
    const arrived = new Set(waiting.map((t) => t.arrival));
    if (node.join.incoming.every((f) => arrived.has(f))) fire(x, node, waiting);
  },
  settle(x, joined) {
    const node = x.nodeOf(joined[0]);
    const join = node.join!;
    const arrived = new Set(joined.map((t) => t.arrival));
    const upstream = join.upstream!;
    const empty = upstream.filter((_, i) => !arrived.has(join.incoming[i]));
    const filled = upstream.filter((_, i) => arrived.has(join.incoming[i]));
    for (const t of x.state.tokens.values()) {
      if (t.scope !== joined[0].scope) continue;
      if (t.state === "joined" && t.node === node.index) continue;
      // A token that can also reach a flow that already has one does not hold the join (the
      // specification's rule): it would only bring a second token to that flow.
      if (empty.some((u) => u.has(t.node)) && !filled.some((u) => u.has(t.node))) return;
    }
    fire(x, node, joined);
  },
};

function fire(x: Execution, node: PlanNode, waiting: Token[]): void {
  const firstPerFlow = new Map<number, Token>();
  for (const t of waiting) if (!firstPerFlow.has(t.arrival!)) firstPerFlow.set(t.arrival!, t);
  const merged = [...firstPerFlow.values()].sort((a, b) => a.id - b.id);
  for (const t of merged.slice(1)) x.absorb(t);
  x.complete(merged[0], undefined, { flows: divergeInclusive(x, merged[0], node) });
}

/** Flows an inclusive or complex gateway takes: all that hold, else the default. */
export function divergeInclusive(x: Execution, token: Token, node: PlanNode): FlowIndex[] {
  const proc = x.processOf(token);
  const chosen: FlowIndex[] = [];
  const ctx = x.context(token);
  for (const f of node.outgoing) {
    const condition = proc.flows[f].condition;
    if (f === node.defaultFlow) continue;
    if (condition === undefined || x.testIn(condition, ctx)) chosen.push(f);
  }
  if (chosen.length === 0 && node.defaultFlow !== undefined) chosen.push(node.defaultFlow);
  if (chosen.length === 0) {
    x.fail(
      token,
      ExecutorCode.NO_PATH,
      `no condition of ${node.kind} '${node.id}' holds and it has no default flow`,
    );
  }
  return chosen;
}
