import assert from "node:assert/strict";
import { decision, dmn, inputData, run, table, value } from "../_testing.ts";

const ages = (hitPolicy: string, outputs?: { name?: string; values?: string }[]) =>
  dmn(
    inputData("age", "number") +
      decision(
        "d",
        table({
          hitPolicy,
          inputs: ["age"],
          outputs: outputs ?? [{ values: '"gold", "silver", "bronze"' }],
          rules: [
            [[">= 0"], ['"bronze"']],
            [[">= 18"], ['"gold"']],
            [[">= 12"], ['"silver"']],
          ],
        }),
        { inputs: ["age"] },
      ),
  );

Deno.test("RULE ORDER: every match, in the order of the rules", () => {
  assert.equal(value(ages("RULE ORDER"), "d", { age: 20 }), '["bronze", "gold", "silver"]');
  assert.equal(value(ages("RULE ORDER"), "d", { age: 5 }), '["bronze"]');
});

Deno.test("OUTPUT ORDER: every match, sorted by the output values' priority", () => {
  assert.equal(value(ages("OUTPUT ORDER"), "d", { age: 20 }), '["gold", "silver", "bronze"]');
  assert.equal(value(ages("OUTPUT ORDER"), "d", { age: 14 }), '["silver", "bronze"]');
});

Deno.test("COLLECT without aggregation: every match in rule order; none is an empty list", () => {
  assert.equal(value(ages("COLLECT"), "d", { age: 14 }), '["bronze", "silver"]');
  assert.equal(value(ages("COLLECT"), "d", { age: -1 }), "[]");
});

Deno.test("multiple-hit tables with several outputs give a list of contexts", () => {
  const xml = dmn(
    inputData("x", "number") +
      decision(
        "d",
        table({
          hitPolicy: "RULE ORDER",
          inputs: ["x"],
          outputs: [{ name: "code" }, { name: "weight" }],
          rules: [[["> 0"], ['"P"', "1"]], [["> 1"], ['"Q"', "2"]]],
        }),
        { inputs: ["x"] },
      ),
  );
  assert.equal(value(xml, "d", { x: 5 }), '[{code: "P", weight: 1}, {code: "Q", weight: 2}]');
});

Deno.test("a multiple-hit table with a default output gives it as a one-item list", () => {
  const xml = dmn(
    inputData("x", "number") +
      decision(
        "d",
        table({
          hitPolicy: "COLLECT",
          inputs: ["x"],
          outputs: [{ default: '"none"' }],
          rules: [[["> 0"], ['"some"']]],
        }),
        { inputs: ["x"] },
      ),
  );
  assert.equal(value(xml, "d", { x: -1 }), '["none"]');
  assert.deepEqual(run(xml, "d", { x: 1 }).value, ["some"]);
});
