/**
 * Script result variables, data associations by name, data object initial
 * values and scopes, and complex joins on the plan's upstream sets — each
 * on a fixture of tests/fixtures/executor/.
 */
import assert from "node:assert/strict";
import { bpmn, fixturePlan, Instance, planOf } from "./harness.ts";

Deno.test("script task q:resultVariable: any value is stored under the name; without it a context is merged", async () => {
  const run = new Instance(await fixturePlan("script_result.bpmn"));
  await run.start({ variables: { a: 2, b: 3 } });
  assert.equal(run.status, "COMPLETED");
  assert.equal(run.vars.total, 5, "a number, under the result variable");
  assert.deepEqual(run.vars.summary, { sum: 5, doubled: 10 }, "a context is stored whole");
  assert.equal(run.vars.sum, undefined, "…and not merged entry by entry");
  assert.equal(run.vars.merged, true, "no result variable: the context is merged");
  assert.equal(run.vars.tripled, 15);
});

Deno.test("data associations map by name: data inputs, data objects and their references", async () => {
  const run = new Instance(await fixturePlan("data_names.bpmn"));
  await run.start({ variables: { order: { qty: 3, price: 5 } } });
  assert.equal(run.status, "COMPLETED");
  assert.equal(run.vars.invoice, 15, "the reference's name stands for the unnamed data object");
  assert.equal(run.vars.archived, 15, "the data object's own name wins over its reference's");
  for (const id of ["DataObject_2", "DataObjectReference_2", "DataObjectReference_3"]) {
    assert.ok(!(id in run.vars), `nothing is written under the id ${id}`);
  }
});

Deno.test("data objects: q:value initial values; a sub-process's data objects are local to it", async () => {
  const run = new Instance(await fixturePlan("data_objects.bpmn"));
  await run.start({ variables: { customer: "Ada", counter: 7 } });
  assert.equal(run.status, "COMPLETED");
  assert.deepEqual(run.vars.limits, { daily: 100 });
  assert.equal(run.vars.greeting, "hello Ada", "a value sees the start variables");
  assert.equal(run.vars.counter, 7, "a start variable keeps its value");
  assert.equal(run.vars.seen, 201, "draft started at limits.daily * 2; scratch held draft + 1");
  assert.ok(!("draft" in run.vars) && !("scratch" in run.vars), "sub-process data stay inside");
});

Deno.test("a sub-process's properties are local to its body, like its data objects", async () => {
  const run = new Instance(
    await planOf(bpmn(`
    <bpmn:startEvent id="s"/><bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="sub"/>
    <bpmn:subProcess id="sub">
      <bpmn:property id="tmp" name="tmp"/>
      <bpmn:startEvent id="ss"/><bpmn:sequenceFlow id="g1" sourceRef="ss" targetRef="use"/>
      <bpmn:scriptTask id="use" scriptFormat="feel"><bpmn:script>{tmp: 7}</bpmn:script></bpmn:scriptTask>
      <bpmn:sequenceFlow id="g2" sourceRef="use" targetRef="copy"/>
      <bpmn:scriptTask id="copy" scriptFormat="feel"><bpmn:script>{kept: tmp * 2}</bpmn:script></bpmn:scriptTask>
      <bpmn:sequenceFlow id="g3" sourceRef="copy" targetRef="se"/><bpmn:endEvent id="se"/>
    </bpmn:subProcess>
    <bpmn:sequenceFlow id="f2" sourceRef="sub" targetRef="e"/><bpmn:endEvent id="e"/>`)),
  );
  await run.start();
  assert.equal(run.status, "COMPLETED");
  assert.equal(run.vars.kept, 14, "the body reads what it wrote to its property");
  assert.ok(!("tmp" in run.vars), "the property is gone with the body");
});

Deno.test("complex join: a token still on its way through a link belongs to the round that fired", async () => {
  const run = new Instance(await fixturePlan("complex_join_link.bpmn"));
  await run.start({ variables: { runs: 0 } });
  assert.equal(run.vars.runs, 1, "fired by the first token");
  await run.message("first", "done");
  assert.equal(run.vars.runs, 1, "a late token is absorbed");
  await run.message("second", "done");
  assert.equal(run.vars.runs, 1, "the token through the link was still expected: absorbed too");
  assert.equal(run.status, "COMPLETED");
});

Deno.test("data objects: an initial value that fails to evaluate fails the instance at the scope's start", async () => {
  const run = new Instance(
    await planOf(bpmn(`
    <bpmn:startEvent id="s"/><bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="sub"/>
    <bpmn:subProcess id="sub">
      <bpmn:dataObject id="due" name="due">
        <bpmn:extensionElements><q:value>date("not a date")</q:value></bpmn:extensionElements>
      </bpmn:dataObject>
      <bpmn:startEvent id="ss"/><bpmn:sequenceFlow id="g1" sourceRef="ss" targetRef="se"/>
      <bpmn:endEvent id="se"/>
    </bpmn:subProcess>
    <bpmn:sequenceFlow id="f2" sourceRef="sub" targetRef="e"/><bpmn:endEvent id="e"/>`)),
  );
  await run.start();
  assert.equal(run.status, "FAILED");
  assert.equal(run.state!.failure?.code, "SUTRA.RUNTIME.EXPRESSION.FAILED");
  assert.equal(run.state!.failure?.node, "sub");
});
