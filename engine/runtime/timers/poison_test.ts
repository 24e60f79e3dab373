import assert from "node:assert/strict";
import { loadBpmn } from "../../bpmn/mod.ts";
import { ManualClock } from "../../core/mod.ts";
import { step } from "../../executor/mod.ts";
import { callWaitingOn } from "./poison.ts";

const XML = `<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:q="urn:sutra:q:1.0"
  id="defs" targetNamespace="urn:test">
<bpmn:process id="p" isExecutable="true">
  <bpmn:startEvent id="start"/>
  <bpmn:sequenceFlow id="f1" sourceRef="start" targetRef="ask"/>
  <bpmn:serviceTask id="ask" implementation="channel:scoring">
    <bpmn:extensionElements>
      <q:timeout duration="PT5S"/>
      <q:retry maxAttempts="3" initialDelay="PT1S"/>
    </bpmn:extensionElements>
  </bpmn:serviceTask>
  <bpmn:sequenceFlow id="f2" sourceRef="ask" targetRef="end"/>
  <bpmn:endEvent id="end"/>
</bpmn:process>
</bpmn:definitions>`;

Deno.test("a poison prompt matches only the key of the call's live attempt", async () => {
  const loaded = await loadBpmn(new TextEncoder().encode(XML), { uri: "poison.bpmn" });
  assert.ok(loaded.plan, loaded.diagnostics.map((d) => d.message).join("\n"));
  const plan = loaded.plan;
  const clock = new ManualClock(0);
  const started = await step(plan, undefined, { type: "start", instanceId: "i-1" }, { clock });
  assert.ok(!started.refusal);
  const [key] = started.effects.emissions.map((e) => e.idempotencyKey);
  const response = started.effects.waitsArmed.find((w) => w.purpose === "response")!;
  assert.equal(callWaitingOn(plan, started.state, key), response.id);
  assert.equal(callWaitingOn(plan, started.state, "i-1:ask:2:9"), undefined);
  assert.equal(callWaitingOn(plan, started.state, "other:ask:2:1"), undefined);

  // Once that attempt failed, its key is stale: the call is backing off.
  const failed = await step(plan, started.state, {
    type: "failure",
    wait: response.id,
    code: "SUTRA.OUTBOUND.DELIVERY_ATTEMPTS_EXHAUSTED",
  }, { clock });
  assert.ok(!failed.refusal);
  assert.deepEqual(failed.effects.withdrawals, [key]);
  // The dead attempt's deadline went with it: only the backoff is armed.
  assert.deepEqual(failed.effects.waitsArmed.map((w) => w.purpose), ["retry"]);
  assert.equal(callWaitingOn(plan, failed.state, key), undefined);
});
