import assert from "node:assert/strict";
import { decision, dmn, inputData, literal, run, value } from "../_testing.ts";

const bkm = `<businessKnowledgeModel id="fee" name="fee"><variable name="fee"/>
  <encapsulatedLogic><formalParameter name="amount" typeRef="number"/><formalParameter name="rate" typeRef="number"/>
  ${
  literal("amount * (if rate = null then 0.01 else rate)")
}</encapsulatedLogic></businessKnowledgeModel>`;

const invocation = (bindings: [string, string | undefined][]) =>
  `<invocation>${literal("fee")}${
    bindings.map(([p, v]) =>
      `<binding><parameter name="${p}"/>${v === undefined ? "" : literal(v)}</binding>`
    ).join("")
  }</invocation>`;

Deno.test("an invocation calls a business knowledge model with named bindings", () => {
  const xml = dmn(
    bkm + inputData("x", "number") +
      decision("d", invocation([["rate", "0.5"], ["amount", "x"]]), {
        inputs: ["x"],
        knowledge: ["fee"],
      }),
  );
  assert.equal(value(xml, "d", { x: 10 }), "5");
});

Deno.test("a binding without an expression passes null", () => {
  const xml = dmn(
    bkm + decision("d", invocation([["amount", "200"], ["rate", undefined]]), {
      knowledge: ["fee"],
    }),
  );
  assert.equal(value(xml, "d"), "2");
});

Deno.test("an argument that does not conform to its parameter type makes the call null", () => {
  const xml = dmn(
    bkm + decision("d", invocation([["amount", '"lots"'], ["rate", "1"]]), {
      knowledge: ["fee"],
    }),
  );
  const r = run(xml, "d");
  assert.equal(r.value, null);
  assert.match(r.warnings.join("\n"), /parameter 'amount' expects number, got string/);
});

Deno.test("invoking something that is not a function is null with a warning", () => {
  const xml = dmn(
    inputData("fee") + decision("d", invocation([["amount", "1"]]), { inputs: ["fee"] }),
  );
  const r = run(xml, "d", { fee: 3 });
  assert.equal(r.value, null);
  assert.match(r.warnings.join("\n"), /'fee' is number, not a function/);
});
