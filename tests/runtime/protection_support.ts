/**
 * A process for the audit, redaction and encryption tests: its start event
 * takes a payment on channel `pay` with the `pci` redactor, it declares
 * `secret` sensitive, computes a typed `amount` and parks at `Hold` until a
 * message on channel `confirm` completes it.
 */
import assert from "node:assert/strict";
import { type ExecutionPlan, loadBpmn } from "../../engine/bpmn/mod.ts";
import { ManualClock } from "../../engine/core/mod.ts";
import { type InstanceState, step, type StepResult } from "../../engine/executor/mod.ts";
import "../../io/redactors/mod.ts";

/** A Luhn-valid test card number. */
export const CARD = "4111111111111111";
/** The declared-sensitive value. */
export const SECRET = "open-sesame-7731";

/** The BPMN of the process (`q:audit` attributes substituted). */
export function paymentBpmn(audit = `capture="full"`): string {
  return `<?xml version="1.0"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:q="urn:sutra:q:1.0" id="d" targetNamespace="urn:t">
  <bpmn:process id="pay" isExecutable="true">
    <bpmn:extensionElements>
      <q:variables><q:variable name="secret" sensitive="true"/></q:variables>
      <q:audit ${audit}/>
    </bpmn:extensionElements>
    <bpmn:startEvent id="Start">
      <bpmn:extensionElements>
        <q:source channel="pay" messageTypeValue="Payment">
          <q:redactors><q:redactor ref="pci"/></q:redactors>
        </q:source>
      </bpmn:extensionElements>
    </bpmn:startEvent>
    <bpmn:sequenceFlow id="f1" sourceRef="Start" targetRef="Prepare"/>
    <bpmn:task id="Prepare">
      <bpmn:dataOutputAssociation id="prep">
        <bpmn:assignment><bpmn:from>payload.amount * 2</bpmn:from><bpmn:to>amount</bpmn:to></bpmn:assignment>
        <bpmn:assignment><bpmn:from>"${SECRET}"</bpmn:from><bpmn:to>secret</bpmn:to></bpmn:assignment>
      </bpmn:dataOutputAssociation>
    </bpmn:task>
    <bpmn:sequenceFlow id="f2" sourceRef="Prepare" targetRef="Hold"/>
    <bpmn:receiveTask id="Hold"><bpmn:extensionElements><q:source channel="confirm"/></bpmn:extensionElements></bpmn:receiveTask>
    <bpmn:sequenceFlow id="f3" sourceRef="Hold" targetRef="End"/>
    <bpmn:endEvent id="End"/>
  </bpmn:process>
</bpmn:definitions>`;
}

/** The payment the instance starts with. */
export function payment(): Record<string, unknown> {
  return { card: { number: CARD, cvv: "123" }, amount: 12.5, reference: "R-1" };
}

/** The compiled plan. */
export async function paymentPlan(audit?: string): Promise<ExecutionPlan> {
  const loaded = await loadBpmn(new TextEncoder().encode(paymentBpmn(audit)), { uri: "pay.bpmn" });
  assert.ok(loaded.plan, JSON.stringify(loaded.diagnostics));
  return loaded.plan;
}

/** Starts an instance and parks it at `Hold`. */
export async function parkedPayment(
  plan: ExecutionPlan,
  instanceId = "i-1",
): Promise<StepResult & { state: InstanceState }> {
  const r = await step(plan, undefined, {
    type: "start",
    instanceId,
    node: "Start",
    message: { payload: payment(), messageType: "Payment" },
  }, { clock: new ManualClock(Date.UTC(2026, 11, 2)) });
  assert.equal(r.state?.status, "WAITING", JSON.stringify(r.state?.failure ?? r.refusal));
  return r as StepResult & { state: InstanceState };
}
