/**
 * Plain task (`<bpmn:task>`): a data-assignment node. Its input
 * associations (`<assignment>` pairs, transformations, store reads) are
 * evaluated and set as variables (a sensitive input makes a sensitive
 * variable), its output associations run, and the token moves on. With a
 * `q:reply` the reply carries the data inputs.
 *
 * @module
 */
import { FeelContext, type FeelValue } from "../../../lang/feel/mod.ts";
import type { Behavior, Execution } from "../behavior.ts";
import type { Token } from "../state.ts";

/** Plain tasks. */
export const task: Behavior = {
  activate(x, token) {
    return assignInputs(x, token);
  },
};

/** Runs a data node: inputs become variables, then the node completes. */
export function assignInputs(x: Execution, token: Token): void | Promise<void> {
  const inputs = x.inputs(token);
  const go = (values: Map<string, FeelValue>) => {
    for (const [name, value] of values) {
      x.set(token, name, value);
      x.mark(name, x.classOf(token, [name]));
    }
    const replyBody = values.size === 0
      ? undefined
      : values.size === 1
      ? values.values().next().value!
      : new FeelContext(values);
    x.complete(token, undefined, { replyBody });
  };
  return inputs instanceof Promise ? inputs.then(go) : go(inputs);
}
