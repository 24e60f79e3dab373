import assert from "node:assert/strict";
import { bpmn, Instance, planOf } from "./harness.ts";

const EXCLUSIVE = bpmn(`
  <bpmn:startEvent id="start"/>
  <bpmn:sequenceFlow id="f1" sourceRef="start" targetRef="route"/>
  <bpmn:exclusiveGateway id="route" default="toSmall"/>
  <bpmn:sequenceFlow id="toBig" sourceRef="route" targetRef="big">
    <bpmn:conditionExpression>amount &gt; 100</bpmn:conditionExpression>
  </bpmn:sequenceFlow>
  <bpmn:sequenceFlow id="toHuge" sourceRef="route" targetRef="huge">
    <bpmn:conditionExpression>amount &gt; 1000</bpmn:conditionExpression>
  </bpmn:sequenceFlow>
  <bpmn:sequenceFlow id="toSmall" sourceRef="route" targetRef="small"/>
  <bpmn:task id="big"/><bpmn:task id="huge"/><bpmn:task id="small"/>
  <bpmn:sequenceFlow id="f2" sourceRef="big" targetRef="end"/>
  <bpmn:sequenceFlow id="f3" sourceRef="huge" targetRef="end"/>
  <bpmn:sequenceFlow id="f4" sourceRef="small" targetRef="end"/>
  <bpmn:endEvent id="end"/>`);

Deno.test("exclusive gateway: the first true condition in document order wins, else the default", async () => {
  const plan = await planOf(EXCLUSIVE);
  for (
    const [amount, taken] of [[5000, "big"], [150, "big"], [100, "small"], [-1, "small"]] as const
  ) {
    const run = new Instance(plan);
    await run.start({ variables: { amount } });
    assert.equal(run.status, "COMPLETED");
    assert.ok(run.completed.has(taken), `amount ${amount} goes to ${taken}`);
    assert.equal(["big", "huge", "small"].filter((n) => run.completed.has(n)).length, 1);
  }
});

Deno.test("exclusive gateway: a condition over a missing variable reads as false and takes the default", async () => {
  const run = new Instance(await planOf(EXCLUSIVE));
  await run.start();
  assert.equal(run.status, "COMPLETED");
  assert.ok(run.completed.has("small"));
});

Deno.test("exclusive gateway without a true condition or default fails the instance at the gateway", async () => {
  const run = new Instance(
    await planOf(bpmn(`
    <bpmn:startEvent id="s"/><bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="g"/>
    <bpmn:exclusiveGateway id="g"/>
    <bpmn:sequenceFlow id="a" sourceRef="g" targetRef="e1"><bpmn:conditionExpression>x = 1</bpmn:conditionExpression></bpmn:sequenceFlow>
    <bpmn:sequenceFlow id="b" sourceRef="g" targetRef="e2"><bpmn:conditionExpression>x = 2</bpmn:conditionExpression></bpmn:sequenceFlow>
    <bpmn:endEvent id="e1"/><bpmn:endEvent id="e2"/>`)),
  );
  await run.start({ variables: { x: 3 } });
  assert.equal(run.status, "FAILED");
  assert.equal(run.state!.failure!.code, "SUTRA.RUNTIME.GATEWAY.NO_PATH");
  assert.equal(run.state!.failure!.node, "g");
});

const PARALLEL = bpmn(`
  <bpmn:startEvent id="s"/><bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="fork"/>
  <bpmn:parallelGateway id="fork"/>
  <bpmn:sequenceFlow id="f2" sourceRef="fork" targetRef="a"/>
  <bpmn:sequenceFlow id="f3" sourceRef="fork" targetRef="b"/>
  <bpmn:sequenceFlow id="f4" sourceRef="fork" targetRef="c"/>
  <bpmn:scriptTask id="a" scriptFormat="feel"><bpmn:script>{a: 1}</bpmn:script></bpmn:scriptTask>
  <bpmn:receiveTask id="b"><bpmn:extensionElements><q:source channel="b" name="bv"/></bpmn:extensionElements></bpmn:receiveTask>
  <bpmn:intermediateCatchEvent id="c"><bpmn:timerEventDefinition><bpmn:timeDuration>PT1H</bpmn:timeDuration></bpmn:timerEventDefinition></bpmn:intermediateCatchEvent>
  <bpmn:sequenceFlow id="f5" sourceRef="a" targetRef="join"/>
  <bpmn:sequenceFlow id="f6" sourceRef="b" targetRef="join"/>
  <bpmn:sequenceFlow id="f7" sourceRef="c" targetRef="join"/>
  <bpmn:parallelGateway id="join"/>
  <bpmn:sequenceFlow id="f8" sourceRef="join" targetRef="after"/>
  <bpmn:scriptTask id="after" scriptFormat="feel"><bpmn:script>{seen: a + bv}</bpmn:script></bpmn:scriptTask>
  <bpmn:sequenceFlow id="f9" sourceRef="after" targetRef="e"/><bpmn:endEvent id="e"/>`);

Deno.test("parallel gateway: splits into every branch and joins once all of them arrived", async () => {
  const run = new Instance(await planOf(PARALLEL));
  await run.start();
  assert.equal(run.status, "WAITING");
  assert.deepEqual(run.waitingAt().sort(), ["b", "c"]);
  await run.fire("c");
  assert.equal(run.status, "WAITING");
  assert.ok(!run.completed.has("join"));
  await run.message("b", 41);
  assert.equal(run.status, "COMPLETED");
  assert.equal(run.vars.seen, 42);
  assert.equal(run.state!.tokens.size, 0);
});

const INCLUSIVE = bpmn(`
  <bpmn:startEvent id="s"/><bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="fork"/>
  <bpmn:inclusiveGateway id="fork" default="toC"/>
  <bpmn:sequenceFlow id="toA" sourceRef="fork" targetRef="a"><bpmn:conditionExpression>wantA</bpmn:conditionExpression></bpmn:sequenceFlow>
  <bpmn:sequenceFlow id="toB" sourceRef="fork" targetRef="b"><bpmn:conditionExpression>wantB</bpmn:conditionExpression></bpmn:sequenceFlow>
  <bpmn:sequenceFlow id="toC" sourceRef="fork" targetRef="c"/>
  <bpmn:task id="a"/>
  <bpmn:userTask id="b"><bpmn:extensionElements><q:source channel="b"/></bpmn:extensionElements></bpmn:userTask>
  <bpmn:task id="c"/>
  <bpmn:sequenceFlow id="fa" sourceRef="a" targetRef="join"/>
  <bpmn:sequenceFlow id="fb" sourceRef="b" targetRef="join"/>
  <bpmn:sequenceFlow id="fc" sourceRef="c" targetRef="join"/>
  <bpmn:inclusiveGateway id="join"/>
  <bpmn:sequenceFlow id="f9" sourceRef="join" targetRef="after"/>
  <bpmn:scriptTask id="after" scriptFormat="feel"><bpmn:script>{joins: if joins = null then 1 else joins + 1}</bpmn:script></bpmn:scriptTask>
  <bpmn:sequenceFlow id="f10" sourceRef="after" targetRef="e"/><bpmn:endEvent id="e"/>`);

Deno.test("inclusive gateway: takes every true branch; the join fires once, not waiting for branches never taken", async () => {
  const run = new Instance(await planOf(INCLUSIVE));
  await run.start({ variables: { wantA: true, wantB: false, joins: null } });
  assert.equal(run.status, "COMPLETED");
  assert.ok(run.completed.has("a") && !run.completed.has("b") && !run.completed.has("c"));
  assert.equal(run.vars.joins, 1);
});

Deno.test("inclusive join: waits for a taken branch parked upstream, then fires exactly once", async () => {
  const run = new Instance(await planOf(INCLUSIVE));
  await run.start({ variables: { wantA: true, wantB: true, joins: null } });
  assert.equal(run.status, "WAITING");
  assert.ok(run.completed.has("a") && !run.completed.has("join"));
  await run.message("b", "done");
  assert.equal(run.status, "COMPLETED");
  assert.equal(run.vars.joins, 1);
});

Deno.test("inclusive join: a token that can also reach a flow already holding one does not hold it", async () => {
  // The token parked at `w` can go on to either incoming flow of the join; one of them (fa) already
  // has a token, so BPMN's activation rule fires the join now, and again when `w`'s token arrives.
  const run = new Instance(
    await planOf(bpmn(`
    <bpmn:startEvent id="s"/><bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="fork"/>
    <bpmn:parallelGateway id="fork"/>
    <bpmn:sequenceFlow id="f2" sourceRef="fork" targetRef="a"/>
    <bpmn:sequenceFlow id="f3" sourceRef="fork" targetRef="w"/>
    <bpmn:userTask id="w"><bpmn:extensionElements><q:source channel="w"/></bpmn:extensionElements></bpmn:userTask>
    <bpmn:sequenceFlow id="f4" sourceRef="w" targetRef="route"/>
    <bpmn:exclusiveGateway id="route" default="toB"/>
    <bpmn:sequenceFlow id="toA" sourceRef="route" targetRef="a"><bpmn:conditionExpression>again</bpmn:conditionExpression></bpmn:sequenceFlow>
    <bpmn:sequenceFlow id="toB" sourceRef="route" targetRef="b"/>
    <bpmn:task id="a"/><bpmn:task id="b"/>
    <bpmn:sequenceFlow id="fa" sourceRef="a" targetRef="join"/>
    <bpmn:sequenceFlow id="fb" sourceRef="b" targetRef="join"/>
    <bpmn:inclusiveGateway id="join"/>
    <bpmn:sequenceFlow id="f9" sourceRef="join" targetRef="after"/>
    <bpmn:scriptTask id="after" scriptFormat="feel"><bpmn:script>{joins: if joins = null then 1 else joins + 1}</bpmn:script></bpmn:scriptTask>
    <bpmn:sequenceFlow id="f10" sourceRef="after" targetRef="e"/><bpmn:endEvent id="e"/>`)),
  );
  await run.start({ variables: { again: false, joins: null } });
  assert.equal(run.status, "WAITING");
  assert.equal(run.vars.joins, 1, "the join fired without waiting for w");
  await run.message("w", "done");
  assert.equal(run.status, "COMPLETED");
  assert.equal(run.vars.joins, 2);
});

Deno.test("inclusive gateway: no true condition takes the default flow", async () => {
  const run = new Instance(await planOf(INCLUSIVE));
  await run.start({ variables: { wantA: false, wantB: false, joins: null } });
  assert.ok(run.completed.has("c") && !run.completed.has("a"));
  assert.equal(run.status, "COMPLETED");
});

const EVENT_GATEWAY = bpmn(
  `
  <bpmn:startEvent id="s"/><bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="race"/>
  <bpmn:eventBasedGateway id="race"/>
  <bpmn:sequenceFlow id="f2" sourceRef="race" targetRef="answer"/>
  <bpmn:sequenceFlow id="f3" sourceRef="race" targetRef="timeout"/>
  <bpmn:sequenceFlow id="f4" sourceRef="race" targetRef="cancel"/>
  <bpmn:receiveTask id="answer"><bpmn:extensionElements><q:source channel="answers" name="reply"/></bpmn:extensionElements></bpmn:receiveTask>
  <bpmn:intermediateCatchEvent id="timeout"><bpmn:timerEventDefinition><bpmn:timeDuration>PT30M</bpmn:timeDuration></bpmn:timerEventDefinition></bpmn:intermediateCatchEvent>
  <bpmn:intermediateCatchEvent id="cancel"><bpmn:signalEventDefinition signalRef="Stop"/></bpmn:intermediateCatchEvent>
  <bpmn:sequenceFlow id="f5" sourceRef="answer" targetRef="e1"/><bpmn:endEvent id="e1"/>
  <bpmn:sequenceFlow id="f6" sourceRef="timeout" targetRef="e2"/><bpmn:endEvent id="e2"/>
  <bpmn:sequenceFlow id="f7" sourceRef="cancel" targetRef="e3"/><bpmn:endEvent id="e3"/>`,
  `<bpmn:signal id="Stop" name="stop"/>`,
);

Deno.test("event-based gateway: the first event wins, the others are withdrawn", async () => {
  const plan = await planOf(EVENT_GATEWAY);
  const answered = new Instance(plan);
  const r1 = await answered.start();
  assert.deepEqual(r1.effects.waitsArmed.map((w) => [w.node, w.kind, w.purpose]), [
    ["answer", "message", "gateway"],
    ["timeout", "timer", "gateway"],
    ["cancel", "signal", "gateway"],
  ]);
  const r2 = await answered.message("answer", { ok: true });
  assert.equal(answered.status, "COMPLETED");
  assert.deepEqual(answered.vars.reply, { ok: true });
  assert.ok(answered.completed.has("answer") && answered.completed.has("e1"));
  assert.deepEqual(r2.effects.waitsResolved.length, 3);

  const timedOut = new Instance(plan);
  await timedOut.start();
  await timedOut.fire("timeout");
  assert.ok(timedOut.completed.has("e2") && !timedOut.completed.has("answer"));

  const stopped = new Instance(plan);
  await stopped.start();
  await stopped.step({ type: "signal", name: "stop" });
  assert.ok(stopped.completed.has("e3"));
  assert.equal(stopped.state!.waits.size, 0);
});

export const COMPLEX = bpmn(`
  <bpmn:startEvent id="s"/><bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="fork"/>
  <bpmn:complexGateway id="fork" default="toC"/>
  <bpmn:sequenceFlow id="toA" sourceRef="fork" targetRef="a"><bpmn:conditionExpression>true</bpmn:conditionExpression></bpmn:sequenceFlow>
  <bpmn:sequenceFlow id="toB" sourceRef="fork" targetRef="b"><bpmn:conditionExpression>true</bpmn:conditionExpression></bpmn:sequenceFlow>
  <bpmn:sequenceFlow id="toC" sourceRef="fork" targetRef="c"/>
  <bpmn:userTask id="a"><bpmn:extensionElements><q:source channel="a"/></bpmn:extensionElements></bpmn:userTask>
  <bpmn:userTask id="b"><bpmn:extensionElements><q:source channel="b"/></bpmn:extensionElements></bpmn:userTask>
  <bpmn:task id="c"/>
  <bpmn:sequenceFlow id="fa" sourceRef="a" targetRef="vote"/>
  <bpmn:sequenceFlow id="fb" sourceRef="b" targetRef="vote"/>
  <bpmn:complexGateway id="vote"><bpmn:activationCondition>arrived &gt;= 1</bpmn:activationCondition></bpmn:complexGateway>
  <bpmn:sequenceFlow id="fv" sourceRef="vote" targetRef="after"/>
  <bpmn:scriptTask id="after" scriptFormat="feel"><bpmn:script>{fired: if fired = null then 1 else fired + 1}</bpmn:script></bpmn:scriptTask>
  <bpmn:sequenceFlow id="f9" sourceRef="after" targetRef="e"/><bpmn:endEvent id="e"/>`);

Deno.test("complex gateway: fires on its activation condition and absorbs the late token of the round", async () => {
  const run = new Instance(await planOf(COMPLEX));
  await run.start({ variables: { fired: null } });
  assert.ok(!run.completed.has("c"), "the default is taken only when no condition holds");
  assert.equal(run.status, "WAITING");
  await run.message("b", "first");
  assert.equal(run.vars.fired, 1);
  assert.equal(run.status, "WAITING");
  await run.message("a", "late");
  assert.equal(run.vars.fired, 1, "the late token does not fire the gateway again");
  assert.equal(run.status, "COMPLETED");
});

Deno.test("complex gateway: the activation condition may use BPMN's name, activationCount", async () => {
  const plan = await planOf(
    COMPLEX.replace("arrived &gt;= 1", "activationCount &gt;= 1"),
  );
  const run = new Instance(plan);
  await run.start({ variables: { fired: null } });
  await run.message("b", "first");
  assert.equal(run.vars.fired, 1);
});
