/**
 * Compensation (BPMN 2.0.2 §10.5.5, §13.5.5): a sub-process compensated by
 * its own event sub-process with a compensation start, `activityRef`
 * throws naming such a sub-process, and `waitForCompletion="false"`.
 */
import assert from "node:assert/strict";
import { bpmn, Instance, planOf } from "./harness.ts";

/** A task with a compensation boundary and a handler appending `undo` to `log`. */
function undoable(id: string, undo: string): string {
  return `
    <bpmn:task id="${id}"/>
    <bpmn:boundaryEvent id="${id}Comp" attachedToRef="${id}"><bpmn:compensateEventDefinition/></bpmn:boundaryEvent>
    <bpmn:scriptTask id="${undo}" isForCompensation="true" scriptFormat="feel"><bpmn:script>{log: append(log, "${undo}")}</bpmn:script></bpmn:scriptTask>
    <bpmn:association id="${id}Assoc" sourceRef="${id}Comp" targetRef="${undo}"/>`;
}

/**
 * A, Sub, C, then `thrower`. Sub holds B (compensable, unless `plain`) and
 * a compensation event sub-process that logs `undoSub` with Sub's local
 * data object, then runs `inner` (nodes before the handler's end event).
 */
function process(thrower: string, inner = "", plain = false): string {
  return bpmn(`
    <bpmn:startEvent id="s"/><bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="A"/>
    ${undoable("A", "undoA")}
    <bpmn:sequenceFlow id="f2" sourceRef="A" targetRef="Sub"/>
    <bpmn:subProcess id="Sub">
      <bpmn:dataObject id="ref" name="ref"><bpmn:extensionElements><q:value>"R-1"</q:value></bpmn:extensionElements></bpmn:dataObject>
      <bpmn:startEvent id="ss"/><bpmn:sequenceFlow id="g1" sourceRef="ss" targetRef="B"/>
      ${plain ? `<bpmn:task id="B"/>` : undoable("B", "undoB")}
      <bpmn:sequenceFlow id="g2" sourceRef="B" targetRef="se"/><bpmn:endEvent id="se"/>
      <bpmn:subProcess id="SubComp" triggeredByEvent="true">
        <bpmn:startEvent id="cs"><bpmn:compensateEventDefinition/></bpmn:startEvent>
        <bpmn:sequenceFlow id="h1" sourceRef="cs" targetRef="undoSub"/>
        <bpmn:scriptTask id="undoSub" scriptFormat="feel"><bpmn:script>{log: append(log, "undoSub " + ref)}</bpmn:script></bpmn:scriptTask>
        <bpmn:sequenceFlow id="h2" sourceRef="undoSub" targetRef="${inner ? "innerStart" : "ce"}"/>
        ${inner}
        <bpmn:endEvent id="ce"/>
      </bpmn:subProcess>
    </bpmn:subProcess>
    <bpmn:sequenceFlow id="f3" sourceRef="Sub" targetRef="C"/>
    ${undoable("C", "undoC")}
    <bpmn:sequenceFlow id="f4" sourceRef="C" targetRef="undo"/>
    ${thrower}
    <bpmn:sequenceFlow id="f5" sourceRef="undo" targetRef="e"/><bpmn:endEvent id="e"/>`);
}

Deno.test("compensation event sub-process: a broadcast throw runs it in reverse completion order, with the sub-process's data", async () => {
  const run = new Instance(
    await planOf(process(
      `<bpmn:intermediateThrowEvent id="undo"><bpmn:compensateEventDefinition/></bpmn:intermediateThrowEvent>`,
      "",
      true,
    )),
  );
  await run.start({ variables: { log: [] } });
  assert.equal(run.status, "COMPLETED");
  assert.deepEqual(run.vars.log, ["undoC", "undoSub R-1", "undoA"]);
  assert.equal(run.vars.ref, undefined, "the sub-process's data object stays local to it");
});

Deno.test("compensation event sub-process: a throw with activityRef naming the sub-process runs only its handler", async () => {
  for (const plain of [true, false]) {
    const run = new Instance(
      await planOf(process(
        `<bpmn:intermediateThrowEvent id="undo"><bpmn:compensateEventDefinition activityRef="Sub"/></bpmn:intermediateThrowEvent>`,
        "",
        plain,
      )),
    );
    await run.start({ variables: { log: [] } });
    assert.equal(run.status, "COMPLETED");
    assert.deepEqual(run.vars.log, ["undoSub R-1"], plain ? "Sub without compensable inner" : "");
  }
});

Deno.test("compensation event sub-process: a compensation thrown inside it compensates what completed inside the sub-process", async () => {
  const run = new Instance(
    await planOf(process(
      `<bpmn:intermediateThrowEvent id="undo"><bpmn:compensateEventDefinition/></bpmn:intermediateThrowEvent>`,
      `<bpmn:intermediateThrowEvent id="innerStart"><bpmn:compensateEventDefinition/></bpmn:intermediateThrowEvent>
        <bpmn:sequenceFlow id="h3" sourceRef="innerStart" targetRef="ce"/>`,
    )),
  );
  await run.start({ variables: { log: [] } });
  assert.equal(run.status, "COMPLETED");
  assert.deepEqual(run.vars.log, ["undoC", "undoSub R-1", "undoB", "undoA"]);
});

Deno.test("compensation event sub-process: a handler that waits parks the throw, and survives the snapshot", async () => {
  const run = new Instance(
    await planOf(process(
      `<bpmn:intermediateThrowEvent id="undo"><bpmn:compensateEventDefinition activityRef="Sub"/></bpmn:intermediateThrowEvent>`,
      `<bpmn:userTask id="innerStart"><bpmn:extensionElements><q:source channel="confirm"/></bpmn:extensionElements></bpmn:userTask>
        <bpmn:sequenceFlow id="h3" sourceRef="innerStart" targetRef="ce"/>`,
    )),
  );
  await run.start({ variables: { log: [] } });
  assert.equal(run.status, "WAITING");
  assert.deepEqual(run.waitingAt(), ["innerStart"]);
  assert.ok(!run.completed.has("e"));
  await run.message("innerStart", "ok");
  assert.equal(run.status, "COMPLETED");
  assert.deepEqual(run.vars.log, ["undoSub R-1"]);
});

const NO_WAIT = bpmn(`
    <bpmn:startEvent id="s"/><bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="ship"/>
    <bpmn:task id="ship"/>
    <bpmn:boundaryEvent id="us" attachedToRef="ship"><bpmn:compensateEventDefinition/></bpmn:boundaryEvent>
    <bpmn:userTask id="recall" isForCompensation="true"><bpmn:extensionElements><q:source channel="recalls"/></bpmn:extensionElements></bpmn:userTask>
    <bpmn:association id="a1" sourceRef="us" targetRef="recall"/>
    <bpmn:sequenceFlow id="f2" sourceRef="ship" targetRef="undo"/>
    <bpmn:intermediateThrowEvent id="undo"><bpmn:compensateEventDefinition waitForCompletion="false"/></bpmn:intermediateThrowEvent>
    <bpmn:sequenceFlow id="f3" sourceRef="undo" targetRef="after"/>
    <bpmn:scriptTask id="after" scriptFormat="feel"><bpmn:script>{afterThrow: true}</bpmn:script></bpmn:scriptTask>
    <bpmn:sequenceFlow id="f4" sourceRef="after" targetRef="e"/><bpmn:endEvent id="e"/>`);

Deno.test("waitForCompletion=false: the path after the throw runs at once; the instance completes when the handler is done", async () => {
  const run = new Instance(await planOf(NO_WAIT));
  await run.start();
  assert.equal(run.vars.afterThrow, true, "the flow after the throw did not wait for the handler");
  assert.ok(run.completed.has("e"));
  assert.equal(run.status, "WAITING", "the handler is still running");
  assert.deepEqual(run.waitingAt(), ["recall"]);
  await run.message("recall", "back");
  assert.equal(run.status, "COMPLETED");
  assert.ok(run.completed.has("recall"));
});

const CALLED = `<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:q="urn:sutra:q:1.0" id="d" targetNamespace="urn:test">
  <bpmn:process id="main" isExecutable="true">
    <bpmn:startEvent id="s"/><bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="call"/>
    <bpmn:callActivity id="call" calledElement="child"/>
    <bpmn:sequenceFlow id="f2" sourceRef="call" targetRef="confirm"/>
    <bpmn:userTask id="confirm"><bpmn:extensionElements><q:source channel="confirm"/></bpmn:extensionElements></bpmn:userTask>
    <bpmn:sequenceFlow id="f4" sourceRef="confirm" targetRef="undo"/>
    <bpmn:intermediateThrowEvent id="undo"><bpmn:compensateEventDefinition activityRef="call"/></bpmn:intermediateThrowEvent>
    <bpmn:sequenceFlow id="f3" sourceRef="undo" targetRef="e"/><bpmn:endEvent id="e"/>
  </bpmn:process>
  <bpmn:process id="child" isExecutable="true">
    <bpmn:startEvent id="cs"/><bpmn:sequenceFlow id="c1" sourceRef="cs" targetRef="book"/>
    ${undoable("book", "unbook")}
    <bpmn:sequenceFlow id="c2" sourceRef="book" targetRef="ce"/><bpmn:endEvent id="ce"/>
  </bpmn:process>
</bpmn:definitions>`;

Deno.test("a completed call activity is compensated through what completed in the called process", async () => {
  const run = new Instance(await planOf(CALLED));
  await run.start({ process: "main", variables: { log: [] } });
  assert.deepEqual(run.waitingAt(), ["confirm"], "the call's log is in the snapshot");
  await run.message("confirm", "ok");
  assert.equal(run.status, "COMPLETED");
  assert.deepEqual(run.vars.log, ["unbook"]);
});

Deno.test("waitForCompletion=false: a terminate end withdraws the running handlers and the scope completes", async () => {
  const run = new Instance(
    await planOf(NO_WAIT.replace(
      `<bpmn:endEvent id="e"/>`,
      `<bpmn:endEvent id="e"><bpmn:terminateEventDefinition/></bpmn:endEvent>`,
    )),
  );
  await run.start();
  assert.equal(run.status, "COMPLETED");
  assert.deepEqual(run.waitingAt(), []);
  assert.ok(!run.completed.has("recall"));
});

Deno.test("compensation event sub-process of a multi-instance sub-process: each instance's handler runs, newest first, with its own data", async () => {
  const run = new Instance(
    await planOf(bpmn(`
    <bpmn:startEvent id="s"/><bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="Sub"/>
    <bpmn:subProcess id="Sub">
      <bpmn:multiInstanceLoopCharacteristics isSequential="true"><bpmn:loopCardinality>2</bpmn:loopCardinality></bpmn:multiInstanceLoopCharacteristics>
      <bpmn:dataObject id="n" name="n"><bpmn:extensionElements><q:value>loopCounter</q:value></bpmn:extensionElements></bpmn:dataObject>
      <bpmn:startEvent id="ss"/><bpmn:sequenceFlow id="g1" sourceRef="ss" targetRef="se"/><bpmn:endEvent id="se"/>
      <bpmn:subProcess id="SubComp" triggeredByEvent="true">
        <bpmn:startEvent id="cs"><bpmn:compensateEventDefinition/></bpmn:startEvent>
        <bpmn:sequenceFlow id="h1" sourceRef="cs" targetRef="undoSub"/>
        <bpmn:scriptTask id="undoSub" scriptFormat="feel"><bpmn:script>{log: append(log, n)}</bpmn:script></bpmn:scriptTask>
        <bpmn:sequenceFlow id="h2" sourceRef="undoSub" targetRef="ce"/><bpmn:endEvent id="ce"/>
      </bpmn:subProcess>
    </bpmn:subProcess>
    <bpmn:sequenceFlow id="f2" sourceRef="Sub" targetRef="undo"/>
    <bpmn:endEvent id="undo"><bpmn:compensateEventDefinition/></bpmn:endEvent>`)),
  );
  await run.start({ variables: { log: [] } });
  assert.equal(run.status, "COMPLETED");
  assert.deepEqual(run.vars.log, [2, 1]);
});

Deno.test("a multi-instance task's handler runs once per run and sees that run's item and counter", async () => {
  const run = new Instance(
    await planOf(bpmn(`
  <bpmn:dataObject id="items" name="items"/>
  <bpmn:startEvent id="s"/><bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="A"/>
  <bpmn:scriptTask id="A" scriptFormat="feel">
    <bpmn:multiInstanceLoopCharacteristics>
      <bpmn:loopDataInputRef>items</bpmn:loopDataInputRef><bpmn:inputDataItem id="item" name="item"/>
    </bpmn:multiInstanceLoopCharacteristics>
    <bpmn:script>{}</bpmn:script>
  </bpmn:scriptTask>
  <bpmn:boundaryEvent id="cb" attachedToRef="A"><bpmn:compensateEventDefinition/></bpmn:boundaryEvent>
  <bpmn:scriptTask id="undo" isForCompensation="true" scriptFormat="feel" q:resultVariable="undone"><bpmn:script>append(undone, item + string(loopCounter))</bpmn:script></bpmn:scriptTask>
  <bpmn:association id="a" sourceRef="cb" targetRef="undo"/>
  <bpmn:sequenceFlow id="f2" sourceRef="A" targetRef="c"/>
  <bpmn:endEvent id="c"><bpmn:compensateEventDefinition/></bpmn:endEvent>`)),
  );
  await run.start({ variables: { items: ["x", "y", "z"], undone: [] } });
  assert.equal(run.status, "COMPLETED");
  assert.deepEqual(run.vars.undone, ["z3", "y2", "x1"], "newest run first, each with its own data");
  assert.equal(run.vars.item, undefined);
});

Deno.test("a looped or multi-instance activity is compensated once per completed run", async () => {
  const looped = (loop: string, body = "") =>
    bpmn(`
  <bpmn:startEvent id="s"/><bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="L"/>
  ${
      body ||
      `<bpmn:scriptTask id="L" scriptFormat="feel">${loop}<bpmn:script>{n: n + 1}</bpmn:script></bpmn:scriptTask>`
    }
  <bpmn:boundaryEvent id="cb" attachedToRef="L"><bpmn:compensateEventDefinition/></bpmn:boundaryEvent>
  <bpmn:scriptTask id="undo" isForCompensation="true" scriptFormat="feel"><bpmn:script>{undone: undone + 1}</bpmn:script></bpmn:scriptTask>
  <bpmn:association id="a" sourceRef="cb" targetRef="undo"/>
  <bpmn:sequenceFlow id="f2" sourceRef="L" targetRef="c"/>
  <bpmn:endEvent id="c"><bpmn:compensateEventDefinition/></bpmn:endEvent>`);
  const cases = {
    "standard loop": looped(`<bpmn:standardLoopCharacteristics loopMaximum="3"/>`),
    "sequential multi-instance": looped(
      `<bpmn:multiInstanceLoopCharacteristics isSequential="true"><bpmn:loopCardinality>3</bpmn:loopCardinality></bpmn:multiInstanceLoopCharacteristics>`,
    ),
    "parallel multi-instance sub-process": looped(
      "",
      `<bpmn:subProcess id="L">
      <bpmn:multiInstanceLoopCharacteristics><bpmn:loopCardinality>3</bpmn:loopCardinality></bpmn:multiInstanceLoopCharacteristics>
      <bpmn:startEvent id="ss"/><bpmn:sequenceFlow id="g1" sourceRef="ss" targetRef="w"/>
      <bpmn:scriptTask id="w" scriptFormat="feel"><bpmn:script>{n: n + 1}</bpmn:script></bpmn:scriptTask>
      <bpmn:sequenceFlow id="g2" sourceRef="w" targetRef="se"/><bpmn:endEvent id="se"/>
    </bpmn:subProcess>`,
    ),
  };
  for (const [name, xml] of Object.entries(cases)) {
    const run = new Instance(await planOf(xml));
    await run.start({ variables: { n: 0, undone: 0 } });
    assert.equal(run.status, "COMPLETED", name);
    assert.equal(run.vars.n, 3, name);
    assert.equal(run.vars.undone, 3, `${name}: one compensation per run`);
  }
});
