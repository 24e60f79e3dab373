/**
 * Failure paths end in a FAILED state carrying a SUTRA.* code and the node
 * — never an exception out of `step` — and inputs that do not apply are
 * refused with the state untouched.
 */
import assert from "node:assert/strict";
import { step } from "../../engine/executor/mod.ts";
import { ManualClock } from "../../engine/core/mod.ts";
import { bpmn, Instance, planOf } from "./harness.ts";

const clock = new ManualClock(0);

Deno.test("an expression error fails the instance at the node that evaluated it", async () => {
  const run = new Instance(
    await planOf(bpmn(`
    <bpmn:startEvent id="s"/><bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="calc"/>
    <bpmn:scriptTask id="calc" scriptFormat="feel"><bpmn:script>order.total * rate</bpmn:script></bpmn:scriptTask>
    <bpmn:sequenceFlow id="f2" sourceRef="calc" targetRef="e"/><bpmn:endEvent id="e"/>`)),
  );
  await run.start({ variables: { order: { total: 10 } } });
  assert.equal(run.status, "FAILED");
  const failure = run.state!.failure!;
  assert.equal(failure.code, "SUTRA.RUNTIME.EXPRESSION.FAILED");
  assert.equal(failure.node, "calc");
  assert.match(failure.message, /no variable named 'rate'/);
  assert.equal(failure.attributes!.expression, "order.total * rate");
});

Deno.test("an unhandled BPMN error fails the instance with the error code, and every wait is withdrawn", async () => {
  const run = new Instance(
    await planOf(bpmn(
      `
    <bpmn:startEvent id="s"/><bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="split"/>
    <bpmn:parallelGateway id="split"/>
    <bpmn:sequenceFlow id="f2" sourceRef="split" targetRef="wait"/>
    <bpmn:sequenceFlow id="f3" sourceRef="split" targetRef="boom"/>
    <bpmn:userTask id="wait"><bpmn:extensionElements><q:source channel="c"/></bpmn:extensionElements></bpmn:userTask>
    <bpmn:sequenceFlow id="f4" sourceRef="wait" targetRef="e"/><bpmn:endEvent id="e"/>
    <bpmn:endEvent id="boom"><bpmn:errorEventDefinition errorRef="Err"/></bpmn:endEvent>`,
      `<bpmn:error id="Err" errorCode="OUT_OF_STOCK"/>`,
    )),
  );
  const r = await run.start();
  assert.equal(run.status, "FAILED");
  assert.deepEqual(run.state!.failure, {
    code: "SUTRA.RUNTIME.ERROR.UNHANDLED",
    message: "BPMN error 'OUT_OF_STOCK' was not caught: error end event 'boom'",
    node: "boom",
    attributes: { errorCode: "OUT_OF_STOCK" },
  });
  assert.deepEqual(r.effects.waitsArmed, []);
  assert.equal(run.state!.waits.size, 0);
  assert.deepEqual(r.effects.audit.map((a) => [a.type, a.code]).at(-1), [
    "instance.failed",
    "SUTRA.RUNTIME.ERROR.UNHANDLED",
  ]);
});

Deno.test("a failing registered task (thrown, rejected, or no port at all) fails the instance at the task", async () => {
  const plan = await planOf(bpmn(`
    <bpmn:startEvent id="s"/><bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="charge"/>
    <bpmn:serviceTask id="charge" implementation="registered:charge"/>
    <bpmn:sequenceFlow id="f2" sourceRef="charge" targetRef="e"/><bpmn:endEvent id="e"/>`));
  const ports = [
    {
      run: () => {
        throw new Error("gateway down");
      },
    },
    { run: () => Promise.reject(new Error("gateway down")) },
    undefined,
  ];
  for (const tasks of ports) {
    const run = new Instance(plan, { ports: tasks ? { tasks } : {} });
    await run.start();
    assert.equal(run.status, "FAILED");
    assert.equal(run.state!.failure!.code, "SUTRA.RUNTIME.TASK.FAILED");
    assert.equal(run.state!.failure!.node, "charge");
  }
});

Deno.test("tokens that nothing can ever move fail the instance as stuck instead of parking forever", async () => {
  const run = new Instance(
    await planOf(bpmn(`
    <bpmn:startEvent id="s"/><bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="choose"/>
    <bpmn:exclusiveGateway id="choose" default="f3"/>
    <bpmn:sequenceFlow id="f2" sourceRef="choose" targetRef="join"><bpmn:conditionExpression>false</bpmn:conditionExpression></bpmn:sequenceFlow>
    <bpmn:sequenceFlow id="f3" sourceRef="choose" targetRef="join"/>
    <bpmn:parallelGateway id="join"/>
    <bpmn:sequenceFlow id="f4" sourceRef="join" targetRef="e"/><bpmn:endEvent id="e"/>`)),
  );
  await run.start();
  assert.equal(run.status, "FAILED");
  assert.deepEqual([run.state!.failure!.code, run.state!.failure!.node], [
    "SUTRA.RUNTIME.INSTANCE.STUCK",
    "join",
  ]);
});

Deno.test("refusals: a finished instance, an unknown wait, a start with a state, an unknown start node", async () => {
  const plan = await planOf(bpmn(`
    <bpmn:startEvent id="s"/><bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="wait"/>
    <bpmn:userTask id="wait"><bpmn:extensionElements><q:source channel="c"/></bpmn:extensionElements></bpmn:userTask>
    <bpmn:sequenceFlow id="f2" sourceRef="wait" targetRef="e"/><bpmn:endEvent id="e"/>`));
  const run = new Instance(plan);
  await run.start();
  const parked = run.state!;
  const unknown = await run.attempt({ type: "message", wait: 999, message: { payload: 1 } });
  assert.equal(unknown.refusal?.code, "SUTRA.RUNTIME.RESUME.WAIT_UNKNOWN");
  assert.equal(unknown.state, parked);
  const timerOnMessage = await run.attempt({ type: "timer", wait: run.wait("wait").id });
  assert.equal(timerOnMessage.refusal?.code, "SUTRA.RUNTIME.RESUME.WAIT_UNKNOWN");
  const restart = await run.attempt({ type: "start", instanceId: "x" });
  assert.equal(restart.refusal?.code, "SUTRA.RUNTIME.START.INVALID");
  await run.message("wait", "ok");
  const late = await run.attempt({ type: "cancel" });
  assert.equal(late.refusal?.code, "SUTRA.RUNTIME.INSTANCE.NOT_ACTIVE");
  const badStart = await step(plan, undefined, { type: "start", instanceId: "y", node: "wait" }, {
    clock,
  });
  assert.equal(badStart.refusal?.code, "SUTRA.RUNTIME.START.INVALID");
  assert.equal(badStart.state, undefined);
});

Deno.test("cancel: the instance is TERMINATED, its waits withdrawn and its aliases retired", async () => {
  const run = new Instance(
    await planOf(bpmn(`
    <bpmn:startEvent id="s"><bpmn:extensionElements><q:source channel="in"/><q:alias name="ref" expression="payload.ref"/></bpmn:extensionElements></bpmn:startEvent>
    <bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="wait"/>
    <bpmn:userTask id="wait"><bpmn:extensionElements><q:source channel="c"/></bpmn:extensionElements></bpmn:userTask>
    <bpmn:sequenceFlow id="f2" sourceRef="wait" targetRef="e"/><bpmn:endEvent id="e"/>`)),
  );
  await run.start({ node: "s", message: { payload: { ref: "R-1" } } });
  const r = await run.step({ type: "cancel" });
  assert.equal(run.status, "TERMINATED");
  assert.equal(r.effects.waitsResolved.length, 1);
  assert.deepEqual(r.effects.aliasesRetired.map((a) => a.value), ["R-1"]);
  assert.equal(run.state!.tokens.size, 0);
});

Deno.test("a defect inside a step fails the instance from its previous state with SUTRA.RUNTIME.UNEXPECTED", async () => {
  const plan = await planOf(bpmn(`
    <bpmn:startEvent id="s"/><bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="wait"/>
    <bpmn:userTask id="wait"><bpmn:extensionElements><q:source channel="c"/></bpmn:extensionElements></bpmn:userTask>
    <bpmn:sequenceFlow id="f2" sourceRef="wait" targetRef="e"/><bpmn:endEvent id="e"/>`));
  const run = new Instance(plan);
  await run.start();
  const broken = {
    now: () => {
      throw new Error("clock unplugged");
    },
  };
  const before = run.state!;
  const r = await step(plan, before, {
    type: "message",
    wait: run.wait("wait").id,
    message: { payload: 1 },
  }, {
    clock: broken,
  });
  assert.equal(r.state!.status, "FAILED");
  assert.equal(r.state!.failure!.code, "SUTRA.RUNTIME.UNEXPECTED");
  assert.match(r.state!.failure!.message, /clock unplugged/);
  assert.equal(r.state!.tokens.size, before.tokens.size, "nothing of the failed step is kept");
  assert.equal(before.status, "WAITING", "the caller's state is not changed");
});

Deno.test("a cycle with no wait state fails the instance at the step limit instead of running forever", async () => {
  const run = new Instance(
    await planOf(bpmn(`
    <bpmn:startEvent id="s"/><bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="spin"/>
    <bpmn:task id="spin"/>
    <bpmn:sequenceFlow id="again" sourceRef="spin" targetRef="spin"/>`)),
  );
  await run.start();
  assert.equal(run.status, "FAILED");
  assert.equal(run.state!.failure?.code, "SUTRA.RUNTIME.STEP.LIMIT");
  assert.equal(run.state!.failure?.node, "spin");
});
