/**
 * Events in every legal position: start, intermediate catch and throw,
 * boundary (interrupting and not), end.
 */
import assert from "node:assert/strict";
import { bpmn, Instance, planOf } from "./harness.ts";

const MINUTE = 60_000;

Deno.test("none start and end: a straight flow completes in one step", async () => {
  const run = new Instance(
    await planOf(bpmn(`
    <bpmn:startEvent id="s"/><bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="t"/>
    <bpmn:task id="t"/><bpmn:sequenceFlow id="f2" sourceRef="t" targetRef="e"/>
    <bpmn:endEvent id="e"/>`)),
  );
  const r = await run.start();
  assert.equal(run.status, "COMPLETED");
  assert.deepEqual([...run.completed].sort(), ["e", "s", "t"]);
  assert.deepEqual(r.effects.audit.map((a) => a.type), ["instance.started", "instance.completed"]);
});

Deno.test("message start: the payload lands in the q:source variable and start aliases are recorded", async () => {
  const run = new Instance(
    await planOf(bpmn(`
    <bpmn:startEvent id="s">
      <bpmn:extensionElements>
        <q:source channel="orders" name="order"/>
        <q:alias name="orderId" expression="order.id" unique="true"/>
        <q:alias name="caseId" expression="header.caseId"/>
      </bpmn:extensionElements>
    </bpmn:startEvent>
    <bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="e"/><bpmn:endEvent id="e"/>`)),
  );
  const r = await run.start({
    node: "s",
    message: { payload: { id: 42 }, headers: { caseId: "C-7" } },
  });
  assert.deepEqual(run.vars.order, { id: 42 });
  assert.deepEqual(r.effects.aliasesRecorded, [
    { name: "orderId", value: "42", unique: true, onConflict: "reject" },
    { name: "caseId", value: "C-7", unique: false, onConflict: "reject" },
  ]);
  assert.deepEqual(r.effects.aliasesRetired.map((a) => a.name), ["orderId", "caseId"]);
  // A message without the key records no alias at all, never the text "null".
  const keyless = await new Instance(run.plan).start({
    node: "s",
    message: { payload: { id: null }, headers: {} },
  });
  assert.deepEqual(keyless.effects.aliasesRecorded, []);
});

const CATCHES = bpmn(
  `
  <bpmn:startEvent id="s"/>
  <bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="paid"/>
  <bpmn:intermediateCatchEvent id="paid">
    <bpmn:extensionElements><q:source channel="payments" name="payment"/></bpmn:extensionElements>
    <bpmn:messageEventDefinition messageRef="Payment"/>
  </bpmn:intermediateCatchEvent>
  <bpmn:sequenceFlow id="f2" sourceRef="paid" targetRef="cool"/>
  <bpmn:intermediateCatchEvent id="cool"><bpmn:timerEventDefinition><bpmn:timeDuration>PT15M</bpmn:timeDuration></bpmn:timerEventDefinition></bpmn:intermediateCatchEvent>
  <bpmn:sequenceFlow id="f3" sourceRef="cool" targetRef="go"/>
  <bpmn:intermediateCatchEvent id="go"><bpmn:signalEventDefinition signalRef="Go"/></bpmn:intermediateCatchEvent>
  <bpmn:sequenceFlow id="f4" sourceRef="go" targetRef="e"/>
  <bpmn:endEvent id="e"/>`,
  `<bpmn:message id="Payment" name="payment"/><bpmn:signal id="Go" name="go-live"/>`,
);

Deno.test("message, timer and signal catches park the instance until each is triggered", async () => {
  const run = new Instance(await planOf(CATCHES));
  const r1 = await run.start();
  assert.equal(run.status, "WAITING");
  assert.deepEqual(r1.effects.waitsArmed.map((w) => [w.kind, w.node, w.channel]), [
    ["message", "paid", "payments"],
  ]);
  const r2 = await run.message("paid", { amount: 12.5 });
  assert.deepEqual(run.vars.payment, { amount: 12.5 });
  assert.deepEqual(r2.effects.waitsArmed.map((w) => [w.kind, w.node, w.due]), [
    ["timer", "cool", run.clock.now() + 15 * MINUTE],
  ]);
  const r3 = await run.fire("cool");
  assert.deepEqual(r3.effects.waitsArmed.map((w) => [w.kind, w.signal]), [["signal", "go-live"]]);
  await run.step({ type: "signal", name: "go-live" });
  assert.equal(run.status, "COMPLETED");
});

Deno.test("a signal nobody in the instance waits for is refused with the state unchanged", async () => {
  const run = new Instance(await planOf(CATCHES));
  await run.start();
  const before = run.state;
  const r = await run.attempt({ type: "signal", name: "go-live" });
  assert.equal(r.refusal?.code, "SUTRA.RUNTIME.RESUME.WAIT_UNKNOWN");
  assert.equal(r.state, before);
});

Deno.test("conditional catch: passes when already true, otherwise waits until a later step makes it true", async () => {
  const run = new Instance(
    await planOf(bpmn(`
    <bpmn:startEvent id="s"/>
    <bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="split"/>
    <bpmn:parallelGateway id="split"/>
    <bpmn:sequenceFlow id="f2" sourceRef="split" targetRef="ready"/>
    <bpmn:sequenceFlow id="f3" sourceRef="split" targetRef="approve"/>
    <bpmn:intermediateCatchEvent id="ready"><bpmn:conditionalEventDefinition><bpmn:condition>approved = true</bpmn:condition></bpmn:conditionalEventDefinition></bpmn:intermediateCatchEvent>
    <bpmn:userTask id="approve"><bpmn:extensionElements><q:source channel="approvals" name="approved"/></bpmn:extensionElements></bpmn:userTask>
    <bpmn:sequenceFlow id="f4" sourceRef="ready" targetRef="done"/>
    <bpmn:sequenceFlow id="f5" sourceRef="approve" targetRef="wait"/>
    <bpmn:endEvent id="done"/>
    <bpmn:endEvent id="wait"/>`)),
  );
  await run.start({ variables: { approved: false } });
  assert.equal(run.status, "WAITING");
  assert.ok(!run.completed.has("ready"));
  await run.message("approve", true);
  assert.equal(run.status, "COMPLETED");
  assert.ok(run.completed.has("done"));
});

Deno.test("link events: a throw continues at the catch of the same name", async () => {
  const run = new Instance(
    await planOf(bpmn(`
    <bpmn:startEvent id="s"/><bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="jump"/>
    <bpmn:intermediateThrowEvent id="jump"><bpmn:linkEventDefinition name="page2"/></bpmn:intermediateThrowEvent>
    <bpmn:intermediateCatchEvent id="land"><bpmn:linkEventDefinition name="page2"/></bpmn:intermediateCatchEvent>
    <bpmn:sequenceFlow id="f2" sourceRef="land" targetRef="after"/>
    <bpmn:task id="after"/><bpmn:sequenceFlow id="f3" sourceRef="after" targetRef="e"/>
    <bpmn:endEvent id="e"/>`)),
  );
  await run.start();
  assert.equal(run.status, "COMPLETED");
  assert.ok(run.completed.has("jump") && run.completed.has("land") && run.completed.has("after"));
});

Deno.test("message throw and end events emit through q:send with FEEL headers and the data inputs as body", async () => {
  const run = new Instance(
    await planOf(bpmn(`
    <bpmn:startEvent id="s"/><bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="notify"/>
    <bpmn:intermediateThrowEvent id="notify">
      <bpmn:extensionElements><q:send channel="notices"><q:header name="ref" value="order.id"/><q:header name="priority" value="if order.total > 100 then &quot;high&quot; else null"/></q:send></bpmn:extensionElements>
      <bpmn:dataInput id="notice"/>
      <bpmn:dataInputAssociation id="a1"><bpmn:targetRef>notice</bpmn:targetRef><bpmn:transformation>{ref: order.id, total: order.total * 2}</bpmn:transformation></bpmn:dataInputAssociation>
      <bpmn:inputSet/>
      <bpmn:messageEventDefinition/>
    </bpmn:intermediateThrowEvent>
    <bpmn:sequenceFlow id="f2" sourceRef="notify" targetRef="e"/>
    <bpmn:endEvent id="e">
      <bpmn:extensionElements><q:send destination="https://example.test/hook"/></bpmn:extensionElements>
      <bpmn:messageEventDefinition/>
    </bpmn:endEvent>`)),
  );
  const r = await run.start({ variables: { order: { id: "O-1", total: 10.25 } } });
  assert.deepEqual(
    r.effects.emissions.map((e) => [e.node, e.channel, e.destination, e.headers, e.body]),
    [
      // The priority header is null here: it is left off.
      ["notify", "notices", undefined, { ref: "O-1" }, { ref: "O-1", total: 20.5 }],
      ["e", undefined, "https://example.test/hook", {}, null],
    ],
  );
  assert.notEqual(r.effects.emissions[0].idempotencyKey, r.effects.emissions[1].idempotencyKey);
});

Deno.test("a reply on an end event answers the caller with the node's data inputs", async () => {
  const run = new Instance(
    await planOf(bpmn(`
    <bpmn:startEvent id="s"/><bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="e"/>
    <bpmn:endEvent id="e">
      <bpmn:extensionElements><q:reply contentType="application/json"><q:header name="x-total" value="total"/></q:reply></bpmn:extensionElements>
      <bpmn:dataInput id="answer"/>
      <bpmn:dataInputAssociation id="a1"><bpmn:targetRef>answer</bpmn:targetRef><bpmn:transformation>{ok: true, total: total}</bpmn:transformation></bpmn:dataInputAssociation>
      <bpmn:messageEventDefinition/>
    </bpmn:endEvent>`)),
  );
  const r = await run.start({ variables: { total: 3 } });
  assert.deepEqual(r.effects.replies, [{
    node: "e",
    mode: "native",
    contentType: "application/json",
    headers: { "x-total": "3" },
    body: { ok: true, total: 3 },
    continue: false,
  }]);
});

Deno.test("terminate end event: ends every other branch at once and completes the instance", async () => {
  const run = new Instance(
    await planOf(bpmn(`
    <bpmn:startEvent id="s"/><bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="split"/>
    <bpmn:parallelGateway id="split"/>
    <bpmn:sequenceFlow id="f2" sourceRef="split" targetRef="hold"/>
    <bpmn:sequenceFlow id="f3" sourceRef="split" targetRef="stop"/>
    <bpmn:userTask id="hold"><bpmn:extensionElements><q:source channel="c"/></bpmn:extensionElements></bpmn:userTask>
    <bpmn:sequenceFlow id="f4" sourceRef="hold" targetRef="e"/><bpmn:endEvent id="e"/>
    <bpmn:endEvent id="stop"><bpmn:terminateEventDefinition/></bpmn:endEvent>`)),
  );
  const r = await run.start();
  assert.equal(run.status, "COMPLETED");
  assert.equal(run.state!.tokens.size, 0);
  assert.deepEqual(
    r.effects.waitsArmed,
    [],
    "the hold's wait was armed and withdrawn in the same step",
  );
  assert.ok(!run.completed.has("hold"));
});

const BOUNDARIES = bpmn(
  `
  <bpmn:startEvent id="s"/><bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="review"/>
  <bpmn:userTask id="review"><bpmn:extensionElements><q:source channel="reviews" name="verdict"/></bpmn:extensionElements></bpmn:userTask>
  <bpmn:boundaryEvent id="remind" attachedToRef="review" cancelActivity="false">
    <bpmn:timerEventDefinition><bpmn:timeCycle>R2/PT1H</bpmn:timeCycle></bpmn:timerEventDefinition>
  </bpmn:boundaryEvent>
  <bpmn:boundaryEvent id="expire" attachedToRef="review">
    <bpmn:timerEventDefinition><bpmn:timeDuration>P1D</bpmn:timeDuration></bpmn:timerEventDefinition>
  </bpmn:boundaryEvent>
  <bpmn:boundaryEvent id="withdrawn" attachedToRef="review">
    <bpmn:extensionElements><q:source channel="withdrawals" name="withdrawal"/></bpmn:extensionElements>
    <bpmn:messageEventDefinition/>
  </bpmn:boundaryEvent>
  <bpmn:boundaryEvent id="escalate" attachedToRef="review" cancelActivity="false">
    <bpmn:signalEventDefinition signalRef="Escalate"/>
  </bpmn:boundaryEvent>
  <bpmn:sequenceFlow id="f2" sourceRef="review" targetRef="done"/><bpmn:endEvent id="done"/>
  <bpmn:sequenceFlow id="f3" sourceRef="remind" targetRef="nudge"/>
  <bpmn:intermediateThrowEvent id="nudge"><bpmn:extensionElements><q:send channel="nudges"/></bpmn:extensionElements><bpmn:messageEventDefinition/></bpmn:intermediateThrowEvent>
  <bpmn:sequenceFlow id="f4" sourceRef="nudge" targetRef="nudged"/><bpmn:endEvent id="nudged"/>
  <bpmn:sequenceFlow id="f5" sourceRef="expire" targetRef="expired"/><bpmn:endEvent id="expired"/>
  <bpmn:sequenceFlow id="f6" sourceRef="withdrawn" targetRef="gone"/><bpmn:endEvent id="gone"/>
  <bpmn:sequenceFlow id="f7" sourceRef="escalate" targetRef="flagged"/><bpmn:endEvent id="flagged"/>`,
  `<bpmn:signal id="Escalate" name="escalate"/>`,
);

Deno.test("boundary events are armed while their activity waits, and withdrawn when it completes", async () => {
  const run = new Instance(await planOf(BOUNDARIES));
  const r = await run.start();
  assert.deepEqual(r.effects.waitsArmed.map((w) => [w.node, w.purpose, w.kind]), [
    ["review", "catch", "message"],
    ["remind", "boundary", "timer"],
    ["expire", "boundary", "timer"],
    ["withdrawn", "boundary", "message"],
    ["escalate", "boundary", "signal"],
  ]);
  const done = await run.message("review", "ok");
  assert.equal(run.status, "COMPLETED");
  assert.equal(done.effects.waitsResolved.length, 5);
});

Deno.test("non-interrupting timer cycle: fires each occurrence while the activity keeps waiting", async () => {
  const run = new Instance(await planOf(BOUNDARIES));
  await run.start();
  const t0 = run.clock.now();
  await run.fire("remind");
  assert.equal(run.wait("remind").due, t0 + 2 * 60 * MINUTE);
  await run.fire("remind");
  assert.equal(run.findWait("remind"), undefined, "R2 fires twice only");
  assert.equal(run.all("emissions").filter((e) => e.channel === "nudges").length, 2);
  assert.equal(run.status, "WAITING");
  assert.ok(run.findWait("review"));
});

Deno.test("interrupting timer boundary: withdraws the activity and takes the boundary's flow", async () => {
  const run = new Instance(await planOf(BOUNDARIES));
  await run.start();
  await run.fire("expire");
  assert.equal(run.status, "COMPLETED");
  assert.ok(run.completed.has("expired") && !run.completed.has("review"));
});

Deno.test("interrupting message boundary binds its payload; a non-interrupting signal boundary leaves the task waiting", async () => {
  const run = new Instance(await planOf(BOUNDARIES));
  await run.start();
  await run.step({ type: "signal", name: "escalate" });
  assert.ok(run.completed.has("flagged"));
  assert.equal(run.status, "WAITING");
  await run.message("withdrawn", { by: "customer" });
  assert.deepEqual(run.vars.withdrawal, { by: "customer" });
  assert.ok(run.completed.has("gone"));
  assert.equal(run.status, "COMPLETED");
});

Deno.test("conditional boundary: fires when its condition turns true while the activity waits", async () => {
  const run = new Instance(
    await planOf(bpmn(`
    <bpmn:startEvent id="s"/><bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="split"/>
    <bpmn:parallelGateway id="split"/>
    <bpmn:sequenceFlow id="f2" sourceRef="split" targetRef="work"/>
    <bpmn:sequenceFlow id="f3" sourceRef="split" targetRef="limit"/>
    <bpmn:userTask id="work"><bpmn:extensionElements><q:source channel="work"/></bpmn:extensionElements></bpmn:userTask>
    <bpmn:boundaryEvent id="overLimit" attachedToRef="work">
      <bpmn:conditionalEventDefinition><bpmn:condition>spent &gt; 100</bpmn:condition></bpmn:conditionalEventDefinition>
    </bpmn:boundaryEvent>
    <bpmn:userTask id="limit"><bpmn:extensionElements><q:source channel="spend" name="spent"/></bpmn:extensionElements></bpmn:userTask>
    <bpmn:sequenceFlow id="f4" sourceRef="work" targetRef="e1"/><bpmn:endEvent id="e1"/>
    <bpmn:sequenceFlow id="f5" sourceRef="overLimit" targetRef="e2"/><bpmn:endEvent id="e2"/>
    <bpmn:sequenceFlow id="f6" sourceRef="limit" targetRef="e3"/><bpmn:endEvent id="e3"/>`)),
  );
  await run.start({ variables: { spent: 0 } });
  await run.message("limit", 250);
  assert.equal(run.status, "COMPLETED");
  assert.ok(run.completed.has("e2") && !run.completed.has("e1"));
});

Deno.test("conditional boundary: a condition already true when the activity parks fires at once", async () => {
  const plan = await planOf(bpmn(`
    <bpmn:startEvent id="s"/><bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="work"/>
    <bpmn:userTask id="work"><bpmn:extensionElements><q:source channel="work"/></bpmn:extensionElements></bpmn:userTask>
    <bpmn:boundaryEvent id="overLimit" attachedToRef="work">
      <bpmn:conditionalEventDefinition><bpmn:condition>spent &gt; 100</bpmn:condition></bpmn:conditionalEventDefinition>
    </bpmn:boundaryEvent>
    <bpmn:sequenceFlow id="f4" sourceRef="work" targetRef="e1"/><bpmn:endEvent id="e1"/>
    <bpmn:sequenceFlow id="f5" sourceRef="overLimit" targetRef="e2"/><bpmn:endEvent id="e2"/>`));
  const over = new Instance(plan);
  await over.start({ variables: { spent: 250 } });
  assert.equal(over.status, "COMPLETED");
  assert.ok(over.completed.has("e2") && !over.completed.has("e1"));
  const under = new Instance(plan);
  await under.start({ variables: { spent: 50 } });
  assert.equal(under.status, "WAITING", "a false condition keeps waiting");
});

Deno.test("conditional event sub-process: true when its scope starts, it interrupts at once; non-interrupting fires once", async () => {
  const plan = (interrupting: boolean) =>
    planOf(bpmn(`
    <bpmn:startEvent id="s"/><bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="work"/>
    <bpmn:userTask id="work"><bpmn:extensionElements><q:source channel="work"/></bpmn:extensionElements></bpmn:userTask>
    <bpmn:sequenceFlow id="f2" sourceRef="work" targetRef="e1"/><bpmn:endEvent id="e1"/>
    <bpmn:subProcess id="watch" triggeredByEvent="true">
      <bpmn:startEvent id="ws" isInterrupting="${interrupting}">
        <bpmn:conditionalEventDefinition><bpmn:condition>risk = "high"</bpmn:condition></bpmn:conditionalEventDefinition>
      </bpmn:startEvent>
      <bpmn:sequenceFlow id="w1" sourceRef="ws" targetRef="we"/><bpmn:endEvent id="we"/>
    </bpmn:subProcess>`));
  const interrupted = new Instance(await plan(true));
  await interrupted.start({ variables: { risk: "high" } });
  assert.equal(interrupted.status, "COMPLETED");
  assert.ok(interrupted.completed.has("we") && !interrupted.completed.has("e1"));
  const beside = new Instance(await plan(false));
  await beside.start({ variables: { risk: "high" } });
  assert.equal(beside.status, "WAITING", "the scope's own flow goes on");
  assert.ok(beside.completed.has("we"));
  await beside.message("work", {});
  assert.equal(beside.status, "COMPLETED");
});

Deno.test("escalation: a non-interrupting boundary catches it and the throwing flow continues; uncaught it is only reported", async () => {
  const plan = await planOf(bpmn(
    `
    <bpmn:startEvent id="s"/><bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="sub"/>
    <bpmn:subProcess id="sub">
      <bpmn:startEvent id="ss"/><bpmn:sequenceFlow id="g1" sourceRef="ss" targetRef="raise"/>
      <bpmn:intermediateThrowEvent id="raise"><bpmn:escalationEventDefinition escalationRef="Late"/></bpmn:intermediateThrowEvent>
      <bpmn:sequenceFlow id="g2" sourceRef="raise" targetRef="se"/><bpmn:endEvent id="se"/>
    </bpmn:subProcess>
    <bpmn:boundaryEvent id="late" attachedToRef="sub" cancelActivity="false"><bpmn:escalationEventDefinition escalationRef="Late"/></bpmn:boundaryEvent>
    <bpmn:sequenceFlow id="f2" sourceRef="sub" targetRef="e"/><bpmn:endEvent id="e"/>
    <bpmn:sequenceFlow id="f3" sourceRef="late" targetRef="told"/><bpmn:endEvent id="told"/>
    <bpmn:sequenceFlow id="f4" sourceRef="s2" targetRef="other"/>
    <bpmn:startEvent id="s2"/>
    <bpmn:intermediateThrowEvent id="other"><bpmn:escalationEventDefinition escalationRef="Other"/></bpmn:intermediateThrowEvent>
    <bpmn:sequenceFlow id="f5" sourceRef="other" targetRef="e2"/><bpmn:endEvent id="e2"/>`,
    `<bpmn:escalation id="Late" escalationCode="LATE"/><bpmn:escalation id="Other" escalationCode="OTHER"/>`,
  ));
  const caught = new Instance(plan);
  await caught.start({ node: "s" });
  assert.ok(
    caught.completed.has("told") && caught.completed.has("se") && caught.completed.has("e"),
  );
  assert.equal(caught.status, "COMPLETED");
  const uncaught = new Instance(plan);
  const r = await uncaught.start({ node: "s2" });
  assert.equal(uncaught.status, "COMPLETED");
  assert.deepEqual(r.effects.diagnostics.map((d) => [d.code, d.severity]), [
    ["SUTRA.RUNTIME.ESCALATION.UNCAUGHT", "WARNING"],
  ]);
});

Deno.test("an error declared without a code is known by its id: a boundary naming another misses it", async () => {
  const plan = (caughtBy: string) =>
    planOf(bpmn(
      `
    <bpmn:startEvent id="s"/><bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="sub"/>
    <bpmn:subProcess id="sub">
      <bpmn:startEvent id="ss"/><bpmn:sequenceFlow id="g1" sourceRef="ss" targetRef="boom"/>
      <bpmn:endEvent id="boom"><bpmn:errorEventDefinition errorRef="Late"/></bpmn:endEvent>
    </bpmn:subProcess>
    <bpmn:boundaryEvent id="caught" attachedToRef="sub"><bpmn:errorEventDefinition errorRef="${caughtBy}"/></bpmn:boundaryEvent>
    <bpmn:sequenceFlow id="f2" sourceRef="sub" targetRef="ok"/><bpmn:endEvent id="ok"/>
    <bpmn:sequenceFlow id="f3" sourceRef="caught" targetRef="handled"/><bpmn:endEvent id="handled"/>`,
      `<bpmn:error id="Late"/><bpmn:error id="Lost"/>`,
    ));
  const same = new Instance(await plan("Late"));
  await same.start();
  assert.equal(same.status, "COMPLETED");
  assert.ok(same.completed.has("handled"));
  const other = new Instance(await plan("Lost"));
  await other.start();
  assert.equal(other.status, "FAILED", "a boundary naming another codeless error is no catch-all");
});

Deno.test("error end event: caught by the error boundary with its code, the sub-process is abandoned", async () => {
  const run = new Instance(
    await planOf(bpmn(
      `
    <bpmn:startEvent id="s"/><bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="sub"/>
    <bpmn:subProcess id="sub">
      <bpmn:startEvent id="ss"/><bpmn:sequenceFlow id="g1" sourceRef="ss" targetRef="split"/>
      <bpmn:parallelGateway id="split"/>
      <bpmn:sequenceFlow id="g2" sourceRef="split" targetRef="wait"/>
      <bpmn:sequenceFlow id="g3" sourceRef="split" targetRef="boom"/>
      <bpmn:userTask id="wait"><bpmn:extensionElements><q:source channel="c"/></bpmn:extensionElements></bpmn:userTask>
      <bpmn:endEvent id="boom"><bpmn:errorEventDefinition errorRef="Rejected"/></bpmn:endEvent>
    </bpmn:subProcess>
    <bpmn:boundaryEvent id="other" attachedToRef="sub"><bpmn:errorEventDefinition/></bpmn:boundaryEvent>
    <bpmn:boundaryEvent id="rejected" attachedToRef="sub"><bpmn:errorEventDefinition errorRef="Rejected"/></bpmn:boundaryEvent>
    <bpmn:sequenceFlow id="f2" sourceRef="sub" targetRef="ok"/><bpmn:endEvent id="ok"/>
    <bpmn:sequenceFlow id="f3" sourceRef="rejected" targetRef="no"/><bpmn:endEvent id="no"/>
    <bpmn:sequenceFlow id="f4" sourceRef="other" targetRef="huh"/><bpmn:endEvent id="huh"/>`,
      `<bpmn:error id="Rejected" errorCode="REJECTED"/>`,
    )),
  );
  const r = await run.start();
  assert.equal(run.status, "COMPLETED");
  assert.ok(run.completed.has("no") && !run.completed.has("huh") && !run.completed.has("ok"));
  assert.deepEqual(run.vars.error, { code: "REJECTED", message: "error end event 'boom'" });
  assert.deepEqual(r.effects.waitsArmed, []);
});

Deno.test("signal end event broadcasts inside the instance and to other instances", async () => {
  const run = new Instance(
    await planOf(bpmn(
      `
    <bpmn:startEvent id="s"/><bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="split"/>
    <bpmn:parallelGateway id="split"/>
    <bpmn:sequenceFlow id="f2" sourceRef="split" targetRef="listen"/>
    <bpmn:sequenceFlow id="f3" sourceRef="split" targetRef="shout"/>
    <bpmn:intermediateCatchEvent id="listen"><bpmn:signalEventDefinition signalRef="Sig"/></bpmn:intermediateCatchEvent>
    <bpmn:sequenceFlow id="f4" sourceRef="listen" targetRef="heard"/><bpmn:endEvent id="heard"/>
    <bpmn:endEvent id="shout"><bpmn:signalEventDefinition signalRef="Sig"/></bpmn:endEvent>`,
      `<bpmn:signal id="Sig" name="closing"/>`,
    )),
  );
  const r = await run.start();
  assert.equal(run.status, "COMPLETED");
  assert.ok(run.completed.has("heard"));
  assert.deepEqual(r.effects.signals, [{ name: "closing", payload: null }]);
});

Deno.test("timer and signal start events: the runtime routes the start through them", async () => {
  const plan = await planOf(bpmn(
    `
    <bpmn:startEvent id="nightly"><bpmn:timerEventDefinition><bpmn:timeCycle>R/P1D</bpmn:timeCycle></bpmn:timerEventDefinition></bpmn:startEvent>
    <bpmn:startEvent id="onSignal"><bpmn:signalEventDefinition signalRef="Open"/></bpmn:startEvent>
    <bpmn:sequenceFlow id="f1" sourceRef="nightly" targetRef="e"/>
    <bpmn:sequenceFlow id="f2" sourceRef="onSignal" targetRef="e"/>
    <bpmn:endEvent id="e"/>`,
    `<bpmn:signal id="Open" name="open"/>`,
  ));
  assert.deepEqual(plan.schedules.map((s) => s.nodeId), ["nightly"]);
  for (const node of ["nightly", "onSignal"]) {
    const run = new Instance(plan);
    await run.start({ node });
    assert.equal(run.status, "COMPLETED");
    assert.equal(run.state!.startNode, node);
  }
  const ambiguous = await new Instance(plan).attempt({ type: "start", instanceId: "x" });
  assert.equal(ambiguous.refusal?.code, "SUTRA.RUNTIME.START.INVALID");
});

Deno.test("intermediate signal throw and a non-interrupting message boundary that can fire again", async () => {
  const run = new Instance(
    await planOf(bpmn(
      `
    <bpmn:startEvent id="s"/><bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="split"/>
    <bpmn:parallelGateway id="split"/>
    <bpmn:sequenceFlow id="f2" sourceRef="split" targetRef="work"/>
    <bpmn:sequenceFlow id="f3" sourceRef="split" targetRef="announce"/>
    <bpmn:userTask id="work"><bpmn:extensionElements><q:source channel="work"/></bpmn:extensionElements></bpmn:userTask>
    <bpmn:boundaryEvent id="note" attachedToRef="work" cancelActivity="false">
      <bpmn:extensionElements><q:source channel="notes" name="lastNote"/></bpmn:extensionElements>
      <bpmn:messageEventDefinition/>
    </bpmn:boundaryEvent>
    <bpmn:sequenceFlow id="f4" sourceRef="work" targetRef="e1"/><bpmn:endEvent id="e1"/>
    <bpmn:sequenceFlow id="f5" sourceRef="note" targetRef="e2"/><bpmn:endEvent id="e2"/>
    <bpmn:intermediateThrowEvent id="announce"><bpmn:signalEventDefinition signalRef="Started"/></bpmn:intermediateThrowEvent>
    <bpmn:sequenceFlow id="f6" sourceRef="announce" targetRef="e3"/><bpmn:endEvent id="e3"/>`,
      `<bpmn:signal id="Started" name="work-started"/>`,
    )),
  );
  const r = await run.start();
  assert.deepEqual(r.effects.signals, [{ name: "work-started", payload: null }]);
  await run.message("note", "first");
  await run.message("note", "second");
  assert.equal(run.vars.lastNote, "second");
  assert.equal(run.status, "WAITING");
  await run.message("work", "done");
  assert.equal(run.status, "COMPLETED");
});

Deno.test("error injection: a BPMN error raised on a waiting task goes to its error boundary", async () => {
  const run = new Instance(
    await planOf(bpmn(
      `
    <bpmn:startEvent id="s"/><bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="call"/>
    <bpmn:serviceTask id="call" implementation="channel:partner"/>
    <bpmn:boundaryEvent id="rejected" attachedToRef="call"><bpmn:errorEventDefinition errorRef="Rej"/></bpmn:boundaryEvent>
    <bpmn:sequenceFlow id="f2" sourceRef="call" targetRef="e1"/><bpmn:endEvent id="e1"/>
    <bpmn:sequenceFlow id="f3" sourceRef="rejected" targetRef="e2"/><bpmn:endEvent id="e2"/>`,
      `<bpmn:error id="Rej" errorCode="PARTNER_REJECTED"/>`,
    )),
  );
  await run.start();
  const r = await run.step({
    type: "error",
    wait: run.wait("call", "response").id,
    code: "PARTNER_REJECTED",
    message: "rejected by partner",
  });
  assert.ok(run.completed.has("e2"));
  assert.deepEqual(run.vars.error, { code: "PARTNER_REJECTED", message: "rejected by partner" });
  assert.deepEqual(
    r.effects.withdrawals,
    ["inst-1:call:2:1"],
    "the outstanding request is withdrawn",
  );
});

Deno.test("a cycle boundary anchored in the past fires once for the slots it missed, then keeps to its grid", async () => {
  const run = new Instance(
    await planOf(bpmn(`
    <bpmn:startEvent id="s"/><bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="review"/>
    <bpmn:userTask id="review"><bpmn:extensionElements><q:source channel="reviews" name="verdict"/></bpmn:extensionElements></bpmn:userTask>
    <bpmn:boundaryEvent id="remind" attachedToRef="review" cancelActivity="false">
      <bpmn:timerEventDefinition><bpmn:timeCycle>R/2025-12-01T00:00:00Z/PT1H</bpmn:timeCycle></bpmn:timerEventDefinition>
    </bpmn:boundaryEvent>
    <bpmn:sequenceFlow id="f2" sourceRef="review" targetRef="done"/><bpmn:endEvent id="done"/>
    <bpmn:sequenceFlow id="f3" sourceRef="remind" targetRef="nudged"/><bpmn:endEvent id="nudged"/>`)),
  );
  await run.start();
  // Armed on 2026-01-01 at 00:00 with 745 slots already behind it: one firing, not 745.
  run.clock.set(Date.parse("2026-01-01T00:20:00Z"));
  const fired = await run.fire("remind");
  const next = fired.effects.waitsArmed.find((w) => w.node === "remind");
  assert.equal(next?.due, Date.parse("2026-01-01T01:00:00Z"), "the first slot after the firing");
  await run.fire("remind");
  assert.equal(run.wait("remind").due, Date.parse("2026-01-01T02:00:00Z"));
});
