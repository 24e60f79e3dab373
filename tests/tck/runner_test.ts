import assert from "node:assert/strict";
import { feelNumber, formatFeel, fromJs } from "../../lang/feel/mod.ts";
import { resultsCsv, summarize, textReport } from "./report.ts";
import { parseArgs, runTck } from "./run.ts";
import { groupOf } from "./runner.ts";
import { readTestFile } from "./test_file.ts";
import { same, toFeel } from "./values.ts";

const MODEL =
  `<definitions xmlns="https://www.omg.org/spec/DMN/20230324/MODEL/" namespace="urn:t" name="t">
  <itemDefinition name="tPair"><itemComponent name="n"><typeRef>number</typeRef></itemComponent>
    <itemComponent name="ok"><typeRef>boolean</typeRef></itemComponent></itemDefinition>
  <inputData id="i_p" name="p"><variable name="p" typeRef="tPair"/></inputData>
  <decision id="double" name="double"><variable name="double" typeRef="number"/>
    <informationRequirement><requiredInput href="#i_p"/></informationRequirement>
    <literalExpression><text>p.n * 2</text></literalExpression></decision>
  <decision id="pair" name="pair"><variable name="pair" typeRef="tPair"/>
    <informationRequirement><requiredInput href="#i_p"/></informationRequirement>
    <literalExpression><text>p</text></literalExpression></decision>
  <decision id="pmml" name="pmml"><variable name="pmml"/>
    <context><contextEntry><variable name="f"/><functionDefinition kind="PMML"/></contextEntry>
    <contextEntry><literalExpression><text>f()</text></literalExpression></contextEntry></context></decision>
  <decision id="pmmlThenValue" name="pmmlThenValue"><variable name="pmmlThenValue"/>
    <context><contextEntry><variable name="f"/><functionDefinition kind="PMML"/></contextEntry>
    <contextEntry><variable name="g"/><literalExpression><text>f()</text></literalExpression></contextEntry>
    <contextEntry><literalExpression><text>"computed"</text></literalExpression></contextEntry></context></decision>
</definitions>`;

const TESTS = `<testCases xmlns="http://www.omg.org/spec/DMN/20160719/testcase"
    xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema">
  <modelName>t.dmn</modelName>
  <testCase id="001">
    <inputNode name="p"><component name="n"><value>21</value></component>
      <component name="ok"><value xsi:type="xsd:boolean">true</value></component></inputNode>
    <resultNode name="double"><expected><value xsi:type="xsd:decimal">42.000000001</value></expected></resultNode>
    <resultNode name="pair"><expected><component name="n"><value>21</value></component>
      <component name="ok"><value>true</value></component></expected></resultNode>
  </testCase>
  <testCase id="002">
    <inputNode name="p"><component name="n"><value xsi:type="xsd:decimal">1</value></component>
      <component name="ok"><value xsi:nil="true"/></component></inputNode>
    <resultNode name="double"><expected><value xsi:type="xsd:decimal">3</value></expected></resultNode>
  </testCase>
  <!-- <testCase id="commented"/> -->
  <testCase id="003">
    <resultNode name="pmml"><expected><value xsi:type="xsd:string">scored</value></expected></resultNode>
    <resultNode name="pmmlThenValue"><expected><value xsi:type="xsd:string">other</value></expected></resultNode>
  </testCase>
  <testCase id="004">
    <resultNode name="pmml"><expected><value xsi:type="xsd:string">scored</value></expected></resultNode>
  </testCase>
</testCases>`;

async function corpus(): Promise<string> {
  const root = await Deno.makeTempDir();
  const dir = `${root}/compliance-level-2/0001-t`;
  await Deno.mkdir(dir, { recursive: true });
  await Deno.writeTextFile(`${dir}/t.dmn`, MODEL);
  await Deno.writeTextFile(`${dir}/0001-t-test-01.xml`, TESTS);
  return root;
}

Deno.test("the runner classifies every result node and counts them per group", async () => {
  const root = await corpus();
  try {
    const results = await runTck(root);
    assert.deepEqual(results.map((r) => [r.caseId, r.node, r.outcome]), [
      ["001", "double", "PASS"],
      ["001", "pair", "PASS"],
      ["002", "double", "FAIL"],
      ["003", "pmml", "UNSUPPORTED"],
      // A wrong value is a failure even where an unsupported construct was reached.
      ["003", "pmmlThenValue", "FAIL"],
      ["004", "pmml", "UNSUPPORTED"],
    ]);
    assert.equal(results[2].reason, "expected 3, got 2");
    assert.deepEqual(summarize(results), {
      groups: { "compliance-level-2": { pass: 2, fail: 2, unsupported: 2, total: 6 } },
      pass: 2,
      fail: 2,
      unsupported: 2,
      total: 6,
    });
    assert.match(
      textReport(results),
      /FAIL {8}compliance-level-2\/0001-t\/0001-t-test-01#002\/double/,
    );
    const rows = resultsCsv(results).split("\n");
    assert.deepEqual(rows.slice(0, 2), [
      '"compliance-level-2/0001-t","0001-t-test-01","001","SUCCESS",""',
      '"compliance-level-2/0001-t","0001-t-test-01","002","ERROR","double: expected 3, got 2"',
    ]);
    // Quotes inside a field are doubled, as CSV requires.
    assert.ok(rows[2].startsWith(
      '"compliance-level-2/0001-t","0001-t-test-01","003","ERROR","pmmlThenValue: expected ""other""',
    ));
    assert.equal(
      rows[3],
      '"compliance-level-2/0001-t","0001-t-test-01","004","IGNORED","pmml: not supported: PMML functions"',
    );
    assert.equal(rows.length, 5);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("numbers compare within 1e-8; contexts need the same entries", () => {
  assert.equal(same(feelNumber("1.000000001"), feelNumber("1")), true);
  assert.equal(same(feelNumber("1.0001"), feelNumber("1")), false);
  assert.equal(same(fromJs({ a: 1, b: 2 }), fromJs({ a: 1 })), false);
  assert.equal(same(fromJs([1, "x"]), fromJs([1, "x"])), true);
  assert.equal(same(null, fromJs(0)), false);
});

Deno.test("test files: typed, untyped, nil, components and lists", () => {
  const f = readTestFile(`<testCases xmlns="http://www.omg.org/spec/DMN/20160719/testcase"
    xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
    <testCase id="a" type="decisionService" invocableName="svc">
      <inputNode name="d" namespace="urn:x"><value xsi:type="xsd:date">2020-01-02</value></inputNode>
      <resultNode name="r" errorResult="true"><expected><list><item><value>7</value></item>
        <item><value xsi:nil="true"/></item></list></expected></resultNode>
    </testCase></testCases>`);
  assert.ok(typeof f !== "string");
  const c = f.cases[0];
  assert.deepEqual([c.id, c.type, c.invocableName, c.inputs[0].namespace], [
    "a",
    "decisionService",
    "svc",
    "urn:x",
  ]);
  assert.equal(c.results[0].errorResult, true);
  assert.deepEqual(c.results[0].expected, {
    kind: "list",
    items: [{ kind: "untyped", text: "7" }, { kind: "nil" }],
  });
  assert.equal(formatFeel(toFeel(c.inputs[0].value)), 'date("2020-01-02")');
  assert.equal(typeof readTestFile("<oops>"), "string");
});

Deno.test("groups are the nearest compliance-level or non-compliant folder", () => {
  assert.equal(groupOf("compliance-level-3/0001-filter"), "compliance-level-3");
  assert.equal(groupOf("x/non-compliant/y/z"), "non-compliant");
  assert.equal(groupOf("elsewhere"), "other");
});

Deno.test("arguments: a directory, --format text|json, --results-dir", () => {
  assert.deepEqual(parseArgs(["d"]), { dir: "d", format: "text" });
  assert.deepEqual(parseArgs(["d", "--format", "json", "--results-dir", "out"]), {
    dir: "d",
    format: "json",
    resultsDir: "out",
  });
  assert.equal(typeof parseArgs([]), "string");
  assert.equal(typeof parseArgs(["d", "--format", "xml"]), "string");
  assert.equal(typeof parseArgs(["d", "--results-dir"]), "string");
  assert.equal(typeof parseArgs(["d", "--bogus"]), "string");
});
