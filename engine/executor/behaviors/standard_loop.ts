/**
 * Standard loop: the activity runs again while the loop condition holds,
 * at most `loopMaximum` times. With `testBefore` the condition is checked
 * before each run (so it may run zero times), otherwise after each run.
 * The condition sees `loopCounter`, the number of runs started so far.
 * Without a condition the activity runs once (or `loopMaximum` times when
 * a maximum is given).
 *
 * @module
 */
import { FeelContext, feelNumber } from "../../../lang/feel/mod.ts";
import type { PlanLoop } from "../../bpmn/mod.ts";
import type { Behavior, Execution } from "../behavior.ts";
import type { ScopeInstance, Token } from "../state.ts";
import { visible } from "../variables.ts";

type StandardLoop = Extract<PlanLoop, { type: "standard" }>;

/** The standard loop of an activity. */
export const standardLoop: Behavior = {
  activate(x, token) {
    const node = x.nodeOf(token);
    const body = x.openScope({
      kind: "loop",
      process: x.processOf(token).id,
      planScope: node.scope,
      parent: x.scope(token.scope),
      token,
      vars: new Map([["loopCounter", feelNumber(0)]]),
    });
    body.loopCount = 0;
    token.child = body.id;
    x.park(token, "child");
    next(x, token, body, node.loop as StandardLoop, true);
  },
  innerDone(x, token, run) {
    next(x, token, run, x.nodeOf(token).loop as StandardLoop, false);
  },
};

function next(
  x: Execution,
  token: Token,
  body: ScopeInstance,
  loop: StandardLoop,
  first: boolean,
): void {
  const count = body.loopCount ?? 0;
  if (loop.maximum !== undefined && count >= loop.maximum) return finish(x, token, body);
  // testBefore checks before every run; otherwise after every run.
  if ((loop.testBefore || !first) && !again(x, body, loop, count)) return finish(x, token, body);
  body.loopCount = count + 1;
  body.vars.set("loopCounter", feelNumber(count + 1));
  const inner = x.spawn(body, token.node);
  inner.inner = true;
}

function again(x: Execution, body: ScopeInstance, loop: StandardLoop, count: number): boolean {
  if (loop.condition) return x.testIn(loop.condition, new FeelContext(visible(x.state, body)));
  return loop.maximum !== undefined || count === 0;
}

function finish(x: Execution, token: Token, body: ScopeInstance): void {
  const log = body.compensation;
  x.closeScope(body);
  delete token.child;
  x.depart(token, undefined, log);
}
