import assert from "node:assert/strict";
import { loadModel } from "../models.ts";
import { evaluateDecision } from "../evaluate.ts";
import { decision, dmn, inputData, literal, run, value } from "../_testing.ts";

Deno.test("a literal expression is FEEL over the decision's requirements", () => {
  const xml = dmn(
    inputData("Monthly Salary", "number") +
      decision("Yearly", literal("Monthly Salary * 12"), { inputs: ["Monthly Salary"] }),
  );
  assert.equal(value(xml, "Yearly", { "Monthly Salary": 1000 }), "12000");
});

Deno.test("a literal's typeRef converts its value", () => {
  const xml = dmn(
    decision("one", literal("[7]", "number")) + decision("bad", literal('"x"', "number")),
  );
  assert.equal(value(xml, "one"), "7");
  const r = run(xml, "bad");
  assert.equal(r.value, null);
  assert.match(r.warnings.join("\n"), /string value does not conform to type number/);
});

Deno.test("another expression language is reported unsupported and evaluates to null", () => {
  const xml = dmn(
    `<decision id="d" name="d"><variable name="d"/>` +
      `<literalExpression expressionLanguage="https://example.org/js"><text>1+1</text></literalExpression></decision>`,
  );
  const loaded = loadModel(xml);
  assert.deepEqual(loaded.diagnostics.map((d) => d.code), ["SUTRA.DMN.UNSUPPORTED"]);
  const r = evaluateDecision(loaded.models!, "d", {});
  assert.equal(r.value, null);
  assert.deepEqual(r.unsupported, ["expression language 'https://example.org/js'"]);
});

Deno.test("an empty literal is null, with a warning at load", () => {
  const xml = dmn(decision("d", "<literalExpression/>"));
  const loaded = loadModel(xml);
  assert.deepEqual(loaded.diagnostics.map((d) => [d.code, d.severity]), [[
    "SUTRA.DMN.MALFORMED",
    "WARNING",
  ]]);
  assert.equal(evaluateDecision(loaded.models!, "d", {}).value, null);
});

Deno.test("a FEEL syntax error points at its line and column in the file", () => {
  const xml = dmn(
    `<decision id="d" name="d"><variable name="d"/>\n<literalExpression><text>1 +\n  * 2</text></literalExpression></decision>`,
  );
  const [d] = loadModel(xml, { uri: "f.dmn" }).diagnostics;
  assert.equal(d.code, "SUTRA.DMN.FEEL_SYNTAX");
  // dmn() puts the decision on line 3: the text starts on line 4, its second line is line 5.
  assert.deepEqual(d.source, { uri: "f.dmn", line: 5, column: 3 });
  const oneLine = dmn(decision("e", literal("a +* b")));
  assert.deepEqual(loadModel(oneLine, { uri: "g.dmn" }).diagnostics[0].source, {
    uri: "g.dmn",
    line: 3,
    column: oneLine.split("\n")[2].indexOf("a +* b") + 4,
  });
});
