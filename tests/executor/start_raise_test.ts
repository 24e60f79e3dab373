import assert from "node:assert/strict";
import { bpmn, Instance, planOf } from "./harness.ts";

const HANDLED = bpmn(
  `<bpmn:startEvent id="s"/><bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="work"/>
  <bpmn:scriptTask id="work" scriptFormat="feel"><bpmn:script>{worked: true}</bpmn:script></bpmn:scriptTask>
  <bpmn:sequenceFlow id="f2" sourceRef="work" targetRef="e"/><bpmn:endEvent id="e"/>
  <bpmn:subProcess id="invalid" triggeredByEvent="true">
    <bpmn:startEvent id="caught"><bpmn:errorEventDefinition errorRef="Bad"/></bpmn:startEvent>
    <bpmn:sequenceFlow id="h1" sourceRef="caught" targetRef="note"/>
    <bpmn:scriptTask id="note" scriptFormat="feel"><bpmn:script>{handled: error.code}</bpmn:script></bpmn:scriptTask>
    <bpmn:sequenceFlow id="h2" sourceRef="note" targetRef="he"/><bpmn:endEvent id="he"/>
  </bpmn:subProcess>`,
  `<bpmn:error id="Bad" errorCode="T505"/>`,
);

Deno.test("a start raising a BPMN error runs the process's error event sub-process, not the flow", async () => {
  const run = new Instance(await planOf(HANDLED));
  const r = await run.start({ raise: { code: "T505", message: "the message failed validation" } });
  assert.equal(r.state!.status, "COMPLETED");
  const vars = run.vars;
  assert.equal(vars.handled, "T505");
  assert.equal(vars.worked, undefined);
});

Deno.test("a start raising an error nothing catches fails the instance with that code", async () => {
  const run = new Instance(
    await planOf(bpmn(
      `<bpmn:startEvent id="s"/><bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="e"/><bpmn:endEvent id="e"/>`,
    )),
  );
  const r = await run.start({ raise: { code: "T505" } });
  assert.equal(r.state!.status, "FAILED");
  assert.match(`${r.state!.failure?.code} ${r.state!.failure?.message}`, /T505/);
});

Deno.test("a relayed message brings intake's variables (the validation summary) beside its payload", async () => {
  const run = new Instance(
    await planOf(bpmn(
      `<bpmn:startEvent id="s"/><bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="hold"/>
    <bpmn:receiveTask id="hold"><bpmn:extensionElements><q:source channel="decisions" name="decision"/></bpmn:extensionElements></bpmn:receiveTask>
    <bpmn:sequenceFlow id="f2" sourceRef="hold" targetRef="e"/><bpmn:endEvent id="e"/>`,
    )),
  );
  await run.start();
  await run.step({
    type: "message",
    wait: run.wait("hold").id,
    message: { payload: { ok: true }, variables: { validation: { outcome: "SOFT_FAIL" } } },
  });
  assert.deepEqual(run.vars.decision, { ok: true });
  assert.deepEqual(run.vars.validation, { outcome: "SOFT_FAIL" });
});
