import assert from "node:assert/strict";
import { decision, dmn, literal, run, value } from "../_testing.ts";

const relation = (rows: string[][]) =>
  `<relation><column name="name" typeRef="string"/><column name="age" typeRef="number"/>${
    rows.map((r) => `<row>${r.map((c) => literal(c)).join("")}</row>`).join("")
  }</relation>`;

Deno.test("a relation is a list of contexts keyed by its columns", () => {
  const xml = dmn(decision("d", relation([['"Ann"', "30"], ['"Bob"', "20 + 5"]])));
  assert.equal(value(xml, "d"), '[{name: "Ann", age: 30}, {name: "Bob", age: 25}]');
});

Deno.test("relation cells convert to their column's type", () => {
  const xml = dmn(decision("d", relation([['"Ann"', '"thirty"']])));
  const r = run(xml, "d");
  assert.equal(value(xml, "d"), '[{name: "Ann", age: null}]');
  assert.match(r.warnings.join("\n"), /relation column 'age'/);
});
