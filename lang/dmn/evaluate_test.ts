import assert from "node:assert/strict";
import { FeelFunction, formatFeel } from "../feel/mod.ts";
import { evaluateDecision, evaluateDecisionService } from "./evaluate.ts";
import { loadModels } from "./models.ts";
import { decision, dmn, inputData, literal, load, run, table, value } from "./_testing.ts";

Deno.test("required decisions are evaluated first, and each only once per evaluation", () => {
  // With x = 0, 'base' warns once each time it runs: one warning, one run.
  const xml = dmn(
    inputData("x", "number") +
      decision("base", literal("x + (if x > 0 then 1 else 1 / 0)"), { inputs: ["x"] }) +
      decision("left", literal("base * 2"), { decisions: ["base"] }) +
      decision("right", literal("base * 3"), { decisions: ["base"] }) +
      decision("top", literal("left + right"), { decisions: ["left", "right"] }),
  );
  assert.equal(value(xml, "top", { x: 1 }), "10");
  const r = run(xml, "top", { x: 0 });
  assert.equal(r.value, null);
  assert.equal(r.warnings.filter((w) => w.includes("division by zero")).length, 1);
});

Deno.test("a decision sees only its requirements", () => {
  const xml = dmn(
    inputData("x", "number") + inputData("y", "number") +
      decision("d", literal("x + y"), { inputs: ["x"] }),
  );
  const r = run(xml, "d", { x: 1, y: 2 });
  assert.equal(r.value, null);
  assert.match(r.warnings.join("\n"), /no variable named 'y'/);
});

Deno.test("a missing input is null; inputs may be a Map or a FEEL context too", () => {
  const xml = dmn(inputData("x", "number") + decision("d", literal("x"), { inputs: ["x"] }));
  const models = load(xml);
  assert.equal(evaluateDecision(models, "d", {}).value, null);
  assert.equal(formatFeel(evaluateDecision(models, "d", new Map([["x", 3]])).value!), "3");
});

Deno.test("decisions are found by id or by name; an unknown one is refused", () => {
  const xml = dmn(decision("d", literal("1")).replace('name="d"', 'name="The D"'));
  const models = load(xml);
  assert.equal(formatFeel(evaluateDecision(models, "d").value!), "1");
  assert.equal(formatFeel(evaluateDecision(models, "The D").value!), "1");
  const r = evaluateDecision(models, "nope");
  assert.deepEqual(r.diagnostics?.map((d) => d.code), ["SUTRA.DMN.UNKNOWN_DECISION"]);
});

Deno.test("outputs name each column of a multi-output table, else the decision", () => {
  const xml = dmn(
    decision(
      "t",
      table({
        inputs: ["1"],
        outputs: [{ name: "a" }, { name: "b" }],
        rules: [[["-"], ["1", "2"]]],
      }),
    ) + decision("s", literal("5")),
  );
  const models = load(xml);
  const t = evaluateDecision(models, "t");
  assert.deepEqual([...t.outputs!.keys()], ["a", "b"]);
  assert.deepEqual([...evaluateDecision(models, "s").outputs!.keys()], ["s"]);
});

Deno.test("the clock option drives now() and today()", () => {
  const xml = dmn(decision("d", literal("string(today())")));
  const r = evaluateDecision(load(xml), "d", {}, { now: Date.UTC(2030, 4, 6, 12), zone: "UTC" });
  assert.equal(r.value, "2030-05-06");
});

Deno.test("business knowledge models can require each other and recurse", () => {
  const bkm = (name: string, params: string[], body: string, knowledge: string[] = []) =>
    `<businessKnowledgeModel id="${name}" name="${name}"><variable name="${name}"/>
    <encapsulatedLogic>${params.map((p) => `<formalParameter name="${p}"/>`).join("")}${
      literal(body)
    }</encapsulatedLogic>${
      knowledge.map((k) =>
        `<knowledgeRequirement><requiredKnowledge href="#${k}"/></knowledgeRequirement>`
      )
        .join("")
    }</businessKnowledgeModel>`;
  const xml = dmn(
    bkm("fact", ["n"], "if n <= 1 then 1 else n * fact(n - 1)") +
      bkm("twiceFact", ["n"], "2 * fact(n)", ["fact"]) +
      decision("d", literal("twiceFact(5)"), { knowledge: ["twiceFact"] }),
  );
  assert.equal(value(xml, "d"), "240");
});

const SERVICE = dmn(
  inputData("a", "string") + inputData("b", "string") +
    decision("inner", literal('"in-" + a'), { inputs: ["a"] }) +
    decision("out1", literal('inner + "/" + b'), { inputs: ["b"], decisions: ["inner"] }) +
    decision("out2", literal("upper case(b)"), { inputs: ["b"] }) +
    `<decisionService id="svc" name="svc"><variable name="svc"/>
      <outputDecision href="#out1"/><outputDecision href="#out2"/>
      <inputDecision href="#inner"/><inputData href="#i_b"/></decisionService>
    <decisionService id="one" name="one"><variable name="one"/>
      <outputDecision href="#out2"/><inputData href="#i_b"/></decisionService>` +
    decision("useOne", literal('one("x")'), { knowledge: ["one"] }) +
    decision("useSvc", literal('svc("bee", "given")'), { knowledge: ["svc"] }) +
    decision("badArg", literal("one(1)"), { knowledge: ["one"] }),
);

Deno.test("a decision service invoked directly: inputs override its input decisions", () => {
  const models = load(SERVICE);
  const r = evaluateDecisionService(models, "svc", { inner: "given", b: "bee", a: "ignored" });
  assert.equal(formatFeel(r.value!), '{out1: "given/bee", out2: "BEE"}');
  assert.deepEqual([...r.outputs!.keys()], ["out1", "out2"]);
  // An input decision not supplied is null, never evaluated.
  assert.equal(
    formatFeel(evaluateDecisionService(models, "svc", { b: "x" }).value!),
    '{out1: null, out2: "X"}',
  );
});

Deno.test("a decision service is a function: input data first, then input decisions", () => {
  assert.equal(value(SERVICE, "useSvc"), '{out1: "given/bee", out2: "BEE"}');
  // One output decision: the service returns its value directly.
  assert.equal(value(SERVICE, "useOne"), '"X"');
  // A non-conforming argument means the service is never invoked.
  const r = run(SERVICE, "badArg");
  assert.equal(r.value, null);
  assert.match(r.warnings.join("\n"), /expects string, got number/);
});

Deno.test("imported models: decisions and input data are qualified by the import name", () => {
  const imported = dmn(
    inputData("name", "string") +
      decision("Greeting", literal('"Hello, " + name'), { inputs: ["name"] }) +
      `<itemDefinition name="tShout"><typeRef>string</typeRef></itemDefinition>`,
    "urn:lib",
    "lib",
  );
  const main = dmn(
    `<import name="Lib" namespace="urn:lib" importType="https://www.omg.org/spec/DMN/20230324/MODEL/"/>
    <decision id="top" name="top"><variable name="top" typeRef="Lib.tShout"/>
      <informationRequirement><requiredDecision href="urn:lib#Greeting"/></informationRequirement>
      ${literal('upper case(Lib.Greeting) + "!"')}</decision>`,
    "urn:main",
    "main",
  );
  const loaded = loadModels([{ uri: "lib.dmn", text: imported }, { uri: "main.dmn", text: main }]);
  assert.deepEqual(loaded.diagnostics, []);
  assert.equal(loaded.models!.main.name, "main");
  const r = evaluateDecision(loaded.models!, "top", {}, {
    importedInputs: { "urn:lib": { name: "Ann" } },
  });
  assert.equal(r.value, "HELLO, ANN!");
  const direct = evaluateDecision(loaded.models!, "Greeting", { name: "Bo" }, {
    namespace: "urn:lib",
  });
  assert.equal(direct.value, "Hello, Bo");
});

Deno.test("bad input never throws out of the API", () => {
  const models = load(dmn(decision("d", literal("1"))));
  const odd = {
    toString: () => {
      throw new Error("boom");
    },
  };
  assert.equal(formatFeel(evaluateDecision(models, "d", { odd }).value!), "1");
  const r = loadModels([{ uri: "x", text: "\u0000<<" }]);
  assert.equal(r.models, undefined);
  assert.deepEqual(r.diagnostics.map((d) => d.code), ["SUTRA.DMN.XML"]);
});

Deno.test("a defect inside FEEL refuses the evaluation instead of passing for a null", () => {
  const xml = dmn(inputData("f") + decision("d", literal("f(1)"), { inputs: ["f"] }));
  const broken = new FeelFunction([[{ name: "x" }]], () => {
    throw new Error("boom");
  });
  const r = evaluateDecision(load(xml), "d", { f: broken });
  assert.equal(r.value, undefined);
  assert.deepEqual(r.diagnostics?.map((d) => d.code), ["SUTRA.DMN.INTERNAL"]);
  assert.match(r.diagnostics![0].message, /boom/);
});
