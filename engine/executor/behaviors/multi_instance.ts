/**
 * Multi-instance activities. The body is a scope instance under the token;
 * each instance of the activity runs in a scope of its own holding
 * `loopCounter` (1-based), the input element (the collection item, when
 * the body iterates an input collection) and the output element. The body
 * holds `nrOfInstances`, `nrOfActiveInstances` and
 * `nrOfCompletedInstances`.
 *
 * The number of instances is the input collection's length or the
 * cardinality. Parallel bodies start every instance at once, sequential
 * ones one after another. After each instance the completion condition (if
 * any) is checked: when it holds the remaining instances are withdrawn.
 * When the body ends, the output elements, in instance order, are set as
 * the output collection and the token leaves the activity. Boundary events
 * sit on the whole body.
 *
 * @module
 */
import { FeelContext, feelNumber, type FeelValue } from "../../../lang/feel/mod.ts";
import type { PlanLoop, PlanNode } from "../../bpmn/mod.ts";
import type { Behavior, Execution } from "../behavior.ts";
import type { ScopeInstance, Token } from "../state.ts";
import { visible } from "../variables.ts";
import { ExecutorCode } from "../_failure.ts";

type MultiInstanceLoop = Extract<PlanLoop, { type: "multiInstance" }>;

/** The multi-instance body of an activity. */
export const multiInstance: Behavior = {
  activate(x, token) {
    const loop = x.nodeOf(token).loop as MultiInstanceLoop;
    if (!loop.inputCollectionIsInput) {
      const collection = loop.inputCollection === undefined
        ? undefined
        : x.lookup(token, loop.inputCollection) ?? null;
      return begin(x, token, collection);
    }
    const inputs = x.inputs(token);
    const go = (local: Map<string, FeelValue>) =>
      begin(x, token, local.get(loop.inputCollection!) ?? null);
    return inputs instanceof Promise ? inputs.then(go) : go(inputs);
  },
  innerDone(x, token, run) {
    const node = x.nodeOf(token);
    const loop = node.loop as MultiInstanceLoop;
    const body = x.scope(run.parent!);
    const mi = body.mi!;
    const index = Number(String(run.vars.get("loopCounter"))) - 1;
    if (loop.outputElement !== undefined) {
      mi.outputs[index] = run.vars.get(loop.outputElement) ?? null;
    }
    if (run.compensation?.length) {
      // A run's own entry keeps the run's variables (its loopCounter and items) for its handler.
      for (const entry of run.compensation) {
        if (entry.node === node.index && entry.process === body.process) {
          entry.vars = new Map([...run.vars, ...(entry.vars ?? [])]);
        }
      }
      (body.compensation ??= []).push(...run.compensation);
    }
    x.closeScope(run);
    body.live--;
    mi.active--;
    mi.completed++;
    counters(body);
    // The condition sees the finished instance's own variables (its loopCounter and output
    // element) over the body's counters.
    if (
      loop.completionCondition &&
      x.testIn(loop.completionCondition, new FeelContext(visible(x.state, run)))
    ) {
      x.clear(body);
      finish(x, token, body, loop);
      return;
    }
    if (mi.next < mi.total) {
      if (loop.sequential) startInstance(x, node, loop, body);
      return;
    }
    if (mi.active === 0) finish(x, token, body, loop);
  },
};

/** Opens the body and starts the instances: one per item of `collection`, else the cardinality. */
function begin(x: Execution, token: Token, collection: FeelValue | undefined): void {
  const node = x.nodeOf(token);
  const loop = node.loop as MultiInstanceLoop;
  const items = collection === undefined ? undefined : collectionOf(x, token, loop, collection);
  const total = items ? items.length : cardinalityOf(x, token, loop);
  const body = x.openScope({
    kind: "multiInstance",
    process: x.processOf(token).id,
    planScope: node.scope,
    parent: x.scope(token.scope),
    token,
  });
  body.mi = { total, next: 0, completed: 0, active: 0, outputs: new Array(total).fill(null) };
  if (items) body.mi.items = items;
  counters(body);
  token.child = body.id;
  x.park(token, "child");
  if (total === 0) {
    finish(x, token, body, loop);
    return;
  }
  const start = loop.sequential ? 1 : total;
  for (let k = 0; k < start; k++) startInstance(x, node, loop, body);
}

function collectionOf(
  x: Execution,
  token: Token,
  loop: MultiInstanceLoop,
  collection: FeelValue,
): FeelValue[] {
  if (Array.isArray(collection)) return collection;
  return x.fail(
    token,
    ExecutorCode.EXPRESSION,
    `input collection '${loop.inputCollection}' of '${x.nodeOf(token).id}' is not a list`,
  );
}

function cardinalityOf(x: Execution, token: Token, loop: MultiInstanceLoop): number {
  const id = x.nodeOf(token).id;
  if (!loop.cardinality) {
    return x.fail(
      token,
      ExecutorCode.EXPRESSION,
      `multi-instance '${id}' has neither a cardinality nor an input collection`,
    );
  }
  const n = Number(String(x.value(loop.cardinality, token)));
  if (Number.isInteger(n) && n >= 0) return n;
  return x.fail(token, ExecutorCode.EXPRESSION, `cardinality of '${id}' is not a whole number ≥ 0`);
}

function startInstance(
  x: Execution,
  node: PlanNode,
  loop: MultiInstanceLoop,
  body: ScopeInstance,
): void {
  const mi = body.mi!;
  const k = mi.next++;
  const vars = new Map<string, FeelValue>([["loopCounter", feelNumber(k + 1)]]);
  if (loop.inputElement !== undefined && mi.items) vars.set(loop.inputElement, mi.items[k]);
  if (loop.outputElement !== undefined) vars.set(loop.outputElement, null);
  const run = x.openScope({
    kind: "instance",
    process: body.process,
    planScope: body.planScope,
    parent: body,
    vars,
    counted: true,
  });
  mi.active++;
  counters(body);
  const inner: Token = x.spawn(run, node.index);
  inner.inner = true;
}

function counters(body: ScopeInstance): void {
  const mi = body.mi!;
  body.vars.set("nrOfInstances", feelNumber(mi.total));
  body.vars.set("nrOfActiveInstances", feelNumber(mi.active));
  body.vars.set("nrOfCompletedInstances", feelNumber(mi.completed));
}

function finish(x: Execution, token: Token, body: ScopeInstance, loop: MultiInstanceLoop): void {
  const outputs = body.mi!.outputs;
  const log = body.compensation;
  x.closeScope(body);
  delete token.child;
  if (loop.outputCollectionIsOutput) x.outputs(token, new Map([[loop.outputCollection!, outputs]]));
  else if (loop.outputCollection !== undefined) x.set(token, loop.outputCollection, outputs);
  x.depart(token, undefined, log);
}
