import assert from "node:assert/strict";
import { loadBpmn } from "../../engine/bpmn/mod.ts";
import { ManualClock } from "../../engine/core/mod.ts";
import { MASK, type Redactor, redactors } from "../../engine/core/redactor.ts";
import { Registry } from "../../engine/core/registry.ts";
import { step } from "../../engine/executor/mod.ts";
import { observedVariables, protectedVariables } from "../../engine/runtime/audit/mod.ts";
import { CARD, parkedPayment, payment, paymentBpmn, paymentPlan } from "./protection_support.ts";

Deno.test("the masked copy: redactor spans in the payload, sensitive names whole, the rest as is", async () => {
  const plan = await paymentPlan();
  const { state } = await parkedPayment(plan);
  const view = observedVariables(plan, state);
  assert.deepEqual(view.variables, {
    amount: "25",
    payload: '{card: {number: "***", cvv: "***"}, amount: 12.5, reference: "R-1"}',
    secret: MASK,
  });
  assert.deepEqual(view.redacted, { payload: "pci", secret: "sensitive" });
  assert.deepEqual(view.diagnostics, []);
  assert.deepEqual([...protectedVariables(plan, state).keys()].sort(), [
    "payload",
    "secret",
    "validation",
  ]);
});

Deno.test("a validation summary quoting the card is masked like the payload it came with", async () => {
  const plan = await paymentPlan();
  const validation = {
    outcome: "SOFT_ERRORS",
    issues: [{
      code: "SUTRA.VALIDATE.X",
      message: `card ${CARD} is blocked`,
      path: "/card/number",
    }],
  };
  const r = await step(plan, undefined, {
    type: "start",
    instanceId: "i-v",
    node: "Start",
    message: { payload: payment(), messageType: "Payment" },
    variables: { validation },
  }, { clock: new ManualClock(0) });
  assert.ok(r.state, JSON.stringify(r.refusal));
  const view = observedVariables(plan, r.state);
  assert.equal(JSON.stringify(view).includes(CARD), false, JSON.stringify(view));
  assert.match(view.variables.validation, /message: "\*\*\*"/);
  assert.match(view.variables.validation, /path: "\/card\/number"/);
});

Deno.test("a redactor that throws, or is not linked, masks the whole value (fail closed)", async () => {
  const plan = await paymentPlan();
  const { state } = await parkedPayment(plan);
  const throwing: Redactor = {
    name: "pci",
    locate: () => {
      throw new Error("boom");
    },
  };
  const registry = new Registry<Redactor>("redactor");
  registry.register(throwing);
  const failed = observedVariables(plan, state, { registry });
  assert.equal(failed.variables.payload, MASK);
  assert.equal(failed.redacted.payload, "pci");
  assert.equal(failed.diagnostics[0].code, "SUTRA.REDACT.FAILED");

  const empty = observedVariables(plan, state, { registry: new Registry<Redactor>("redactor") });
  assert.equal(empty.variables.payload, MASK);
  assert.ok(redactors.has("pci"), "the process-wide registry is untouched");
});

Deno.test("a q:source with a dataClass and no redactors masks its whole payload", async () => {
  const xml = paymentBpmn().replace(
    `<q:source channel="pay" messageTypeValue="Payment">
          <q:redactors><q:redactor ref="pci"/></q:redactors>
        </q:source>`,
    `<q:source channel="pay" messageTypeValue="Payment" dataClass="financial"/>`,
  );
  assert.notEqual(xml, paymentBpmn(), "the fixture's source was replaced");
  const loaded = await loadBpmn(new TextEncoder().encode(xml), { uri: "pay.bpmn" });
  assert.ok(loaded.plan, JSON.stringify(loaded.diagnostics));
  const { state } = await parkedPayment(loaded.plan);
  const view = observedVariables(loaded.plan, state);
  assert.equal(view.variables.payload, MASK);
  assert.equal(view.redacted.payload, "financial");
});
