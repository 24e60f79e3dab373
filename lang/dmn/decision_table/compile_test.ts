import assert from "node:assert/strict";
import { evaluateDecision } from "../evaluate.ts";
import { loadModel } from "../models.ts";
import { decision, dmn, inputData, run, show, table, value } from "../_testing.ts";

const withInputs = (names: [string, string][], logic: string) =>
  dmn(
    names.map(([n, t]) => inputData(n, t)).join("") +
      decision("d", logic, { inputs: names.map(([n]) => n) }),
  );

Deno.test("several output columns give a context keyed by the output names", () => {
  const xml = withInputs(
    [["x", "number"]],
    table({
      inputs: ["x"],
      outputs: [{ name: "tier" }, { name: "limit", typeRef: "number" }],
      rules: [[["< 10"], ['"low"', "100"]], [[">= 10"], ['"high"', "1000"]]],
    }),
  );
  assert.equal(value(xml, "d", { x: 50 }), '{tier: "high", limit: 1000}');
});

Deno.test("cells are unary tests: lists, ranges, negation, '?' and names in scope", () => {
  const xml = withInputs(
    [["x", "number"], ["limit", "number"]],
    table({
      hitPolicy: "FIRST",
      inputs: ["x"],
      rules: [
        [["1, 2, 3"], ['"small"']],
        [["[4..6)"], ['"range"']],
        [["? > limit"], ['"over"']],
        [["not(7, 8)"], ['"other"']],
        [["-"], ['"seven or eight"']],
      ],
    }),
  );
  const v = (x: number) => value(xml, "d", { x, limit: 100 });
  assert.deepEqual([v(2), v(5), v(150), v(9), v(7)], [
    '"small"',
    '"range"',
    '"over"',
    '"other"',
    '"seven or eight"',
  ]);
});

Deno.test("an input outside its input values makes the table null with a warning", () => {
  const xml = withInputs(
    [["c", "string"]],
    table({
      inputs: [{ text: "c", values: '"red", "green"' }],
      rules: [[['"red"'], ["1"]], [['"green"'], ["2"]]],
    }),
  );
  assert.equal(value(xml, "d", { c: "green" }), "2");
  const r = run(xml, "d", { c: "blue" });
  assert.equal(r.value, null);
  assert.match(r.warnings.join("\n"), /input 'c' = "blue" is not among its input values/);
});

Deno.test("an output outside its output values makes the table null with a warning", () => {
  const xml = withInputs(
    [["x", "number"]],
    table({
      inputs: ["x"],
      outputs: [{ values: '"A", "B"' }],
      rules: [[["< 0"], ['"A"']], [[">= 0"], ['"C"']]],
    }),
  );
  assert.equal(value(xml, "d", { x: -1 }), '"A"');
  const r = run(xml, "d", { x: 1 });
  assert.equal(r.value, null);
  assert.match(r.warnings.join("\n"), /output of rule 2 = "C" is not among its output values/);
});

Deno.test("outputs convert to their type: a singleton list unwraps, a mismatch is null", () => {
  const xml = withInputs(
    [["x", "number"]],
    table({
      inputs: ["x"],
      outputs: [{ typeRef: "number" }],
      rules: [[["1"], ["[42]"]], [["2"], ['"no"']]],
    }),
  );
  assert.equal(value(xml, "d", { x: 1 }), "42");
  const r = run(xml, "d", { x: 2 });
  assert.equal(r.value, null);
  assert.match(r.warnings.join("\n"), /does not conform to type number/);
});

Deno.test("with no match a single-hit table gives its default outputs", () => {
  const xml = withInputs(
    [["x", "number"]],
    table({
      inputs: ["x"],
      outputs: [{ name: "a", default: '"none"' }, { name: "b" }],
      rules: [[["1"], ['"one"', "1"]]],
    }),
  );
  assert.equal(value(xml, "d", { x: 9 }), '{a: "none", b: null}');
});

Deno.test("a cell that does not parse is reported with its place and never matches", () => {
  const xml = withInputs(
    [["x", "number"]],
    table({ hitPolicy: "FIRST", inputs: ["x"], rules: [[["[1.."], ["1"]], [["-"], ["2"]]] }),
  );
  const loaded = loadModel(xml, { uri: "t.dmn" });
  const d = loaded.diagnostics.find((x) => x.code === "SUTRA.DMN.FEEL_SYNTAX");
  assert.ok(d !== undefined);
  assert.equal(d.source?.uri, "t.dmn");
  // The helper writes the whole decision on line 3 of the document.
  assert.equal(d.source?.line, 3);
  assert.equal(d.attributes?.feelCode, "SUTRA.FEEL.PARSE");
  const r = evaluateDecision(loaded.models!, "d", { x: 5 });
  assert.equal(show(r.value ?? null), "2");
  assert.match(r.warnings?.join("\n") ?? "", /input entry 1 does not parse/);
});

Deno.test("rules with the wrong number of cells are reported", () => {
  const xml = withInputs(
    [["x", "number"]],
    table({ inputs: ["x"], rules: [[["1", "2"], ["1"]]] }),
  );
  const messages = loadModel(xml).diagnostics.map((d) => d.message);
  assert.deepEqual(messages, [
    "rule 1 has 2 input and 1 output cell(s) for 1 input and 1 output column(s)",
  ]);
});
