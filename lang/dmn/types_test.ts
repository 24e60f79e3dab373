import assert from "node:assert/strict";
import {
  type FeelValue,
  formatFeel,
  fromJs,
  isInstanceOf,
  structureOf,
  typeName,
} from "../feel/mod.ts";
import { loadModel } from "./models.ts";
import { readDmn } from "./read.ts";
import { coerceToType, ModelTypes } from "./types.ts";
import { decision, dmn, inputData, literal, run, value } from "./_testing.ts";

const ITEMS = `
<itemDefinition name="tAge"><typeRef>number</typeRef><allowedValues><text>[0..150]</text></allowedValues></itemDefinition>
<itemDefinition name="tColour"><typeRef>string</typeRef><allowedValues><text>"red", "green"</text></allowedValues></itemDefinition>
<itemDefinition name="tColours" isCollection="true"><typeRef>string</typeRef><allowedValues><text>"red", "green"</text></allowedValues></itemDefinition>
<itemDefinition name="tPerson">
  <itemComponent name="name"><typeRef>string</typeRef></itemComponent>
  <itemComponent name="age"><typeRef>tAge</typeRef></itemComponent>
</itemDefinition>
<itemDefinition name="tTree">
  <itemComponent name="value"><typeRef>number</typeRef></itemComponent>
  <itemComponent name="children" isCollection="true"><typeRef>tTree</typeRef></itemComponent>
</itemDefinition>
<itemDefinition name="tFn"><functionItem outputTypeRef="string"><parameters name="x" typeRef="number"/></functionItem></itemDefinition>
<itemDefinition name="tBroken"><typeRef>tMissing</typeRef></itemDefinition>`;

function types(): ModelTypes {
  const r = readDmn(dmn(ITEMS));
  return new ModelTypes(r.model!, () => undefined);
}

function coerce(v: unknown, typeRef: string) {
  const warnings: string[] = [];
  const out = coerceToType(fromJs(v), types().resolve(typeRef), {
    warn: (m) => warnings.push(m),
  }, "the value");
  return { value: formatFeel(out), warnings };
}

Deno.test("item definitions become FEEL types; a recursive one names itself", () => {
  const t = types();
  assert.equal(typeName(t.resolve("tPerson")!), "tPerson");
  assert.equal(
    typeName(structureOf(t.resolve("tTree")!)),
    "context<value: number, children: list<tTree>>",
  );
  assert.equal(typeName(structureOf(t.resolve("tFn")!)), "function<number>->string");
  assert.equal(typeName(t.resolve("list<tColour>")!), "list<tColour>");
  assert.equal(t.resolve("nothing"), undefined);
});

Deno.test("an unknown typeRef inside an item definition is a problem, and the part is untyped", () => {
  const t = types();
  t.resolve("tBroken");
  assert.deepEqual(t.problems.map((p) => p.message), ["type 'tMissing' is not defined"]);
});

Deno.test("instance of tests the structure only: allowed values are not part of conformance", () => {
  const t = types();
  assert.equal(isInstanceOf(fromJs(300), t.resolve("tAge")!), true);
  assert.equal(isInstanceOf(fromJs({ name: "A", age: 3 }), t.resolve("tPerson")!), true);
  assert.equal(isInstanceOf(fromJs({ name: "A" }), t.resolve("tPerson")!), false);
  const tree: FeelValue = fromJs({ value: 1, children: [{ value: 2, children: [] }] });
  assert.equal(isInstanceOf(tree, t.resolve("tTree")!), true);
});

Deno.test("conversion: conforming values pass, singleton lists unwrap, single values wrap", () => {
  assert.deepEqual(coerce(5, "number"), { value: "5", warnings: [] });
  assert.deepEqual(coerce([5], "number"), { value: "5", warnings: [] });
  assert.deepEqual(coerce("red", "tColours"), { value: '["red"]', warnings: [] });
  assert.deepEqual(coerce(null, "number"), { value: "null", warnings: [] });
});

Deno.test("conversion: a non-conforming or disallowed value is null with a warning", () => {
  assert.deepEqual(coerce("5", "number"), {
    value: "null",
    warnings: ["the value: string value does not conform to type number; null used"],
  });
  assert.deepEqual(coerce(151, "tAge").value, "null");
  assert.match(coerce(151, "tAge").warnings[0], /151 is not among the allowed values of tAge/);
  assert.deepEqual(coerce(["red", "blue"], "tColours").value, "null");
  assert.deepEqual(coerce({ name: "A", age: 200 }, "tPerson").value, "null");
  assert.deepEqual(coerce({ name: "A", age: 20 }, "tPerson").value, '{name: "A", age: 20}');
});

Deno.test("input data are converted to their declared type when read", () => {
  const xml = dmn(
    ITEMS + inputData("p", "tPerson") + decision("d", literal("p.age"), { inputs: ["p"] }),
  );
  assert.equal(value(xml, "d", { p: { name: "A", age: 20 } }), "20");
  const r = run(xml, "d", { p: { name: "A", age: 200 } });
  assert.equal(r.value, null);
  assert.match(r.warnings.join("\n"), /input 'p'/);
});

Deno.test("allowed values that are not unary tests are a syntax error at load", () => {
  const xml = dmn(
    `<itemDefinition name="tBad"><typeRef>number</typeRef><allowedValues><text>[1..</text></allowedValues></itemDefinition>`,
  );
  assert.deepEqual(loadModel(xml).diagnostics.map((d) => [d.code, d.severity]), [[
    "SUTRA.DMN.FEEL_SYNTAX",
    "ERROR",
  ]]);
});
