/**
 * Exclusive gateway. Diverging: the first outgoing flow (in document order)
 * whose condition holds is taken; if none holds, the default flow; with no
 * default the instance fails (`SUTRA.RUNTIME.GATEWAY.NO_PATH`). A condition
 * that errors or yields null reads as false. Converging: every arriving
 * token passes on, one at a time — an exclusive merge does not wait.
 *
 * @module
 */
import type { FlowIndex } from "../../bpmn/mod.ts";
import type { Behavior } from "../behavior.ts";
import { ExecutorCode } from "../_failure.ts";

/** Exclusive (XOR) gateways. */
export const exclusiveGateway: Behavior = {
  activate(x, token) {
    const proc = x.processOf(token);
    const node = proc.nodes[token.node];
    const out = node.outgoing;
    if (out.length === 1 && proc.flows[out[0]].condition === undefined) {
      x.complete(token, undefined, { flows: out });
      return;
    }
    let chosen: FlowIndex | undefined;
    const ctx = x.context(token);
    for (const f of out) {
      const condition = proc.flows[f].condition;
      if (f === node.defaultFlow || condition === undefined) continue;
      if (x.testIn(condition, ctx)) {
        chosen = f;
        break;
      }
    }
    chosen ??= node.defaultFlow;
    if (chosen === undefined) {
      return x.fail(
        token,
        ExecutorCode.NO_PATH,
        `no condition of exclusive gateway '${node.id}' holds and it has no default flow`,
      );
    }
    x.complete(token, undefined, { flows: [chosen] });
  },
};
