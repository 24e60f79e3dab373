/**
 * Script task: evaluates its FEEL script with the variables and its data
 * inputs in view. The value is the task's result: output associations see
 * it as `result`; without output associations a context result is merged
 * into the variables entry by entry (so `{total: a + b}` sets `total`).
 * An evaluation error fails the instance (`SUTRA.RUNTIME.EXPRESSION.FAILED`).
 *
 * @module
 */
import type { FeelValue } from "../../../lang/feel/mod.ts";
import type { Behavior } from "../behavior.ts";

/** Script tasks (FEEL). */
export const scriptTask: Behavior = {
  activate(x, token) {
    const node = x.nodeOf(token);
    const inputs = x.inputs(token);
    const go = (values: Map<string, FeelValue>) => {
      const result = x.value(node.script!, token, values.size > 0 ? values : undefined);
      x.complete(token, result);
    };
    return inputs instanceof Promise ? inputs.then(go) : go(inputs);
  },
};
