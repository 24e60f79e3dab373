/**
 * Call activities and data (BPMN 2.0.2 §10.3.6, §10.4): what comes back to
 * the caller when the call maps no outputs.
 */
import assert from "node:assert/strict";
import { decodeSnapshot, encodeSnapshot } from "../../engine/executor/mod.ts";
import { Instance, planOf } from "./harness.ts";

// The caller splits: one branch calls `child` (which waits on a message),
// the other waits on its own message and then updates `status`.
const PARALLEL = `<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:q="urn:sutra:q:1.0" id="d" targetNamespace="urn:test">
  <bpmn:process id="main" isExecutable="true">
    <bpmn:startEvent id="s"/><bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="split"/>
    <bpmn:parallelGateway id="split"/>
    <bpmn:sequenceFlow id="f2" sourceRef="split" targetRef="call"/>
    <bpmn:callActivity id="call" calledElement="child"/>
    <bpmn:sequenceFlow id="f3" sourceRef="call" targetRef="join"/>
    <bpmn:sequenceFlow id="f4" sourceRef="split" targetRef="review"/>
    <bpmn:receiveTask id="review"><bpmn:extensionElements><q:source channel="reviews" name="verdict"/></bpmn:extensionElements></bpmn:receiveTask>
    <bpmn:sequenceFlow id="f5" sourceRef="review" targetRef="update"/>
    <bpmn:scriptTask id="update" scriptFormat="feel"><bpmn:script>{status: "reviewed"}</bpmn:script></bpmn:scriptTask>
    <bpmn:sequenceFlow id="f6" sourceRef="update" targetRef="join"/>
    <bpmn:parallelGateway id="join"/>
    <bpmn:sequenceFlow id="f7" sourceRef="join" targetRef="e"/><bpmn:endEvent id="e"/>
  </bpmn:process>
  <bpmn:process id="child" isExecutable="true">
    <bpmn:startEvent id="cs"/><bpmn:sequenceFlow id="c1" sourceRef="cs" targetRef="quote"/>
    <bpmn:receiveTask id="quote"><bpmn:extensionElements><q:source channel="quotes" name="price"/></bpmn:extensionElements></bpmn:receiveTask>
    <bpmn:sequenceFlow id="c2" sourceRef="quote" targetRef="total"/>
    <bpmn:scriptTask id="total" scriptFormat="feel"><bpmn:script>{total: price * qty, qty: qty + 0}</bpmn:script></bpmn:scriptTask>
    <bpmn:sequenceFlow id="c3" sourceRef="total" targetRef="ce"/><bpmn:endEvent id="ce"/>
  </bpmn:process>
</bpmn:definitions>`;

Deno.test("call activity without output mappings: a parallel branch's update made while the callee waited survives the return", async () => {
  const run = new Instance(await planOf(PARALLEL));
  await run.start({ process: "main", variables: { status: "new", qty: 3 } });
  assert.deepEqual(run.waitingAt().sort(), ["quote", "review"]);
  await run.message("review", "ok");
  assert.equal(run.vars.status, "reviewed");
  await run.message("quote", 5);
  assert.equal(run.status, "COMPLETED");
  assert.equal(
    run.vars.status,
    "reviewed",
    "the callee never wrote status: the caller's value stays",
  );
  assert.equal(run.vars.total, 15, "what the callee created comes back");
  assert.equal(run.vars.price, 5, "the payload the callee received is its own variable");
  assert.equal(run.vars.qty, 3, "a passed-in value the callee rewrote comes back");
});

Deno.test("a call parked by an engine that did not track writes returns every variable, as it did then", async () => {
  const plan = await planOf(PARALLEL);
  const run = new Instance(plan);
  await run.start({ process: "main", variables: { status: "new", qty: 3 } });
  const text = new TextDecoder().decode(encodeSnapshot(plan, run.state!));
  const older = text.replace(/,"written":\[[^\]]*\]/, "");
  assert.notEqual(older, text, "the call scope records what was written");
  const decoded = decodeSnapshot(plan, older);
  assert.equal(decoded.diagnostics, undefined);
  run.state = decoded.state;
  await run.message("review", "ok");
  await run.message("quote", 5);
  assert.equal(run.status, "COMPLETED");
  assert.equal(run.vars.total, 15);
  assert.equal(run.vars.status, "new", "without the record, every variable is copied back");
});

Deno.test("a called process without a start event starts everything no flow leads to, and returns when all of it ends", async () => {
  const run = new Instance(
    await planOf(`<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:q="urn:sutra:q:1.0" id="d" targetNamespace="urn:test">
  <bpmn:process id="main" isExecutable="true">
    <bpmn:startEvent id="s"/><bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="call"/>
    <bpmn:callActivity id="call" calledElement="startless"/>
    <bpmn:sequenceFlow id="f2" sourceRef="call" targetRef="after"/>
    <bpmn:scriptTask id="after" scriptFormat="feel"><bpmn:script>{seen: [a, b]}</bpmn:script></bpmn:scriptTask>
    <bpmn:sequenceFlow id="f3" sourceRef="after" targetRef="e"/><bpmn:endEvent id="e"/>
  </bpmn:process>
  <bpmn:process id="startless" isExecutable="true">
    <bpmn:scriptTask id="first" scriptFormat="feel"><bpmn:script>{a: "first"}</bpmn:script></bpmn:scriptTask>
    <bpmn:sequenceFlow id="c1" sourceRef="first" targetRef="ce"/><bpmn:endEvent id="ce"/>
    <bpmn:receiveTask id="second"><bpmn:extensionElements><q:source channel="seconds" name="b"/></bpmn:extensionElements></bpmn:receiveTask>
  </bpmn:process>
</bpmn:definitions>`),
  );
  await run.start({ process: "main" });
  assert.equal(run.status, "WAITING");
  assert.deepEqual(run.waitingAt(), ["second"], "both unprompted activities started");
  await run.message("second", "second");
  assert.equal(run.status, "COMPLETED");
  assert.deepEqual(run.vars.seen, ["first", "second"]);
});
