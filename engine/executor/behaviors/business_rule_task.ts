/**
 * Business-rule task: evaluates a DMN decision (`file.dmn#decisionId`) or
 * an .srl ruleset (`file.srl`) through the decision port, with the visible
 * variables and the task's data inputs as input. The named outputs are the
 * result: merged into the variables, or seen as `result` by output
 * associations. A failed evaluation fails the instance with
 * `SUTRA.RUNTIME.TASK.FAILED` naming the cause.
 *
 * @module
 */
import { FeelContext, type FeelValue, fromJs } from "../../../lang/feel/mod.ts";
import type { Behavior, Execution } from "../behavior.ts";
import type { DecisionOutcome } from "../ports.ts";
import type { Token } from "../state.ts";
import { visible } from "../variables.ts";
import { ExecutorCode } from "../_failure.ts";
import { errorMessage } from "../../core/errors.ts";

/** Business-rule tasks. */
export const businessRuleTask: Behavior = {
  activate(x, token) {
    const node = x.nodeOf(token);
    const impl = node.implementation;
    if (impl?.kind !== "decision") {
      return x.fail(
        token,
        ExecutorCode.TASK_FAILED,
        `business-rule task '${node.id}' names no decision`,
      );
    }
    const port = x.ports.decisions;
    if (!port) {
      return x.fail(
        token,
        ExecutorCode.TASK_FAILED,
        `no decision port to evaluate '${impl.source}'`,
      );
    }
    const inputs = x.inputs(token);
    const go = (values: Map<string, FeelValue>): void | Promise<void> => {
      let outcome: DecisionOutcome | Promise<DecisionOutcome>;
      try {
        outcome = port.evaluate({
          source: impl.source,
          ...(impl.decision === undefined ? {} : { decision: impl.decision }),
          inputs: visible(x.state, x.scope(token.scope), values),
        });
      } catch (e) {
        return failed(
          x,
          token,
          ExecutorCode.TASK_FAILED,
          errorMessage(e),
        );
      }
      return outcome instanceof Promise
        ? outcome.then((o) => done(x, token, o), (e) => {
          failed(x, token, ExecutorCode.TASK_FAILED, errorMessage(e));
        })
        : done(x, token, outcome);
    };
    return inputs instanceof Promise ? inputs.then(go) : go(inputs);
  },
};

function done(x: Execution, token: Token, outcome: DecisionOutcome): void {
  if ("failure" in outcome) failed(x, token, outcome.failure.code, outcome.failure.message);
  const entries = new Map<string, FeelValue>();
  for (const [k, v] of Object.entries(outcome.outputs)) entries.set(k, fromJs(v));
  x.complete(token, new FeelContext(entries));
}

function failed(x: Execution, token: Token, cause: string, message: string): never {
  const node = x.nodeOf(token);
  return x.fail(
    token,
    ExecutorCode.TASK_FAILED,
    `decision of '${node.id}' failed: ${message}`,
    { cause },
  );
}
