import assert from "node:assert/strict";
import { evaluateDecision } from "../evaluate.ts";
import { loadModel } from "../models.ts";
import { decision, dmn, inputData, literal, run, value } from "../_testing.ts";

const javaFn = (cls: string, signature: string) =>
  `<functionDefinition kind="Java"><formalParameter name="a" typeRef="number"/><formalParameter name="b" typeRef="number"/>
  <context><contextEntry><variable name="class"/>${literal(`"${cls}"`)}</contextEntry>
  <contextEntry><variable name="method signature"/>${
    literal(`"${signature}"`)
  }</contextEntry></context></functionDefinition>`;

const callIn = (fn: string, call: string, inputs: string[] = []) =>
  dmn(
    inputs.map((i) => inputData(i)).join("") +
      decision(
        "d",
        `<context><contextEntry><variable name="f"/>${fn}</contextEntry><contextEntry>${
          literal(call)
        }</contextEntry></context>`,
        { inputs },
      ),
  );

Deno.test("a FEEL function definition closes over the scope it is defined in", () => {
  const fn = `<functionDefinition><formalParameter name="n"/>${
    literal("n + base")
  }</functionDefinition>`;
  assert.equal(value(callIn(fn, "f(1)", ["base"]), "d", { base: 10 }), "11");
});

Deno.test("a Java function runs its mapped static method", () => {
  const xml = callIn(javaFn("java.lang.Math", "max(double, double)"), "f(3, 7.5)");
  assert.equal(value(xml, "d"), "7.5");
});

Deno.test("an unmapped Java method is null, reported as unsupported", () => {
  const xml = callIn(javaFn("java.util.Random", "nextInt(int, int)"), "f(1, 2)");
  const r = run(xml, "d");
  assert.equal(r.value, null);
  assert.deepEqual(r.unsupported, ["the Java method java.util.Random.nextInt(int, int)"]);
});

Deno.test("a PMML function is reported unsupported at load and when called", () => {
  const fn = `<functionDefinition kind="PMML"><formalParameter name="x"/><context>
    <contextEntry><variable name="document"/>${literal('"model"')}</contextEntry>
    <contextEntry><variable name="model"/>${
    literal('"tree"')
  }</contextEntry></context></functionDefinition>`;
  const loaded = loadModel(callIn(fn, "f(1)"));
  assert.deepEqual(loaded.diagnostics.map((d) => [d.code, d.severity]), [[
    "SUTRA.DMN.UNSUPPORTED",
    "WARNING",
  ]]);
  const r = evaluateDecision(loaded.models!, "d", {});
  assert.equal(r.value, null);
  assert.deepEqual(r.unsupported, ["PMML functions"]);
});

Deno.test("a business knowledge model's result converts to its declared type", () => {
  const xml = dmn(
    `<businessKnowledgeModel id="b" name="b"><variable name="b" typeRef="number"/>
    <encapsulatedLogic><formalParameter name="v"/>${
      literal("v")
    }</encapsulatedLogic></businessKnowledgeModel>` +
      decision("one", literal("b([4])"), { knowledge: ["b"] }) +
      decision("bad", literal('b("x")'), { knowledge: ["b"] }),
  );
  assert.equal(value(xml, "one"), "4");
  assert.equal(value(xml, "bad"), "null");
});
