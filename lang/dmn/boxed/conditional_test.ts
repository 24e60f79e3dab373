import assert from "node:assert/strict";
import { decision, dmn, inputData, literal, run, value } from "../_testing.ts";

const conditional = (cond: string) =>
  dmn(
    inputData("x") +
      decision(
        "d",
        `<conditional><if>${literal(cond)}</if><then>${literal('"then"')}</then><else>${
          literal('"else"')
        }</else></conditional>`,
        { inputs: ["x"] },
      ),
  );

Deno.test("a conditional takes 'then' on true and 'else' on false or null", () => {
  assert.equal(value(conditional("x > 1"), "d", { x: 2 }), '"then"');
  assert.equal(value(conditional("x > 1"), "d", { x: 0 }), '"else"');
  assert.equal(value(conditional("x > 1"), "d", { x: null }), '"else"');
});

Deno.test("a non-boolean condition makes the conditional null with a warning", () => {
  const r = run(conditional("x"), "d", { x: "abc" });
  assert.equal(r.value, null);
  assert.match(r.warnings.join("\n"), /condition gave string instead of a boolean/);
});
