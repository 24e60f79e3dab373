/**
 * Scopes: embedded sub-processes, event sub-processes, transactions,
 * compensation, ad-hoc sub-processes and call activities.
 */
import assert from "node:assert/strict";
import { bpmn, fixturePlan, Instance, planOf } from "./harness.ts";
import { MemoryStore } from "./mini_runtime.ts";

Deno.test("embedded sub-process: runs its body, sees outer variables, and what it sets is visible after it", async () => {
  const run = new Instance(
    await planOf(bpmn(`
    <bpmn:startEvent id="s"/><bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="sub"/>
    <bpmn:subProcess id="sub">
      <bpmn:startEvent id="ss"/><bpmn:sequenceFlow id="g1" sourceRef="ss" targetRef="calc"/>
      <bpmn:scriptTask id="calc" scriptFormat="feel"><bpmn:script>{total: price * qty}</bpmn:script></bpmn:scriptTask>
      <bpmn:sequenceFlow id="g2" sourceRef="calc" targetRef="se"/><bpmn:endEvent id="se"/>
    </bpmn:subProcess>
    <bpmn:sequenceFlow id="f2" sourceRef="sub" targetRef="e"/><bpmn:endEvent id="e"/>`)),
  );
  await run.start({ variables: { price: 2.5, qty: 4 } });
  assert.equal(run.status, "COMPLETED");
  assert.equal(run.vars.total, 10);
  assert.ok(run.completed.has("sub") && run.completed.has("se"));
});

Deno.test("embedded sub-process without a start event: every activity and gateway no flow leads to starts", async () => {
  const run = new Instance(
    await planOf(bpmn(`
    <bpmn:startEvent id="s"/><bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="sub"/>
    <bpmn:subProcess id="sub">
      <bpmn:scriptTask id="x" scriptFormat="feel"><bpmn:script>{x: 1}</bpmn:script></bpmn:scriptTask>
      <bpmn:userTask id="ask"><bpmn:extensionElements><q:source channel="ask"/></bpmn:extensionElements></bpmn:userTask>
      <bpmn:sequenceFlow id="g1" sourceRef="ask" targetRef="after"/>
      <bpmn:scriptTask id="after" scriptFormat="feel"><bpmn:script>{y: 2}</bpmn:script></bpmn:scriptTask>
      <bpmn:boundaryEvent id="late" attachedToRef="ask"><bpmn:timerEventDefinition><bpmn:timeDuration>PT1H</bpmn:timeDuration></bpmn:timerEventDefinition></bpmn:boundaryEvent>
      <bpmn:scriptTask id="undo" scriptFormat="feel" isForCompensation="true"><bpmn:script>{undone: true}</bpmn:script></bpmn:scriptTask>
    </bpmn:subProcess>
    <bpmn:sequenceFlow id="f2" sourceRef="sub" targetRef="e"/><bpmn:endEvent id="e"/>`)),
  );
  await run.start();
  assert.equal(run.status, "WAITING");
  assert.equal(run.vars.x, 1);
  assert.deepEqual(run.waitingAt().sort(), ["ask", "late"]);
  await run.message("ask", "ok");
  assert.equal(run.status, "COMPLETED");
  assert.equal(run.vars.y, 2);
  assert.equal(run.vars.undone, undefined, "a compensation handler is not an entry");
  assert.ok(!run.completed.has("late"));
});

Deno.test("embedded sub-process: an interrupting timer boundary withdraws everything inside it", async () => {
  const run = new Instance(
    await planOf(bpmn(`
    <bpmn:startEvent id="s"/><bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="sub"/>
    <bpmn:subProcess id="sub">
      <bpmn:startEvent id="ss"/><bpmn:sequenceFlow id="g1" sourceRef="ss" targetRef="wait"/>
      <bpmn:userTask id="wait"><bpmn:extensionElements><q:source channel="c"/></bpmn:extensionElements></bpmn:userTask>
      <bpmn:sequenceFlow id="g2" sourceRef="wait" targetRef="se"/><bpmn:endEvent id="se"/>
    </bpmn:subProcess>
    <bpmn:boundaryEvent id="deadline" attachedToRef="sub"><bpmn:timerEventDefinition><bpmn:timeDuration>PT1H</bpmn:timeDuration></bpmn:timerEventDefinition></bpmn:boundaryEvent>
    <bpmn:sequenceFlow id="f2" sourceRef="sub" targetRef="e"/><bpmn:endEvent id="e"/>
    <bpmn:sequenceFlow id="f3" sourceRef="deadline" targetRef="late"/><bpmn:endEvent id="late"/>`)),
  );
  await run.start();
  assert.deepEqual(run.waitingAt().sort(), ["deadline", "wait"]);
  const r = await run.fire("deadline");
  assert.equal(run.status, "COMPLETED");
  assert.ok(run.completed.has("late") && !run.completed.has("sub"));
  assert.equal(r.effects.waitsResolved.length, 2);
  assert.equal(run.state!.scopes.size, 1);
});

const EVENT_SUBS = bpmn(
  `
  <bpmn:startEvent id="s"/><bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="work"/>
  <bpmn:userTask id="work"><bpmn:extensionElements><q:source channel="work"/></bpmn:extensionElements></bpmn:userTask>
  <bpmn:sequenceFlow id="f2" sourceRef="work" targetRef="e"/><bpmn:endEvent id="e"/>
  <bpmn:subProcess id="onCancel" triggeredByEvent="true">
    <bpmn:startEvent id="cancelRequested">
      <bpmn:extensionElements><q:source channel="cancellations" name="request"/></bpmn:extensionElements>
      <bpmn:messageEventDefinition/>
    </bpmn:startEvent>
    <bpmn:sequenceFlow id="c1" sourceRef="cancelRequested" targetRef="cancelled"/>
    <bpmn:endEvent id="cancelled"/>
  </bpmn:subProcess>
  <bpmn:subProcess id="onReminder" triggeredByEvent="true">
    <bpmn:startEvent id="reminder" isInterrupting="false">
      <bpmn:timerEventDefinition><bpmn:timeCycle>R/PT1H</bpmn:timeCycle></bpmn:timerEventDefinition>
    </bpmn:startEvent>
    <bpmn:sequenceFlow id="r1" sourceRef="reminder" targetRef="count"/>
    <bpmn:scriptTask id="count" scriptFormat="feel"><bpmn:script>{reminders: reminders + 1}</bpmn:script></bpmn:scriptTask>
    <bpmn:sequenceFlow id="r2" sourceRef="count" targetRef="reminded"/>
    <bpmn:endEvent id="reminded"/>
  </bpmn:subProcess>
  <bpmn:subProcess id="onAudit" triggeredByEvent="true">
    <bpmn:startEvent id="audit" isInterrupting="false"><bpmn:signalEventDefinition signalRef="Audit"/></bpmn:startEvent>
    <bpmn:sequenceFlow id="a1" sourceRef="audit" targetRef="audited"/>
    <bpmn:endEvent id="audited"/>
  </bpmn:subProcess>`,
  `<bpmn:signal id="Audit" name="audit"/>`,
);

Deno.test("non-interrupting event sub-processes (timer cycle, signal) run beside the flow, repeatedly", async () => {
  const run = new Instance(await planOf(EVENT_SUBS));
  await run.start({ variables: { reminders: 0 } });
  assert.deepEqual(run.waitingAt().sort(), ["audit", "cancelRequested", "reminder", "work"]);
  await run.fire("reminder");
  await run.fire("reminder");
  await run.step({ type: "signal", name: "audit" });
  assert.equal(run.vars.reminders, 2);
  assert.ok(run.completed.has("audited"));
  assert.equal(run.status, "WAITING");
  assert.ok(run.findWait("work") && run.findWait("reminder") && run.findWait("audit"));
  await run.message("work", "done");
  assert.equal(run.status, "COMPLETED");
  assert.equal(run.state!.waits.size, 0);
});

Deno.test("a non-interrupting event sub-process cannot start again once its scope's own flow is done", async () => {
  const run = new Instance(
    await planOf(bpmn(`
    <bpmn:startEvent id="s"/><bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="sub"/>
    <bpmn:subProcess id="sub">
      <bpmn:startEvent id="ss"/><bpmn:sequenceFlow id="g1" sourceRef="ss" targetRef="work"/>
      <bpmn:userTask id="work"><bpmn:extensionElements><q:source channel="work"/></bpmn:extensionElements></bpmn:userTask>
      <bpmn:sequenceFlow id="g2" sourceRef="work" targetRef="se"/><bpmn:endEvent id="se"/>
      <bpmn:subProcess id="notes" triggeredByEvent="true">
        <bpmn:startEvent id="note" isInterrupting="false"><bpmn:extensionElements><q:source channel="note"/></bpmn:extensionElements><bpmn:messageEventDefinition/></bpmn:startEvent>
        <bpmn:sequenceFlow id="h1" sourceRef="note" targetRef="read"/>
        <bpmn:userTask id="read"><bpmn:extensionElements><q:source channel="read"/></bpmn:extensionElements></bpmn:userTask>
        <bpmn:sequenceFlow id="h2" sourceRef="read" targetRef="he"/><bpmn:endEvent id="he"/>
      </bpmn:subProcess>
    </bpmn:subProcess>
    <bpmn:sequenceFlow id="f2" sourceRef="sub" targetRef="e"/><bpmn:endEvent id="e"/>`)),
  );
  await run.start();
  await run.message("note", "first");
  await run.message("note", "second");
  assert.deepEqual(run.waitingAt().sort(), ["note", "read", "read", "work"]);
  await run.message("work", "done");
  assert.deepEqual(run.waitingAt(), ["read", "read"], "completing: the start is withdrawn");
  for (const w of [...run.state!.waits.values()]) {
    await run.step({ type: "message", wait: w.id, message: { payload: "ok" } });
  }
  assert.equal(run.status, "COMPLETED");
});

Deno.test("interrupting message event sub-process ends the running flow, binds its payload, and completes the scope", async () => {
  const run = new Instance(await planOf(EVENT_SUBS));
  await run.start({ variables: { reminders: 0 } });
  const r = await run.message("cancelRequested", { reason: "changed mind" });
  assert.equal(run.status, "COMPLETED");
  assert.ok(run.completed.has("cancelled") && !run.completed.has("work"));
  assert.equal(run.state!.waits.size, 0);
  assert.equal(r.effects.waitsResolved.length, 4);
});

Deno.test("error event sub-process: catches an error thrown in its scope; the variable `error` holds code and message", async () => {
  const run = new Instance(
    await planOf(bpmn(
      `
    <bpmn:startEvent id="s"/><bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="sub"/>
    <bpmn:subProcess id="sub">
      <bpmn:startEvent id="ss"/><bpmn:sequenceFlow id="g1" sourceRef="ss" targetRef="check"/>
      <bpmn:serviceTask id="check" implementation="registered:check"/>
      <bpmn:sequenceFlow id="g2" sourceRef="check" targetRef="se"/><bpmn:endEvent id="se"/>
      <bpmn:subProcess id="handler" triggeredByEvent="true">
        <bpmn:startEvent id="caught"><bpmn:errorEventDefinition errorRef="Bad"/></bpmn:startEvent>
        <bpmn:sequenceFlow id="h1" sourceRef="caught" targetRef="note"/>
        <bpmn:scriptTask id="note" scriptFormat="feel"><bpmn:script>{handled: error.code + ": " + error.message}</bpmn:script></bpmn:scriptTask>
        <bpmn:sequenceFlow id="h2" sourceRef="note" targetRef="he"/><bpmn:endEvent id="he"/>
      </bpmn:subProcess>
    </bpmn:subProcess>
    <bpmn:sequenceFlow id="f2" sourceRef="sub" targetRef="e"/><bpmn:endEvent id="e"/>`,
      `<bpmn:error id="Bad" errorCode="BAD_INPUT"/>`,
    )),
    {
      ports: {
        tasks: { run: () => ({ bpmnError: { code: "BAD_INPUT", message: "no customer" } }) },
      },
    },
  );
  await run.start();
  assert.equal(run.status, "COMPLETED");
  assert.equal(run.vars.handled, "BAD_INPUT: no customer");
  assert.ok(run.completed.has("e"), "the sub-process completes after its interrupting handler");
  assert.ok(!run.completed.has("se"));
});

Deno.test("escalation event sub-process (non-interrupting) handles an escalation while the flow carries on", async () => {
  const run = new Instance(
    await planOf(bpmn(
      `
    <bpmn:startEvent id="s"/><bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="raise"/>
    <bpmn:intermediateThrowEvent id="raise"><bpmn:escalationEventDefinition escalationRef="Esc"/></bpmn:intermediateThrowEvent>
    <bpmn:sequenceFlow id="f2" sourceRef="raise" targetRef="e"/><bpmn:endEvent id="e"/>
    <bpmn:subProcess id="onEsc" triggeredByEvent="true">
      <bpmn:startEvent id="esc" isInterrupting="false"><bpmn:escalationEventDefinition escalationRef="Esc"/></bpmn:startEvent>
      <bpmn:sequenceFlow id="x1" sourceRef="esc" targetRef="xe"/><bpmn:endEvent id="xe"/>
    </bpmn:subProcess>`,
      `<bpmn:escalation id="Esc" escalationCode="NEEDS_MANAGER"/>`,
    )),
  );
  await run.start();
  assert.equal(run.status, "COMPLETED");
  assert.ok(run.completed.has("xe") && run.completed.has("e"));
});

export const TRANSACTION = bpmn(
  `
  <bpmn:startEvent id="s"/><bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="tx"/>
  <bpmn:transaction id="tx">
    <bpmn:startEvent id="ts"/><bpmn:sequenceFlow id="t1" sourceRef="ts" targetRef="reserve"/>
    <bpmn:dataStoreReference id="stock" dataStoreRef="stockStore"><bpmn:extensionElements><q:store key="sku"/></bpmn:extensionElements></bpmn:dataStoreReference>
    <bpmn:task id="reserve">
      <bpmn:dataOutputAssociation id="w1"><bpmn:targetRef>stock</bpmn:targetRef><bpmn:transformation>{reserved: qty}</bpmn:transformation></bpmn:dataOutputAssociation>
    </bpmn:task>
    <bpmn:boundaryEvent id="undoReserve" attachedToRef="reserve"><bpmn:compensateEventDefinition/></bpmn:boundaryEvent>
    <bpmn:scriptTask id="release" isForCompensation="true" scriptFormat="feel"><bpmn:script>{undone: append(undone, "reserve")}</bpmn:script></bpmn:scriptTask>
    <bpmn:association id="as1" sourceRef="undoReserve" targetRef="release"/>
    <bpmn:sequenceFlow id="t2" sourceRef="reserve" targetRef="charge"/>
    <bpmn:task id="charge"/>
    <bpmn:boundaryEvent id="undoCharge" attachedToRef="charge"><bpmn:compensateEventDefinition/></bpmn:boundaryEvent>
    <bpmn:scriptTask id="refund" isForCompensation="true" scriptFormat="feel"><bpmn:script>{undone: append(undone, "charge")}</bpmn:script></bpmn:scriptTask>
    <bpmn:association id="as2" sourceRef="undoCharge" targetRef="refund"/>
    <bpmn:sequenceFlow id="t3" sourceRef="charge" targetRef="decide"/>
    <bpmn:exclusiveGateway id="decide" default="t4"/>
    <bpmn:sequenceFlow id="t4" sourceRef="decide" targetRef="te"/>
    <bpmn:sequenceFlow id="t5" sourceRef="decide" targetRef="abort"><bpmn:conditionExpression>outcome = "cancel"</bpmn:conditionExpression></bpmn:sequenceFlow>
    <bpmn:sequenceFlow id="t6" sourceRef="decide" targetRef="fail"><bpmn:conditionExpression>outcome = "error"</bpmn:conditionExpression></bpmn:sequenceFlow>
    <bpmn:endEvent id="te"/>
    <bpmn:endEvent id="abort"><bpmn:cancelEventDefinition/></bpmn:endEvent>
    <bpmn:endEvent id="fail"><bpmn:errorEventDefinition errorRef="Broken"/></bpmn:endEvent>
  </bpmn:transaction>
  <bpmn:boundaryEvent id="txCancelled" attachedToRef="tx"><bpmn:cancelEventDefinition/></bpmn:boundaryEvent>
  <bpmn:boundaryEvent id="txFailed" attachedToRef="tx"><bpmn:errorEventDefinition errorRef="Broken"/></bpmn:boundaryEvent>
  <bpmn:sequenceFlow id="f2" sourceRef="tx" targetRef="committed"/><bpmn:endEvent id="committed"/>
  <bpmn:sequenceFlow id="f3" sourceRef="txCancelled" targetRef="rolledBack"/><bpmn:endEvent id="rolledBack"/>
  <bpmn:sequenceFlow id="f4" sourceRef="txFailed" targetRef="failedOver"/><bpmn:endEvent id="failedOver"/>`,
  `<bpmn:dataStore id="stockStore" name="stock"/><bpmn:error id="Broken" errorCode="BROKEN"/>`,
);

async function transaction(outcome: string): Promise<Instance> {
  const store = new MemoryStore();
  const run = new Instance(await planOf(TRANSACTION), { ports: { store } });
  await run.start({ variables: { outcome, sku: "SKU-1", qty: 3, undone: [] } });
  return run;
}

Deno.test("transaction: a normal end commits its store writes with the step", async () => {
  const run = await transaction("commit");
  assert.equal(run.status, "COMPLETED");
  assert.ok(run.completed.has("committed"));
  assert.deepEqual(run.all("storeWrites"), [{
    store: "stock",
    key: "SKU-1",
    value: { reserved: 3 },
  }]);
  assert.deepEqual(run.vars.undone, []);
});

Deno.test("transaction: a cancel end rolls the writes back and compensates newest first, then takes the cancel boundary", async () => {
  const run = await transaction("cancel");
  assert.equal(run.status, "COMPLETED");
  assert.deepEqual(run.all("storeWrites"), []);
  assert.deepEqual(run.vars.undone, ["charge", "reserve"]);
  assert.ok(run.completed.has("rolledBack") && !run.completed.has("committed"));
});

Deno.test("transaction in a loop: a cancel end in one run cancels the whole activity at its boundary", async () => {
  const looped = (loop: string) =>
    planOf(bpmn(`
    <bpmn:startEvent id="s"/><bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="tx"/>
    <bpmn:transaction id="tx">${loop}
      <bpmn:startEvent id="ts"/><bpmn:sequenceFlow id="t1" sourceRef="ts" targetRef="A"/>
      <bpmn:scriptTask id="A" scriptFormat="feel"><bpmn:script>loopCounter</bpmn:script></bpmn:scriptTask>
      <bpmn:boundaryEvent id="undoA" attachedToRef="A"><bpmn:compensateEventDefinition/></bpmn:boundaryEvent>
      <bpmn:scriptTask id="hA" isForCompensation="true" scriptFormat="feel" q:resultVariable="undone"><bpmn:script>append(undone, loopCounter)</bpmn:script></bpmn:scriptTask>
      <bpmn:association id="as" sourceRef="undoA" targetRef="hA"/>
      <bpmn:sequenceFlow id="t2" sourceRef="A" targetRef="gw"/>
      <bpmn:exclusiveGateway id="gw" default="go"/>
      <bpmn:sequenceFlow id="cancel" sourceRef="gw" targetRef="cx"><bpmn:conditionExpression>loopCounter = 2</bpmn:conditionExpression></bpmn:sequenceFlow>
      <bpmn:sequenceFlow id="go" sourceRef="gw" targetRef="te"/>
      <bpmn:endEvent id="te"/>
      <bpmn:endEvent id="cx"><bpmn:cancelEventDefinition/></bpmn:endEvent>
    </bpmn:transaction>
    <bpmn:boundaryEvent id="cb" attachedToRef="tx"><bpmn:cancelEventDefinition/></bpmn:boundaryEvent>
    <bpmn:sequenceFlow id="f3" sourceRef="cb" targetRef="rolledBack"/><bpmn:endEvent id="rolledBack"/>
    <bpmn:sequenceFlow id="f2" sourceRef="tx" targetRef="done"/><bpmn:endEvent id="done"/>`));
  const loops = {
    "sequential multi-instance":
      `<bpmn:multiInstanceLoopCharacteristics isSequential="true"><bpmn:loopCardinality>3</bpmn:loopCardinality></bpmn:multiInstanceLoopCharacteristics>`,
    "parallel multi-instance":
      `<bpmn:multiInstanceLoopCharacteristics><bpmn:loopCardinality>3</bpmn:loopCardinality></bpmn:multiInstanceLoopCharacteristics>`,
    "standard loop":
      `<bpmn:standardLoopCharacteristics><bpmn:loopCondition>loopCounter &lt; 3</bpmn:loopCondition></bpmn:standardLoopCharacteristics>`,
  };
  for (const [name, loop] of Object.entries(loops)) {
    const run = new Instance(await looped(loop));
    await run.start({ variables: { undone: [] } });
    assert.equal(run.status, "COMPLETED", name);
    assert.ok(run.completed.has("rolledBack") && !run.completed.has("done"), name);
    assert.deepEqual(run.vars.undone, [2], `${name}: the cancelled run is compensated`);
    assert.equal(run.state!.tokens.size, 0, `${name}: no run is left behind`);
  }
});

Deno.test("transaction: an error caught on the transaction (a hazard) drops the writes without compensating", async () => {
  const run = await transaction("error");
  assert.deepEqual(run.all("storeWrites"), []);
  assert.deepEqual(run.vars.undone, []);
  assert.ok(run.completed.has("failedOver"));
  assert.deepEqual(run.vars.error, { code: "BROKEN", message: "error end event 'fail'" });
});

Deno.test("transaction: buffered writes survive a park inside the transaction and commit when it ends", async () => {
  const run = new Instance(
    await planOf(bpmn(
      `
    <bpmn:startEvent id="s"/><bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="tx"/>
    <bpmn:transaction id="tx">
      <bpmn:startEvent id="ts"/><bpmn:sequenceFlow id="t1" sourceRef="ts" targetRef="write"/>
      <bpmn:dataStoreReference id="ref" dataStoreRef="store"><bpmn:extensionElements><q:store key="&quot;k&quot;"/></bpmn:extensionElements></bpmn:dataStoreReference>
      <bpmn:task id="write"><bpmn:dataOutputAssociation id="w"><bpmn:targetRef>ref</bpmn:targetRef><bpmn:transformation>amount</bpmn:transformation></bpmn:dataOutputAssociation></bpmn:task>
      <bpmn:sequenceFlow id="t2" sourceRef="write" targetRef="confirm"/>
      <bpmn:userTask id="confirm"><bpmn:extensionElements><q:source channel="confirm"/></bpmn:extensionElements></bpmn:userTask>
      <bpmn:sequenceFlow id="t3" sourceRef="confirm" targetRef="read"/>
      <bpmn:task id="read">
        <bpmn:ioSpecification><bpmn:dataInput id="seen"/><bpmn:inputSet/><bpmn:outputSet/></bpmn:ioSpecification>
        <bpmn:dataInputAssociation id="r"><bpmn:sourceRef>ref</bpmn:sourceRef><bpmn:targetRef>seen</bpmn:targetRef></bpmn:dataInputAssociation>
      </bpmn:task>
      <bpmn:sequenceFlow id="t4" sourceRef="read" targetRef="te"/><bpmn:endEvent id="te"/>
    </bpmn:transaction>
    <bpmn:sequenceFlow id="f2" sourceRef="tx" targetRef="e"/><bpmn:endEvent id="e"/>`,
      `<bpmn:dataStore id="store" name="ledger"/>`,
    )),
    { ports: { store: new MemoryStore() } },
  );
  const first = await run.start({ variables: { amount: 12.75 } });
  assert.deepEqual(first.effects.storeWrites, [], "nothing commits while the transaction runs");
  const done = await run.message("confirm", "yes");
  assert.equal(run.vars.seen, 12.75, "the transaction reads its own uncommitted write");
  assert.deepEqual(done.effects.storeWrites, [{ store: "ledger", key: "k", value: 12.75 }]);
});

Deno.test("compensation throw: compensates one named activity, or every completed one newest first", async () => {
  const plan = await planOf(bpmn(`
    <bpmn:startEvent id="s"/><bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="book"/>
    <bpmn:task id="book"/>
    <bpmn:boundaryEvent id="ub" attachedToRef="book"><bpmn:compensateEventDefinition/></bpmn:boundaryEvent>
    <bpmn:scriptTask id="unbook" isForCompensation="true" scriptFormat="feel"><bpmn:script>{log: append(log, "unbook")}</bpmn:script></bpmn:scriptTask>
    <bpmn:association id="a1" sourceRef="ub" targetRef="unbook"/>
    <bpmn:sequenceFlow id="f2" sourceRef="book" targetRef="pay"/>
    <bpmn:task id="pay"/>
    <bpmn:boundaryEvent id="up" attachedToRef="pay"><bpmn:compensateEventDefinition/></bpmn:boundaryEvent>
    <bpmn:scriptTask id="refund" isForCompensation="true" scriptFormat="feel"><bpmn:script>{log: append(log, "refund")}</bpmn:script></bpmn:scriptTask>
    <bpmn:association id="a2" sourceRef="up" targetRef="refund"/>
    <bpmn:sequenceFlow id="f3" sourceRef="pay" targetRef="which"/>
    <bpmn:exclusiveGateway id="which" default="all"/>
    <bpmn:sequenceFlow id="one" sourceRef="which" targetRef="undoPay"><bpmn:conditionExpression>only</bpmn:conditionExpression></bpmn:sequenceFlow>
    <bpmn:sequenceFlow id="all" sourceRef="which" targetRef="undoAll"/>
    <bpmn:intermediateThrowEvent id="undoPay"><bpmn:compensateEventDefinition activityRef="pay"/></bpmn:intermediateThrowEvent>
    <bpmn:sequenceFlow id="f4" sourceRef="undoPay" targetRef="e1"/><bpmn:endEvent id="e1"/>
    <bpmn:endEvent id="undoAll"><bpmn:compensateEventDefinition/></bpmn:endEvent>`));
  const one = new Instance(plan);
  await one.start({ variables: { only: true, log: [] } });
  assert.deepEqual(one.vars.log, ["refund"]);
  assert.ok(one.completed.has("e1"));
  const all = new Instance(plan);
  await all.start({ variables: { only: false, log: [] } });
  assert.deepEqual(all.vars.log, ["refund", "unbook"]);
  assert.equal(all.status, "COMPLETED");
});

Deno.test("compensation handlers that wait: the throw continues only after the last handler is done", async () => {
  const run = new Instance(
    await planOf(bpmn(`
    <bpmn:startEvent id="s"/><bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="ship"/>
    <bpmn:task id="ship"/>
    <bpmn:boundaryEvent id="us" attachedToRef="ship"><bpmn:compensateEventDefinition/></bpmn:boundaryEvent>
    <bpmn:userTask id="recall" isForCompensation="true"><bpmn:extensionElements><q:source channel="recalls"/></bpmn:extensionElements></bpmn:userTask>
    <bpmn:association id="a1" sourceRef="us" targetRef="recall"/>
    <bpmn:sequenceFlow id="f2" sourceRef="ship" targetRef="undo"/>
    <bpmn:intermediateThrowEvent id="undo"><bpmn:compensateEventDefinition/></bpmn:intermediateThrowEvent>
    <bpmn:sequenceFlow id="f3" sourceRef="undo" targetRef="e"/><bpmn:endEvent id="e"/>`)),
  );
  await run.start();
  assert.equal(run.status, "WAITING");
  assert.deepEqual(run.waitingAt(), ["recall"]);
  assert.ok(!run.completed.has("e"));
  await run.message("recall", "back in stock");
  assert.equal(run.status, "COMPLETED");
  assert.ok(run.completed.has("e"));
});

Deno.test("ad-hoc sub-process: every activity without incoming flows runs; it completes when all are done", async () => {
  const run = new Instance(
    await planOf(bpmn(`
    <bpmn:startEvent id="s"/><bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="adhoc"/>
    <bpmn:adHocSubProcess id="adhoc">
      <bpmn:scriptTask id="x" scriptFormat="feel"><bpmn:script>{x: 1}</bpmn:script></bpmn:scriptTask>
      <bpmn:userTask id="y"><bpmn:extensionElements><q:source channel="y"/></bpmn:extensionElements></bpmn:userTask>
      <bpmn:sequenceFlow id="a1" sourceRef="y" targetRef="z"/>
      <bpmn:scriptTask id="z" scriptFormat="feel"><bpmn:script>{z: 2}</bpmn:script></bpmn:scriptTask>
    </bpmn:adHocSubProcess>
    <bpmn:sequenceFlow id="f2" sourceRef="adhoc" targetRef="e"/><bpmn:endEvent id="e"/>`)),
  );
  await run.start();
  assert.equal(run.vars.x, 1);
  assert.equal(run.status, "WAITING");
  await run.message("y", "go");
  assert.equal(run.vars.z, 2);
  assert.equal(run.status, "COMPLETED");
});

const CALLS = `<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:q="urn:sutra:q:1.0" id="d" targetNamespace="urn:test">
  <bpmn:process id="main" isExecutable="true">
    <bpmn:startEvent id="s"/><bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="price"/>
    <bpmn:callActivity id="price" calledElement="pricing">
      <bpmn:ioSpecification><bpmn:dataInput id="base"/><bpmn:dataOutput id="quoted"/><bpmn:inputSet/><bpmn:outputSet/></bpmn:ioSpecification>
      <bpmn:dataInputAssociation id="in1"><bpmn:targetRef>base</bpmn:targetRef><bpmn:transformation>order.amount</bpmn:transformation></bpmn:dataInputAssociation>
      <bpmn:dataOutputAssociation id="out1"><bpmn:assignment><bpmn:from>total</bpmn:from><bpmn:to>quote</bpmn:to></bpmn:assignment></bpmn:dataOutputAssociation>
    </bpmn:callActivity>
    <bpmn:sequenceFlow id="f2" sourceRef="price" targetRef="route"/>
    <bpmn:callActivity id="route">
      <bpmn:extensionElements>
        <q:dispatch onNoMatch="error">
          <q:case when="order.region = &quot;EU&quot;" calledElement="eu"/>
          <q:case when="order.region = &quot;US&quot;" calledElement="us"/>
        </q:dispatch>
      </bpmn:extensionElements>
    </bpmn:callActivity>
    <bpmn:boundaryEvent id="nowhere" attachedToRef="route"><bpmn:errorEventDefinition/></bpmn:boundaryEvent>
    <bpmn:sequenceFlow id="f3" sourceRef="route" targetRef="e"/><bpmn:endEvent id="e"/>
    <bpmn:sequenceFlow id="f4" sourceRef="nowhere" targetRef="unrouted"/><bpmn:endEvent id="unrouted"/>
  </bpmn:process>
  <bpmn:process id="pricing" isExecutable="true">
    <bpmn:startEvent id="ps"/><bpmn:sequenceFlow id="p1" sourceRef="ps" targetRef="calc"/>
    <bpmn:scriptTask id="calc" scriptFormat="feel"><bpmn:script>{total: base * 1.2, hidden: true}</bpmn:script></bpmn:scriptTask>
    <bpmn:sequenceFlow id="p2" sourceRef="calc" targetRef="pe"/><bpmn:endEvent id="pe"/>
  </bpmn:process>
  <bpmn:process id="eu" isExecutable="true">
    <bpmn:startEvent id="es"/><bpmn:sequenceFlow id="e1" sourceRef="es" targetRef="euTask"/>
    <bpmn:scriptTask id="euTask" scriptFormat="feel"><bpmn:script>{carrier: "eu-post", region: order.region}</bpmn:script></bpmn:scriptTask>
    <bpmn:sequenceFlow id="e2" sourceRef="euTask" targetRef="ee"/><bpmn:endEvent id="ee"/>
  </bpmn:process>
  <bpmn:process id="us" isExecutable="true">
    <bpmn:startEvent id="us1"/><bpmn:sequenceFlow id="u1" sourceRef="us1" targetRef="ue"/><bpmn:endEvent id="ue"/>
  </bpmn:process>
</bpmn:definitions>`;

Deno.test("call activity: mapped inputs in, mapped outputs out; the called process's other variables stay there", async () => {
  const run = new Instance(await planOf(CALLS));
  await run.start({ process: "main", variables: { order: { amount: 100, region: "EU" } } });
  assert.equal(run.status, "COMPLETED");
  assert.equal(run.vars.quote, 120);
  assert.equal(run.vars.hidden, undefined);
  assert.ok(run.completed.has("pricing#calc"));
});

Deno.test("call activity: a declared data output carries the called process's variable of its name", async () => {
  const xml = (association: string) =>
    CALLS.replace(
      `<bpmn:dataOutputAssociation id="out1"><bpmn:assignment><bpmn:from>total</bpmn:from><bpmn:to>quote</bpmn:to></bpmn:assignment></bpmn:dataOutputAssociation>`,
      association,
    ).replace(`<bpmn:dataOutput id="quoted"/>`, `<bpmn:dataOutput id="quoted" name="total"/>`)
      .replace(
        `<bpmn:process id="main" isExecutable="true">`,
        `<bpmn:process id="main" isExecutable="true"><bpmn:dataObject id="quote" name="quote"/>`,
      );
  const plain = new Instance(
    await planOf(xml(
      `<bpmn:dataOutputAssociation id="out1"><bpmn:sourceRef>quoted</bpmn:sourceRef><bpmn:targetRef>quote</bpmn:targetRef></bpmn:dataOutputAssociation>`,
    )),
  );
  await plain.start({ process: "main", variables: { order: { amount: 100, region: "EU" } } });
  assert.equal(plain.status, "COMPLETED");
  assert.equal(plain.vars.quote, 120);
  const transformed = new Instance(
    await planOf(xml(
      `<bpmn:dataOutputAssociation id="out1"><bpmn:sourceRef>quoted</bpmn:sourceRef><bpmn:targetRef>quote</bpmn:targetRef><bpmn:transformation>total + 1</bpmn:transformation></bpmn:dataOutputAssociation>`,
    )),
  );
  await transformed.start({ process: "main", variables: { order: { amount: 100, region: "EU" } } });
  assert.equal(transformed.vars.quote, 121);
});

Deno.test("q:dispatch: the first matching case picks the process; without mappings all variables go in and out", async () => {
  const run = new Instance(await planOf(CALLS));
  await run.start({ process: "main", variables: { order: { amount: 1, region: "EU" } } });
  assert.equal(run.vars.carrier, "eu-post");
  assert.equal(run.vars.region, "EU");
  assert.ok(run.completed.has("eu#euTask"));
});

Deno.test("q:dispatch with no matching case throws SUTRA.RUNTIME.DISPATCH.NO_MATCH, catchable by a boundary", async () => {
  const run = new Instance(await planOf(CALLS));
  await run.start({ process: "main", variables: { order: { amount: 1, region: "APAC" } } });
  assert.equal(run.status, "COMPLETED");
  assert.ok(run.completed.has("unrouted"));
  assert.equal((run.vars.error as { code: string }).code, "SUTRA.RUNTIME.DISPATCH.NO_MATCH");
});

Deno.test("nested scopes: an event sub-process inside a transaction inside a multi-instance body", async () => {
  const store = new MemoryStore();
  const run = new Instance(await fixturePlan("nested_scopes.bpmn"), { ports: { store } });
  await run.start({ variables: { orders: ["A", "B", "C"] } });
  assert.equal(run.status, "WAITING");
  // Each instance's transaction parks on its own approval; each has its own
  // armed message event sub-process.
  assert.deepEqual(run.waitingAt().filter((n) => n === "abortRequested").length, 3);
  const aborts = [...run.state!.waits.values()].filter((w) =>
    run.plan.processes[0].nodes[w.node].id === "abortRequested"
  );
  // Abort instance B: its event sub-process throws an error that the
  // boundary on B's transaction catches, rolling back B's write only.
  await run.step({ type: "message", wait: aborts[1].id, message: { payload: "stop" } });
  for (const w of [...run.state!.waits.values()]) {
    if (run.plan.processes[0].nodes[w.node].id === "approve") {
      await run.step({ type: "message", wait: w.id, message: { payload: true } });
    }
  }
  assert.equal(run.status, "COMPLETED");
  assert.deepEqual(
    run.all("storeWrites").map((w) => [w.key, w.value]).sort(),
    [["A", "reserved"], ["C", "reserved"]],
  );
  assert.deepEqual(run.vars.results, ["done", "aborted", "done"]);
});

Deno.test("a terminate end event inside a sub-process ends only that sub-process, which then completes", async () => {
  const run = new Instance(
    await planOf(bpmn(`
    <bpmn:startEvent id="s"/><bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="sub"/>
    <bpmn:subProcess id="sub">
      <bpmn:startEvent id="ss"/><bpmn:sequenceFlow id="g1" sourceRef="ss" targetRef="split"/>
      <bpmn:parallelGateway id="split"/>
      <bpmn:sequenceFlow id="g2" sourceRef="split" targetRef="wait"/>
      <bpmn:sequenceFlow id="g3" sourceRef="split" targetRef="stop"/>
      <bpmn:userTask id="wait"><bpmn:extensionElements><q:source channel="c"/></bpmn:extensionElements></bpmn:userTask>
      <bpmn:endEvent id="stop"><bpmn:terminateEventDefinition/></bpmn:endEvent>
    </bpmn:subProcess>
    <bpmn:sequenceFlow id="f2" sourceRef="sub" targetRef="after"/>
    <bpmn:userTask id="after"><bpmn:extensionElements><q:source channel="d"/></bpmn:extensionElements></bpmn:userTask>
    <bpmn:sequenceFlow id="f3" sourceRef="after" targetRef="e"/><bpmn:endEvent id="e"/>`)),
  );
  await run.start();
  assert.equal(run.status, "WAITING");
  assert.ok(run.completed.has("sub") && !run.completed.has("wait"));
  assert.deepEqual(run.waitingAt(), ["after"]);
  const done = await run.message("after", "ok");
  assert.deepEqual(done.effects.audit.map((a) => a.type), [
    "instance.resumed",
    "instance.completed",
  ]);
});
