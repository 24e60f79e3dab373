/** Multi-instance activities and standard loops. */
import assert from "node:assert/strict";
import { bpmn, Instance, planOf } from "./harness.ts";

function multiInstance(characteristics: string, body: string): string {
  return bpmn(`
    <bpmn:dataObject id="items" name="items"/>
    <bpmn:dataObject id="doubled" name="doubled"/>
    <bpmn:startEvent id="s"/><bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="each"/>
    ${
    body.replace(
      "LOOP",
      `<bpmn:multiInstanceLoopCharacteristics ${characteristics}</bpmn:multiInstanceLoopCharacteristics>`,
    )
  }
    <bpmn:sequenceFlow id="f2" sourceRef="each" targetRef="e"/><bpmn:endEvent id="e"/>`);
}

const OVER_ITEMS = `>
  <bpmn:loopDataInputRef>items</bpmn:loopDataInputRef>
  <bpmn:loopDataOutputRef>doubled</bpmn:loopDataOutputRef>
  <bpmn:inputDataItem id="item" name="item"/>
  <bpmn:outputDataItem id="out" name="out"/>`;

Deno.test("parallel multi-instance over a collection: per-instance item and counter, outputs in instance order", async () => {
  const run = new Instance(
    await planOf(multiInstance(
      `isSequential="false"${OVER_ITEMS}`,
      `
    <bpmn:scriptTask id="each" scriptFormat="feel">LOOP<bpmn:script>{out: item * 2 + loopCounter / 10}</bpmn:script></bpmn:scriptTask>`,
    )),
  );
  await run.start({ variables: { items: [5, 7, 9] } });
  assert.equal(run.status, "COMPLETED");
  assert.deepEqual(run.vars.doubled, [10.1, 14.2, 18.3]);
  assert.equal(run.vars.item, undefined, "the input element stays inside each instance");
});

Deno.test("multi-instance over the activity's own data input and output (BPMN's form for a task)", async () => {
  const run = new Instance(
    await planOf(bpmn(`
    <bpmn:dataObject id="DO_items" name="items"/>
    <bpmn:dataObject id="DO_res" name="res"/>
    <bpmn:startEvent id="s"/><bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="each"/>
    <bpmn:scriptTask id="each" scriptFormat="feel">
      <bpmn:ioSpecification>
        <bpmn:dataInput id="in_coll" name="coll"/>
        <bpmn:dataOutput id="out_coll" name="outs"/>
        <bpmn:inputSet><bpmn:dataInputRefs>in_coll</bpmn:dataInputRefs></bpmn:inputSet>
        <bpmn:outputSet><bpmn:dataOutputRefs>out_coll</bpmn:dataOutputRefs></bpmn:outputSet>
      </bpmn:ioSpecification>
      <bpmn:dataInputAssociation><bpmn:sourceRef>DO_items</bpmn:sourceRef><bpmn:targetRef>in_coll</bpmn:targetRef></bpmn:dataInputAssociation>
      <bpmn:dataOutputAssociation><bpmn:sourceRef>out_coll</bpmn:sourceRef><bpmn:targetRef>DO_res</bpmn:targetRef></bpmn:dataOutputAssociation>
      <bpmn:multiInstanceLoopCharacteristics isSequential="true">
        <bpmn:loopDataInputRef>in_coll</bpmn:loopDataInputRef>
        <bpmn:loopDataOutputRef>out_coll</bpmn:loopDataOutputRef>
        <bpmn:inputDataItem id="x" name="x"/><bpmn:outputDataItem id="y" name="y"/>
      </bpmn:multiInstanceLoopCharacteristics>
      <bpmn:script>{y: x * 10}</bpmn:script>
    </bpmn:scriptTask>
    <bpmn:sequenceFlow id="f2" sourceRef="each" targetRef="e"/><bpmn:endEvent id="e"/>`)),
  );
  await run.start({ variables: { items: [1, 2, 3] } });
  assert.equal(run.status, "COMPLETED");
  assert.deepEqual(run.vars.res, [10, 20, 30], "the collection leaves once, in instance order");
  assert.equal(run.vars.outs, undefined, "the data output stays the activity's own");
  assert.equal(run.vars.coll, undefined, "so does the data input");
});

Deno.test("parallel multi-instance: all instances wait at once and the activity completes after the last", async () => {
  const run = new Instance(
    await planOf(multiInstance(
      `isSequential="false"${OVER_ITEMS}`,
      `
    <bpmn:userTask id="each">LOOP<bpmn:extensionElements><q:source channel="answers" name="out"/></bpmn:extensionElements></bpmn:userTask>`,
    )),
  );
  await run.start({ variables: { items: ["a", "b", "c"] } });
  const waits = [...run.state!.waits.values()];
  assert.equal(waits.length, 3);
  for (const [i, w] of [...waits].reverse().entries()) {
    assert.ok(!run.completed.has("each"), "the activity is not completed while a run is left");
    await run.step({ type: "message", wait: w.id, message: { payload: `answer ${i}` } });
  }
  assert.equal(run.status, "COMPLETED");
  assert.ok(run.completed.has("each"));
  assert.deepEqual(run.vars.doubled, ["answer 2", "answer 1", "answer 0"]);
});

Deno.test("sequential multi-instance: one instance at a time, in collection order", async () => {
  const run = new Instance(
    await planOf(multiInstance(
      `isSequential="true"${OVER_ITEMS}`,
      `
    <bpmn:userTask id="each">LOOP<bpmn:extensionElements><q:source channel="answers" name="out"/></bpmn:extensionElements></bpmn:userTask>`,
    )),
  );
  await run.start({ variables: { items: ["a", "b"] } });
  assert.equal(run.state!.waits.size, 1);
  await run.message("each", "first");
  assert.equal(run.state!.waits.size, 1);
  await run.message("each", "second");
  assert.equal(run.status, "COMPLETED");
  assert.deepEqual(run.vars.doubled, ["first", "second"]);
});

Deno.test("a multi-instance completion condition sees the finished instance's output element and counter", async () => {
  const run = new Instance(
    await planOf(multiInstance(
      `isSequential="true"${OVER_ITEMS}
      <bpmn:completionCondition>out = "stop" or loopCounter = 4</bpmn:completionCondition>`,
      `
    <bpmn:scriptTask id="each" scriptFormat="feel">LOOP<bpmn:script>{out: if item = 2 then "stop" else "go"}</bpmn:script></bpmn:scriptTask>`,
    )),
  );
  await run.start({ variables: { items: [1, 2, 3, 4] } });
  assert.equal(run.status, "COMPLETED");
  assert.deepEqual(
    run.vars.doubled,
    ["go", "stop", null, null],
    "stopped after the second instance",
  );
});

Deno.test("multi-instance by cardinality with a completion condition: stops early and withdraws the rest", async () => {
  const run = new Instance(
    await planOf(multiInstance(
      `isSequential="false">
      <bpmn:loopCardinality>seats</bpmn:loopCardinality>
      <bpmn:completionCondition>nrOfCompletedInstances &gt;= 2</bpmn:completionCondition>`,
      `
    <bpmn:userTask id="each">LOOP<bpmn:extensionElements><q:source channel="votes"/></bpmn:extensionElements></bpmn:userTask>`,
    )),
  );
  await run.start({ variables: { seats: 4 } });
  const waits = [...run.state!.waits.values()];
  assert.equal(waits.length, 4);
  await run.step({ type: "message", wait: waits[0].id, message: { payload: "yes" } });
  const r = await run.step({ type: "message", wait: waits[2].id, message: { payload: "yes" } });
  assert.equal(run.status, "COMPLETED");
  assert.deepEqual(
    [...r.effects.waitsResolved].sort(),
    [waits[1].id, waits[2].id, waits[3].id].sort(),
  );
});

Deno.test("multi-instance over an empty collection completes at once with an empty output", async () => {
  const run = new Instance(
    await planOf(multiInstance(
      `${OVER_ITEMS}`,
      `
    <bpmn:scriptTask id="each" scriptFormat="feel">LOOP<bpmn:script>{out: item}</bpmn:script></bpmn:scriptTask>`,
    )),
  );
  await run.start({ variables: { items: [] } });
  assert.equal(run.status, "COMPLETED");
  assert.deepEqual(run.vars.doubled, []);
});

Deno.test("multi-instance whose input collection is not a list fails with the node named", async () => {
  const run = new Instance(
    await planOf(multiInstance(
      `${OVER_ITEMS}`,
      `
    <bpmn:scriptTask id="each" scriptFormat="feel">LOOP<bpmn:script>{out: item}</bpmn:script></bpmn:scriptTask>`,
    )),
  );
  await run.start({ variables: { items: "oops" } });
  assert.equal(run.status, "FAILED");
  assert.deepEqual([run.state!.failure!.code, run.state!.failure!.node], [
    "SUTRA.RUNTIME.EXPRESSION.FAILED",
    "each",
  ]);
});

Deno.test("a boundary on a multi-instance activity sits on the whole body", async () => {
  const run = new Instance(
    await planOf(multiInstance(
      `isSequential="false"${OVER_ITEMS}`,
      `
    <bpmn:userTask id="each">LOOP<bpmn:extensionElements><q:source channel="answers" name="out"/></bpmn:extensionElements></bpmn:userTask>
    <bpmn:boundaryEvent id="giveUp" attachedToRef="each"><bpmn:timerEventDefinition><bpmn:timeDuration>PT1H</bpmn:timeDuration></bpmn:timerEventDefinition></bpmn:boundaryEvent>
    <bpmn:sequenceFlow id="f3" sourceRef="giveUp" targetRef="late"/><bpmn:endEvent id="late"/>`,
    )),
  );
  await run.start({ variables: { items: [1, 2] } });
  assert.equal([...run.state!.waits.values()].filter((w) => w.purpose === "boundary").length, 1);
  await run.fire("giveUp");
  assert.equal(run.status, "COMPLETED");
  assert.ok(run.completed.has("late"));
  assert.equal(run.state!.waits.size, 0);
});

function standardLoop(attributes: string, condition = ""): string {
  return bpmn(`
    <bpmn:startEvent id="s"/><bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="retry"/>
    <bpmn:scriptTask id="retry" scriptFormat="feel">
      <bpmn:standardLoopCharacteristics ${attributes}>${condition}</bpmn:standardLoopCharacteristics>
      <bpmn:script>{runs: runs + 1, last: loopCounter}</bpmn:script>
    </bpmn:scriptTask>
    <bpmn:sequenceFlow id="f2" sourceRef="retry" targetRef="e"/><bpmn:endEvent id="e"/>`);
}

Deno.test("standard loop: repeats while the condition holds (tested after each run)", async () => {
  const run = new Instance(
    await planOf(standardLoop("", "<bpmn:loopCondition>runs &lt; 3</bpmn:loopCondition>")),
  );
  await run.start({ variables: { runs: 0 } });
  assert.equal(run.vars.runs, 3);
  assert.equal(run.vars.last, 3);
});

Deno.test("standard loop with testBefore may run zero times; loopMaximum caps the runs", async () => {
  const never = new Instance(
    await planOf(
      standardLoop(`testBefore="true"`, "<bpmn:loopCondition>runs &gt; 0</bpmn:loopCondition>"),
    ),
  );
  await never.start({ variables: { runs: 0 } });
  assert.equal(never.vars.runs, 0);
  assert.equal(never.status, "COMPLETED");
  const capped = new Instance(
    await planOf(standardLoop(`loopMaximum="4"`, "<bpmn:loopCondition>true</bpmn:loopCondition>")),
  );
  await capped.start({ variables: { runs: 0 } });
  assert.equal(capped.vars.runs, 4);
});

Deno.test("an error inside one instance is caught by the boundary on the multi-instance activity", async () => {
  const run = new Instance(
    await planOf(
      multiInstance(
        `isSequential="false"${OVER_ITEMS}`,
        `
    <bpmn:serviceTask id="each" implementation="registered:check">LOOP</bpmn:serviceTask>
    <bpmn:boundaryEvent id="bad" attachedToRef="each"><bpmn:errorEventDefinition/></bpmn:boundaryEvent>
    <bpmn:sequenceFlow id="f3" sourceRef="bad" targetRef="rejected"/><bpmn:endEvent id="rejected"/>`,
      ),
    ),
    {
      ports: {
        tasks: {
          run: (call) =>
            call.variables.get("item") === "bad"
              ? { bpmnError: { code: "INVALID", message: "bad item" } }
              : { outputs: { out: "ok" } },
        },
      },
    },
  );
  await run.start({ variables: { items: ["fine", "bad", "fine"] } });
  assert.equal(run.status, "COMPLETED");
  assert.ok(run.completed.has("rejected") && !run.completed.has("e"));
  assert.equal(run.state!.scopes.size, 1);
});
