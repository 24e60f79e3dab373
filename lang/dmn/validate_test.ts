import assert from "node:assert/strict";
import { loadModels } from "./models.ts";
import { validate } from "./validate.ts";
import { decision, dmn, inputData, literal } from "./_testing.ts";

function problems(...xml: string[]): [string, string, string][] {
  const r = loadModels(xml.map((text, i) => ({ uri: `m${i}.dmn`, text })));
  return validate(r.models!).map((d) => [d.severity, d.code, d.message]);
}

Deno.test("a valid model has no problems", () => {
  assert.deepEqual(
    problems(dmn(inputData("x", "number") + decision("d", literal("x + 1"), { inputs: ["x"] }))),
    [],
  );
});

Deno.test("every violation is reported, not only the first", () => {
  const xml = dmn(
    `<itemDefinition name="t"><typeRef>number</typeRef></itemDefinition>
     <itemDefinition name="t"><typeRef>nothing</typeRef>
       <itemComponent name="c"><typeRef>string</typeRef></itemComponent></itemDefinition>` +
      inputData("x", "number") +
      decision("a", literal("b + 1"), { decisions: ["b"] }) +
      decision("b", literal("a + y"), { decisions: ["a"], inputs: ["x"] }) +
      decision("c", literal("1 +")) +
      decision("e", "", { decisions: ["missing"] }) +
      decision("f", literal("1"), { typeRef: "tUnknown" }).replace('id="f"', 'id="a"'),
  );
  assert.deepEqual(problems(xml), [
    [
      "WARNING",
      "SUTRA.DMN.UNRESOLVED_REFERENCE",
      "'y' is not a requirement, parameter or context entry in scope here",
    ],
    [
      "ERROR",
      "SUTRA.DMN.FEEL_SYNTAX",
      'unexpected end of the text; an expression is missing (line 1, column 4) in "1 +"',
    ],
    ["ERROR", "SUTRA.DMN.UNRESOLVED_REFERENCE", "required decision '#missing' names no element"],
    ["WARNING", "SUTRA.DMN.UNKNOWN_TYPE", "type 'tUnknown' is not defined"],
    ["ERROR", "SUTRA.DMN.DUPLICATE", "the id 'a' is used twice"],
    ["ERROR", "SUTRA.DMN.DUPLICATE", "item definition 't' is defined twice"],
    ["ERROR", "SUTRA.DMN.MALFORMED", "item definition 't' has both a typeRef and components"],
    [
      "WARNING",
      "SUTRA.DMN.MALFORMED",
      "decision 'e' has no logic; it evaluates to null unless a decision service supplies it",
    ],
    ["ERROR", "SUTRA.DMN.CYCLE", "decisions require each other in a cycle: a → b → a"],
  ]);
});

Deno.test("invocations binding parameters the model does not have are errors", () => {
  const xml = dmn(
    `<businessKnowledgeModel id="k" name="k"><variable name="k"/>
      <encapsulatedLogic><formalParameter name="p"/>${literal("p")}</encapsulatedLogic>
    </businessKnowledgeModel>` +
      decision(
        "d",
        `<invocation>${literal("k")}<binding><parameter name="q"/>${
          literal("1")
        }</binding></invocation>`,
        { knowledge: ["k"] },
      ),
  );
  assert.deepEqual(problems(xml), [[
    "ERROR",
    "SUTRA.DMN.UNRESOLVED_REFERENCE",
    "invocation of 'k' binds 'q', which is not one of its parameters (p)",
  ]]);
});

Deno.test("a decision service must provide what its decisions require", () => {
  const xml = dmn(
    inputData("x") + decision("inner", literal("x"), { inputs: ["x"] }) +
      decision("out", literal("inner"), { decisions: ["inner"] }) +
      `<decisionService id="s" name="s"><variable name="s"/><outputDecision href="#out"/></decisionService>`,
  );
  assert.deepEqual(problems(xml), [[
    "WARNING",
    "SUTRA.DMN.UNRESOLVED_REFERENCE",
    "decision service 's': decision 'out' requires 'inner', which the service neither encapsulates nor takes as an input decision",
  ]]);
});

Deno.test("an import of a namespace no loaded model has is reported", () => {
  const xml = dmn(
    `<import name="lib" namespace="urn:nowhere" importType="https://www.omg.org/spec/DMN/20230324/MODEL/"/>`,
  );
  assert.deepEqual(problems(xml), [[
    "ERROR",
    "SUTRA.DMN.UNRESOLVED_REFERENCE",
    "import 'lib' names namespace 'urn:nowhere', which no loaded model has",
  ]]);
});
