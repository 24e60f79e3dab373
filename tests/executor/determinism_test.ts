/** Determinism, listeners and the audit journal. */
import assert from "node:assert/strict";
import { ManualClock } from "../../engine/core/mod.ts";
import {
  createExecutor,
  encodeSnapshot,
  type ExecutionListener,
  step,
} from "../../engine/executor/mod.ts";
import { bpmn, fixturePlan, Instance, planOf } from "./harness.ts";
import { MemoryStore } from "./mini_runtime.ts";

Deno.test("the same plan, state and input give byte-identical state and identical effects", async () => {
  const plan = await fixturePlan("nested_scopes.bpmn");
  const ports = { clock: new ManualClock("2026-01-01T00:00:00Z"), store: new MemoryStore() };
  const start = {
    type: "start" as const,
    instanceId: "same",
    variables: { orders: ["A", "B", "C"] },
  };
  const a = await step(plan, undefined, start, ports);
  const b = await step(plan, undefined, start, ports);
  assert.deepEqual(encodeSnapshot(plan, a.state!), encodeSnapshot(plan, b.state!));
  assert.equal(JSON.stringify(a.effects), JSON.stringify(b.effects));
  const abort = [...a.state!.waits.values()].find((w) => w.purpose === "eventSubProcess")!;
  const before = encodeSnapshot(plan, a.state!);
  const input = { type: "message" as const, wait: abort.id, message: { payload: "stop" } };
  const c = await step(plan, a.state, input, ports);
  const d = await step(plan, a.state, input, ports);
  assert.deepEqual(encodeSnapshot(plan, c.state!), encodeSnapshot(plan, d.state!));
  assert.equal(JSON.stringify(c.effects), JSON.stringify(d.effects));
  assert.deepEqual(
    encodeSnapshot(plan, a.state!),
    before,
    "a step never changes the state it was given",
  );
});

const WAITING = bpmn(`
  <bpmn:startEvent id="s"/><bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="w"/>
  <bpmn:userTask id="w"><bpmn:extensionElements><q:source channel="c"/></bpmn:extensionElements></bpmn:userTask>
  <bpmn:sequenceFlow id="f2" sourceRef="w" targetRef="e"/><bpmn:endEvent id="e"/>`);

Deno.test("listeners hear the lifecycle in order; one that throws is reported and the step carries on", async () => {
  const heard: string[] = [];
  const record: ExecutionListener = {
    onInstanceStarted: () => heard.push("started"),
    onInstanceSuspended: () => heard.push("suspended"),
    onInstanceResumed: () => heard.push("resumed"),
    onInstanceCompleted: () => heard.push("completed"),
    onNodeEntered: (e) => heard.push(`enter ${e.node}`),
    onNodeLeft: (e) => heard.push(`leave ${e.node}`),
    onFlowTaken: (e) => heard.push(`flow ${e.flow}`),
  };
  const broken: ExecutionListener = {
    onInstanceStarted: () => {
      throw new Error("metrics backend down");
    },
  };
  const run = new Instance(await planOf(WAITING), { listeners: [record, broken] });
  const first = await run.start();
  await run.message("w", "ok");
  assert.deepEqual(heard, [
    "started",
    "enter s",
    "leave s",
    "flow f1",
    "enter w",
    "suspended",
    "resumed",
    "leave w",
    "flow f2",
    "enter e",
    "leave e",
    "completed",
  ]);
  assert.deepEqual(first.effects.diagnostics.map((d) => d.code), ["SUTRA.RUNTIME.LISTENER.FAILED"]);
});

Deno.test("audit journal: q:audit capture=full records nodes and flows with one sequence across steps", async () => {
  const run = new Instance(
    await planOf(WAITING.replace(
      `<bpmn:startEvent id="s"/>`,
      `<bpmn:extensionElements><q:audit capture="full"/></bpmn:extensionElements><bpmn:startEvent id="s"/>`,
    )),
  );
  await run.start();
  await run.message("w", "ok");
  const audit = run.all("audit");
  assert.deepEqual(audit.map((a) => a.seq), audit.map((_, i) => i + 1));
  assert.deepEqual(audit.map((a) => a.node ?? a.flow ?? "").filter((x) => x !== ""), [
    "s",
    "s",
    "f1",
    "w",
    "w",
    "f2",
    "e",
    "e",
  ]);
  const none = new Instance(
    await planOf(WAITING.replace(
      `<bpmn:startEvent id="s"/>`,
      `<bpmn:extensionElements><q:audit capture="none"/></bpmn:extensionElements><bpmn:startEvent id="s"/>`,
    )),
  );
  await none.start();
  assert.deepEqual(none.all("audit"), []);
});

Deno.test("createExecutor without listeners behaves like step", async () => {
  const plan = await planOf(WAITING);
  const clock = new ManualClock(0);
  const a = await createExecutor().step(plan, undefined, { type: "start", instanceId: "i" }, {
    clock,
  });
  const b = await step(plan, undefined, { type: "start", instanceId: "i" }, { clock });
  assert.deepEqual(encodeSnapshot(plan, a.state!), encodeSnapshot(plan, b.state!));
});
