/**
 * Call activity: runs another process of the deployment inside this
 * instance, as a child scope with its own variables. The called process is
 * `calledElement`, or chosen by `q:dispatch` (the first case whose
 * condition holds; with no match the default, or the BPMN error
 * `SUTRA.RUNTIME.DISPATCH.NO_MATCH` when `onNoMatch="error"`).
 *
 * Variables in: the data input associations, evaluated in the caller, are
 * the called process's initial variables; without any, it starts with a
 * copy of every variable the caller sees. Variables out: the data output
 * associations, evaluated over the called process's variables, set the
 * caller's; without any, the variables the called process wrote or created
 * are copied back — never a value the caller passed in and the callee left
 * alone, which a parallel branch of the caller may have changed meanwhile.
 *
 * @module
 */
import type { FeelValue } from "../../../lang/feel/mod.ts";
import type { PlanNode } from "../../bpmn/mod.ts";
import type { Behavior, Execution } from "../behavior.ts";
import type { Token } from "../state.ts";
import { visible } from "../variables.ts";
import { ExecutorCode } from "../_failure.ts";

/** Call activities (and `q:dispatch`). */
export const callActivity: Behavior = {
  activate(x, token) {
    const node = x.nodeOf(token);
    const called = calledProcess(x, token, node);
    if (called === undefined) return;
    const proc = x.plan.processById.get(called);
    if (!proc) {
      return x.fail(
        token,
        ExecutorCode.CALL_UNKNOWN,
        `call activity '${node.id}' calls '${called}', which is not in the deployment`,
      );
    }
    const inputs = node.inputs.length > 0
      ? x.inputs(token)
      : new Map(visible(x.state, x.scope(token.scope)));
    const go = (vars: Map<string, FeelValue>) => {
      // Names passed in keep their sensitivity inside the called process.
      for (const name of vars.keys()) x.mark(name, x.classOf(token, [name]));
      const child = x.openScope({
        kind: "call",
        process: proc.id,
        planScope: 0,
        parent: x.scope(token.scope),
        token,
        vars,
      });
      token.child = child.id;
      x.park(token, "child");
      const entries = proc.scopes[0].entries.map((i) => proc.nodes[i]);
      const starts = entries.filter((n) => n.kind === "startEvent");
      if (starts.length === 0) {
        // No start event: everything the plan found no flow leading to starts at once.
        for (const n of entries) x.spawn(child, n.index);
        return;
      }
      const start = starts.find((n) => n.trigger === undefined || n.trigger.type === "none") ??
        starts[0];
      x.spawn(child, start.index);
    };
    return inputs instanceof Promise ? inputs.then(go) : go(inputs);
  },
  childDone(x, token, child) {
    const node = x.nodeOf(token);
    const log = child.compensation;
    x.closeScope(child);
    delete token.child;
    if (node.outputs.length === 0) {
      // Only what the called process wrote goes back: a value the caller
      // passed in and the callee left alone may be stale by now.
      const written = child.written;
      for (const [k, v] of child.vars) if (!written || written.has(k)) x.set(token, k, v);
      x.complete(token, undefined, { mapped: true, ...(log ? { log } : {}) });
      return;
    }
    x.complete(token, undefined, { overlay: child.vars, ...(log ? { log } : {}) });
  },
};

function calledProcess(x: Execution, token: Token, node: PlanNode): string | undefined {
  const dispatch = node.dispatch;
  if (!dispatch) return node.calledElement;
  const ctx = x.context(token);
  for (const c of dispatch.cases) if (x.testIn(c.when, ctx)) return c.calledElement;
  if (dispatch.onNoMatch === "default" && dispatch.default !== undefined) return dispatch.default;
  x.throwError(token, ExecutorCode.DISPATCH_NO_MATCH, `no q:case of '${node.id}' matches`);
  return undefined;
}
