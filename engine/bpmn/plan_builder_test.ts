import assert from "node:assert/strict";
import { evaluateBoolean } from "../../lang/feel/mod.ts";
import { loadBpmn } from "./load.ts";
import type { ExecutionPlan, ProcessPlan } from "./plan.ts";

const FIXTURE = new URL("../../tests/fixtures/bpmn/plan.bpmn", import.meta.url);

async function plan(): Promise<ExecutionPlan> {
  const result = await loadBpmn(await Deno.readFile(FIXTURE), { uri: "plan.bpmn" });
  assert.deepEqual(result.diagnostics, []);
  return result.plan!;
}

function node(p: ProcessPlan, id: string) {
  return p.nodes[p.nodeIndex.get(id)!];
}

function flow(p: ProcessPlan, id: string) {
  return p.flows[p.flowIndex.get(id)!];
}

Deno.test("channel subscriptions: starts, relays and event sub-process triggers", async () => {
  const { subscriptionsByChannel, subscriptions } = await plan();
  assert.deepEqual(
    subscriptions.map((s) => [s.channel, s.nodeId, s.role, s.inEventSubProcess]),
    [
      ["orders", "received", "start", false],
      ["approvals", "approve", "relay", false],
      ["cancellations", "cancelRequested", "relay", true],
    ],
  );
  const [orders] = subscriptionsByChannel.get("orders")!;
  assert.ok(orders.messageTypePattern!.test("OrderV2") && orders.messageTypePattern!.test("Order"));
  assert.ok(
    !orders.messageTypePattern!.test("OrderX") && !orders.messageTypePattern!.test("XOrder"),
  );
  assert.deepEqual(orders.dedupKey?.paths, ["header.X-Request-Id"]);
  assert.deepEqual(
    orders.aliases.map((a) => [a.name, a.expression.text, a.unique, a.onConflict]),
    [["orderId", "payload.id", true, "correlate"]],
  );
  const [approvals] = subscriptionsByChannel.get("approvals")!;
  assert.equal(approvals.variable, "decision");
});

Deno.test("joins, inclusive upstream sets, links and event sub-processes are precomputed", async () => {
  const p = (await plan()).processById.get("orders")!;
  const join = node(p, "join");
  assert.deepEqual(join.join, {
    kind: "parallel",
    incoming: [flow(p, "fromScore").index, flow(p, "fromLoad").index],
  });
  assert.equal(node(p, "choose").join, undefined, "a diverging gateway does not join");
  const merge = node(p, "merge").join!;
  assert.equal(merge.kind, "inclusive");
  const ids = (set: Iterable<number>) => [...set].map((i) => p.nodes[i].id).sort();
  assert.deepEqual(ids(merge.upstream![0]), [
    "choose",
    "join",
    "load",
    "notify",
    "received",
    "score",
    "split",
  ]);
  assert.deepEqual(ids(merge.upstream![1]), [
    "approve",
    "choose",
    "join",
    "jump",
    "land",
    "load",
    "received",
    "score",
    "split",
  ]);
  assert.equal(node(p, "jump").trigger?.linkTarget, node(p, "land").index);
  assert.equal(p.scopes[0].links.get("resume"), node(p, "land").index);
  assert.deepEqual(p.scopes[0].eventSubProcesses, [
    { scope: 1, start: node(p, "cancelRequested").index, interrupting: true },
  ]);
  assert.deepEqual([p.scopes[1].kind, p.scopes[1].parent, p.scopes[1].node], [
    "eventSubProcess",
    0,
    node(p, "onCancel").index,
  ]);
  assert.equal(node(p, "cancelled").trigger?.errorCode, "REJECTED");
  assert.deepEqual(p.scopes[0].entries, [node(p, "received").index]);
});

Deno.test("tasks carry implementation, policies, stores, dispatch, loops and compensation", async () => {
  const p = (await plan()).processById.get("orders")!;
  const score = node(p, "score");
  assert.deepEqual(score.implementation, { kind: "channel-call", channel: "scoring" });
  assert.deepEqual(
    [score.retry?.maxAttempts, score.retry?.maxDelayMillis, score.timeout?.durationMillis],
    [3, 60_000, 120_000],
  );
  const load = node(p, "load");
  assert.deepEqual(load.implementation, { kind: "data" });
  const store = load.inputs[0].store!;
  assert.deepEqual([store.reference, store.store, store.forUpdate, store.key.paths], [
    "ledgerRef",
    "ledger",
    true,
    ["payload.id"],
  ]);
  assert.deepEqual(load.boundaries, [node(p, "undo").index]);
  assert.equal(node(p, "undo").attachedTo, load.index);
  assert.equal(load.compensationHandler, node(p, "release").index);
  assert.equal(node(p, "release").isForCompensation, true);
  const route = node(p, "route");
  assert.deepEqual(route.dispatch?.cases.map((c) => c.calledElement), [
    "eu-fulfilment",
    "us-fulfilment",
  ]);
  assert.deepEqual([route.dispatch?.default, route.dispatch?.onNoMatch], ["fallback", "default"]);
  assert.equal(route.loop?.type === "multiInstance" && route.loop.sequential, true);
  assert.equal(route.loop?.type === "multiInstance" && route.loop.cardinality?.text, "2");
  assert.deepEqual(node(p, "notify").send?.headers.map((h) => [h.name, h.value.text]), [
    ["orderId", "payload.id"],
  ]);
  assert.deepEqual(node(p, "reply").reply, {
    mode: "native",
    continue: true,
    headers: [],
    contentType: "application/json",
  });
  assert.deepEqual(
    p.nodes.filter((n) => n.waitState).map((n) => n.id),
    ["score", "approve", "route", "reply"],
  );
});

Deno.test("process settings, coverage, schedules and compiled conditions", async () => {
  const full = await plan();
  const p = full.processById.get("orders")!;
  assert.deepEqual([p.idempotent, p.stateful, [...p.transient], [...p.sensitive]], [
    true,
    true,
    ["scratch"],
    ["card"],
  ]);
  assert.deepEqual(p.coverage, [{
    path: "approved",
    flows: [flow(p, "toApproval").index, flow(p, "afterApproval").index],
  }]);
  const choose = node(p, "choose");
  assert.equal(choose.defaultFlow, flow(p, "always").index);
  assert.equal(flow(p, "always").isDefault, true);
  const condition = flow(p, "toApproval").condition!;
  assert.equal(condition.line, 52);
  assert.equal(evaluateBoolean(condition.compiled, { payload: { total: 1500 } }).value, true);
  assert.equal(evaluateBoolean(condition.compiled, { payload: { total: 10 } }).value, false);
  assert.deepEqual(full.schedules.map((s) => [s.process, s.nodeId, s.timer]), [[
    "nightly",
    "midnight",
    {
      kind: "cycle",
      repetitions: null,
      intervalMillis: 86_400_000,
      startEpochMillis: Date.UTC(2026, 0, 1),
    },
  ]]);
  assert.equal(full.processById.get("nightly")!.stateful, false);
  assert.equal(full.errors.get("Rejected")?.code, "REJECTED");
});

Deno.test("the plan is deeply immutable", async () => {
  const full = await plan();
  const p = full.processById.get("orders")!;
  assert.throws(() => (full.processById as Map<string, ProcessPlan>).set("x", p), TypeError);
  assert.throws(() => (p.transient as Set<string>).add("x"), TypeError);
  assert.throws(() => (p.nodes as unknown[]).push({}), TypeError);
  assert.throws(() => {
    (p.nodes[0] as { id: string }).id = "changed";
  }, TypeError);
  assert.throws(() => {
    (p.nodes[0].outgoing as number[])[0] = 9;
  }, TypeError);
  assert.ok(Object.isFrozen(full.subscriptions[0].aliases[0].expression));
});

async function fixture(path: string): Promise<ProcessPlan> {
  const url = new URL(`../../tests/fixtures/${path}`, import.meta.url);
  const result = await loadBpmn(await Deno.readFile(url), { uri: path });
  assert.deepEqual(result.diagnostics, []);
  return result.plan!.processes[0];
}

Deno.test("ad-hoc sub-processes: settings with BPMN defaults, and entries in document order", async () => {
  const p = await fixture("bpmn/plan_ad_hoc.bpmn");
  const loose = node(p, "loose");
  assert.deepEqual(loose.adHoc, { ordering: "Parallel", cancelRemainingInstances: true });
  assert.deepEqual(
    p.scopes[loose.childScope!].entries.map((i) => p.nodes[i].id),
    ["second", "first"],
    "no flow leads to them; boundaries, compensation handlers and event sub-processes wait",
  );
  const strict = node(p, "strict").adHoc!;
  assert.equal(strict.ordering, "Sequential");
  assert.equal(strict.cancelRemainingInstances, false);
  assert.equal(strict.completionCondition?.text, "done = true");
  assert.deepEqual(strict.completionCondition?.paths, ["done"]);
});

Deno.test("script tasks carry q:resultVariable", async () => {
  const p = await fixture("executor/script_result.bpmn");
  assert.equal(node(p, "total").resultVariable, "total");
  assert.equal(node(p, "merge").resultVariable, undefined);
});

Deno.test("data associations carry the names behind their ids", async () => {
  const p = await fixture("executor/data_names.bpmn");
  const [input] = node(p, "price").inputs;
  assert.deepEqual(input.sources, ["DataObjectReference_1"]);
  assert.deepEqual(input.sourceNames, ["order"], "a reference stands for its data object");
  assert.equal(input.target, "DataInput_1");
  assert.equal(input.targetName, "amount");
  assert.equal(
    node(p, "price").outputs[0].targetName,
    "invoice",
    "an unnamed object: the reference's name",
  );
  const [archive] = node(p, "archive").outputs;
  assert.deepEqual([archive.sourceNames, archive.targetName], [["invoice"], "archived"]);
});

Deno.test("data objects belong to the scope that declares them, with their q:value", async () => {
  const p = await fixture("executor/data_objects.bpmn");
  const names = (scope: number) =>
    p.scopes[scope].dataObjects.map((d) => [d.name, d.value?.text ?? null]);
  assert.deepEqual(names(0), [
    ["limits", "{daily: 100}"],
    ["greeting", '"hello " + customer'],
    ["counter", "0"],
  ]);
  assert.deepEqual(names(node(p, "sub").childScope!), [
    ["draft", "limits.daily * 2"],
    ["scratch", null],
  ]);
});

Deno.test("complex joins carry upstream sets, links included", async () => {
  const p = await fixture("executor/complex_join_link.bpmn");
  const join = node(p, "join").join!;
  assert.equal(join.kind, "complex");
  const ids = (set: Iterable<number>) => [...set].map((i) => p.nodes[i].id).sort();
  assert.deepEqual(join.upstream!.map(ids), [
    ["s", "split"],
    ["first", "s", "split"],
    ["away", "back", "s", "second", "split"],
  ]);
});
