/**
 * Ad-hoc sub-process. Its enabled activities — those without incoming
 * flows (the plan's scope entries, in document order) — start when the
 * sub-process does: all at once (`ordering="Parallel"`, the default), or
 * one after another (`Sequential`): the next enabled activity starts when
 * the body has nothing left running, so each runs together with whatever
 * its flows lead to, alone. Flows inside the body are followed as anywhere
 * else.
 *
 * After each activity of the body completes, the `completionCondition`
 * (if any) is checked with the body's variables in view. When it holds, no
 * further enabled activity starts, and with `cancelRemainingInstances`
 * (the default) everything still running in the body is withdrawn and the
 * sub-process completes at once; without it the sub-process completes when
 * what is running (and what its flows lead to) has finished. Without a
 * condition, the sub-process completes when every enabled activity ran and
 * nothing is left.
 *
 * @module
 */
import { FeelContext } from "../../../lang/feel/mod.ts";
import type { FlowNodeKind, NodeIndex } from "../../bpmn/mod.ts";
import type { Behavior, Execution } from "../behavior.ts";
import type { ScopeInstance } from "../state.ts";
import { visible } from "../variables.ts";
import { closeBody, openBody } from "./_body.ts";

/** Ad-hoc sub-processes. */
export const adHocSubProcess: Behavior = {
  activate(x, token) {
    if (x.nodeOf(token).adHoc!.ordering === "Parallel") {
      openBody(x, token, "adHocSubProcess");
      return;
    }
    const body = openBody(x, token, "adHocSubProcess", 1);
    if (x.state.scopes.has(body.id)) body.adHocNext = 1;
  },
  innerCompleted(x, token, body, inner) {
    const adHoc = x.nodeOf(token).adHoc!;
    const condition = adHoc.completionCondition;
    if (condition === undefined || !isActivity(x.nodeOf(inner).kind)) return false;
    if (!x.testIn(condition, new FeelContext(visible(x.state, body)))) return false;
    if (adHoc.ordering === "Sequential") body.adHocNext = entriesOf(x, body).length;
    if (!adHoc.cancelRemainingInstances) return false;
    // `inner` has left its node; removing it may already end the body.
    x.absorb(inner);
    if (!x.state.scopes.has(body.id)) return true;
    x.clear(body);
    closeBody(x, token, body);
    return true;
  },
  childDone(x, token, child) {
    const entries = entriesOf(x, child);
    const next = child.adHocNext;
    if (next !== undefined && next < entries.length) {
      child.adHocNext = next + 1;
      x.spawn(child, entries[next]);
      return;
    }
    closeBody(x, token, child);
  },
};

function entriesOf(x: Execution, body: ScopeInstance): readonly NodeIndex[] {
  return x.process(body.process).scopes[body.planScope].entries;
}

// The condition is checked when activities complete, not events or gateways.
function isActivity(kind: FlowNodeKind): boolean {
  return !kind.endsWith("Event") && !kind.endsWith("Gateway");
}
