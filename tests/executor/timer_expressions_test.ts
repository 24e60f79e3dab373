/**
 * Timers written as FEEL expressions (`=…`): evaluated when the timer is
 * armed, in the scope arming it — an intermediate catch, a boundary (when
 * its activity is entered), an event sub-process start (when its scope
 * starts), an event-based gateway branch (when the gateway is reached). A
 * cycle keeps what it evaluated to in its wait, so every later occurrence
 * (across snapshots: the harness re-reads the state from its snapshot after
 * every step) follows it even when the variables change. A value that is no
 * timer fails the instance at the arming step.
 */
import assert from "node:assert/strict";
import { decodeSnapshot, encodeSnapshotText } from "../../engine/executor/mod.ts";
import { bpmn, Instance, planOf } from "./harness.ts";

const MINUTE = 60_000;

function catching(form: string, text: string): string {
  return bpmn(`
  <bpmn:startEvent id="s"/><bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="wait"/>
  <bpmn:intermediateCatchEvent id="wait">
    <bpmn:timerEventDefinition><bpmn:${form}>${text}</bpmn:${form}></bpmn:timerEventDefinition>
  </bpmn:intermediateCatchEvent>
  <bpmn:sequenceFlow id="f2" sourceRef="wait" targetRef="e"/><bpmn:endEvent id="e"/>`);
}

Deno.test("an intermediate timer '=expr' is due when the instance's variables say", async () => {
  const run = new Instance(
    await planOf(catching("timeDuration", '=duration("PT" + string(n) + "M")')),
  );
  const r = await run.start({ variables: { n: 5 } });
  const t0 = run.clock.now();
  assert.deepEqual(r.effects.waitsArmed.map((w) => [w.kind, w.node, w.due]), [
    ["timer", "wait", t0 + 5 * MINUTE],
  ]);
  assert.equal(run.wait("wait").timer, undefined, "a one-shot timer keeps no spec");
  await run.fire("wait");
  assert.equal(run.status, "COMPLETED");
  // A string holding an ISO duration is read like the literal text.
  const text = new Instance(await planOf(catching("timeDuration", "=reminderDelay")));
  await text.start({ variables: { reminderDelay: "PT90S" } });
  assert.equal(text.wait("wait").due, text.clock.now() + 90_000);
});

Deno.test("timeDate '=expr' arms at a date-time taken from the payload", async () => {
  const run = new Instance(
    await planOf(catching("timeDate", "=date and time(order.deliverBy)")),
  );
  await run.start({ variables: { order: { deliverBy: "2026-01-03T09:00:00+01:00" } } });
  assert.equal(run.wait("wait").due, Date.parse("2026-01-03T08:00:00Z"));
  const zoned = new Instance(await planOf(catching("timeDate", "=order.deliverBy")));
  await zoned.start({ variables: { order: { deliverBy: "2026-01-03T09:00:00[Europe/Paris]" } } });
  assert.equal(zoned.wait("wait").due, Date.parse("2026-01-03T08:00:00Z"));
});

Deno.test("a value that is no timer fails the arming step, naming node, form and value", async () => {
  const cases: [string, string, Record<string, unknown>, string][] = [
    ["timeDuration", "=reminderDelay", {}, "null"],
    ["timeDuration", "=reminderDelay", { reminderDelay: 42 }, "42"],
    ["timeDuration", "=reminderDelay", { reminderDelay: "P1M" }, '"P1M"'],
    ["timeDuration", '=duration("-PT5M")', {}, 'duration("-PT5M")'],
    ["timeDate", "=due", { due: "2026-03-01T10:00:00" }, '"2026-03-01T10:00:00"'],
    ["timeCycle", "=period", { period: "PT1H" }, '"PT1H"'],
  ];
  for (const [form, text, variables, value] of cases) {
    const run = new Instance(await planOf(catching(form, text)));
    await run.start({ variables });
    assert.equal(run.status, "FAILED", `${form} ${text} ${JSON.stringify(variables)}`);
    const failure = run.state!.failure!;
    assert.equal(failure.code, "SUTRA.RUNTIME.TIMER.INVALID");
    assert.equal(failure.node, "wait");
    assert.equal(failure.attributes?.form, form);
    assert.equal(failure.attributes?.value, value);
    assert.match(failure.message, new RegExp(`${form} of 'wait'`));
    assert.deepEqual(run.waitingAt(), []);
  }
});

const REVIEW = bpmn(`
  <bpmn:startEvent id="s"/><bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="review"/>
  <bpmn:userTask id="review"><bpmn:extensionElements><q:source channel="reviews" name="verdict"/></bpmn:extensionElements></bpmn:userTask>
  <bpmn:boundaryEvent id="remind" attachedToRef="review" cancelActivity="false">
    <bpmn:timerEventDefinition><bpmn:timeCycle>=reminders</bpmn:timeCycle></bpmn:timerEventDefinition>
  </bpmn:boundaryEvent>
  <bpmn:boundaryEvent id="expire" attachedToRef="review">
    <bpmn:timerEventDefinition><bpmn:timeDuration>=duration(sla)</bpmn:timeDuration></bpmn:timerEventDefinition>
  </bpmn:boundaryEvent>
  <bpmn:sequenceFlow id="f2" sourceRef="review" targetRef="done"/><bpmn:endEvent id="done"/>
  <bpmn:sequenceFlow id="f3" sourceRef="remind" targetRef="retune"/>
  <bpmn:scriptTask id="retune" scriptFormat="feel"><bpmn:script>{reminders: "R5/PT10M"}</bpmn:script></bpmn:scriptTask>
  <bpmn:sequenceFlow id="f4" sourceRef="retune" targetRef="nudged"/><bpmn:endEvent id="nudged"/>
  <bpmn:sequenceFlow id="f5" sourceRef="expire" targetRef="expired"/><bpmn:endEvent id="expired"/>`);

Deno.test("boundary timer expressions are evaluated when the activity is entered", async () => {
  const run = new Instance(await planOf(REVIEW));
  const t0 = run.clock.now();
  await run.start({ variables: { reminders: "R2/PT1M", sla: "PT2H" } });
  assert.equal(run.wait("expire").due, t0 + 120 * MINUTE);
  assert.equal(run.wait("remind").due, t0 + MINUTE);
  await run.fire("expire");
  assert.equal(run.status, "COMPLETED");
  assert.ok(run.completed.has("expired") && !run.completed.has("review"));
});

Deno.test("a cycle boundary '=expr' fires R2 twice from the spec it stored, whatever the variable becomes", async () => {
  const run = new Instance(await planOf(REVIEW));
  const t0 = run.clock.now();
  await run.start({ variables: { reminders: "R2/PT1M", sla: "P1D" } });
  const stored = { kind: "cycle", repetitions: 2, intervalMillis: MINUTE };
  assert.deepEqual(run.wait("remind").timer, stored);
  assert.match(encodeSnapshotText(run.plan, run.state!), /"timer":\{"intervalMillis":60000,/);
  await run.fire("remind");
  assert.equal(run.vars.reminders, "R5/PT10M", "the first occurrence changed the variable");
  assert.equal(run.wait("remind").due, t0 + 2 * MINUTE, "the re-arm keeps the stored grid");
  assert.deepEqual(run.wait("remind").timer, stored);
  await run.fire("remind");
  assert.equal(run.findWait("remind"), undefined, "R2 fires twice only");
  assert.equal(run.status, "WAITING");
  assert.ok(run.findWait("review") && run.findWait("expire"));
});

Deno.test("a stored cycle that is not one makes the snapshot unreadable, not a guess", async () => {
  const run = new Instance(await planOf(REVIEW));
  await run.start({ variables: { reminders: "R2/PT1M", sla: "P1D" } });
  const text = encodeSnapshotText(run.plan, run.state!).replace(
    '"intervalMillis":60000',
    '"intervalMillis":-5',
  );
  const decoded = decodeSnapshot(run.plan, text);
  assert.equal(decoded.diagnostics?.[0].code, "SUTRA.RUNTIME.SNAPSHOT.INVALID");
  assert.match(decoded.diagnostics![0].message, /malformed timer cycle/);
});

Deno.test("an event sub-process timer '=expr' is evaluated when its scope starts", async () => {
  const run = new Instance(
    await planOf(bpmn(`
  <bpmn:startEvent id="s"/><bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="work"/>
  <bpmn:userTask id="work"><bpmn:extensionElements><q:source channel="work"/></bpmn:extensionElements></bpmn:userTask>
  <bpmn:sequenceFlow id="f2" sourceRef="work" targetRef="e"/><bpmn:endEvent id="e"/>
  <bpmn:subProcess id="watch" triggeredByEvent="true">
    <bpmn:startEvent id="tick" isInterrupting="false">
      <bpmn:timerEventDefinition><bpmn:timeCycle>="R/PT" + string(minutes) + "M"</bpmn:timeCycle></bpmn:timerEventDefinition>
    </bpmn:startEvent>
    <bpmn:sequenceFlow id="w1" sourceRef="tick" targetRef="bump"/>
    <bpmn:scriptTask id="bump" scriptFormat="feel"><bpmn:script>{minutes: 1}</bpmn:script></bpmn:scriptTask>
    <bpmn:sequenceFlow id="w2" sourceRef="bump" targetRef="we"/><bpmn:endEvent id="we"/>
  </bpmn:subProcess>`)),
  );
  const t0 = run.clock.now();
  await run.start({ variables: { minutes: 30 } });
  assert.equal(run.wait("tick").due, t0 + 30 * MINUTE);
  await run.fire("tick");
  assert.equal(run.vars.minutes, 1, "the run changed the variable the expression read");
  assert.equal(run.wait("tick").due, t0 + 60 * MINUTE, "the next slot keeps the first value");
});

Deno.test("an event-based gateway branch '=expr' is evaluated when the gateway is reached", async () => {
  const run = new Instance(
    await planOf(bpmn(`
  <bpmn:startEvent id="s"/><bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="gw"/>
  <bpmn:eventBasedGateway id="gw"/>
  <bpmn:sequenceFlow id="f2" sourceRef="gw" targetRef="paid"/>
  <bpmn:sequenceFlow id="f3" sourceRef="gw" targetRef="late"/>
  <bpmn:intermediateCatchEvent id="paid">
    <bpmn:extensionElements><q:source channel="payments" name="payment"/></bpmn:extensionElements>
    <bpmn:messageEventDefinition/>
  </bpmn:intermediateCatchEvent>
  <bpmn:intermediateCatchEvent id="late">
    <bpmn:timerEventDefinition><bpmn:timeDuration>=duration(grace)</bpmn:timeDuration></bpmn:timerEventDefinition>
  </bpmn:intermediateCatchEvent>
  <bpmn:sequenceFlow id="f4" sourceRef="paid" targetRef="ok"/><bpmn:endEvent id="ok"/>
  <bpmn:sequenceFlow id="f5" sourceRef="late" targetRef="lapsed"/><bpmn:endEvent id="lapsed"/>`)),
  );
  await run.start({ variables: { grace: "PT45M" } });
  assert.equal(run.wait("late", "gateway").due, run.clock.now() + 45 * MINUTE);
  await run.fire("late", "gateway");
  assert.equal(run.status, "COMPLETED");
  assert.ok(run.completed.has("lapsed") && !run.completed.has("ok"));
  // A bad value fails the instance at the gateway, naming the branch's timer.
  const bad = new Instance(run.plan);
  await bad.start({ variables: { grace: "soon" } });
  assert.equal(bad.status, "FAILED");
  assert.equal(bad.state!.failure?.node, "late");
});
