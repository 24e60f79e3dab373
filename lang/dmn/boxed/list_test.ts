import assert from "node:assert/strict";
import { decision, dmn, inputData, literal, value } from "../_testing.ts";

Deno.test("a boxed list evaluates each item in order", () => {
  const xml = dmn(
    inputData("x", "number") +
      decision("d", `<list>${literal("x")}${literal("x + 1")}${literal('"three"')}</list>`, {
        inputs: ["x"],
      }),
  );
  assert.equal(value(xml, "d", { x: 1 }), '[1, 2, "three"]');
});

Deno.test("an empty boxed list is an empty list", () => {
  assert.equal(value(dmn(decision("d", "<list/>")), "d"), "[]");
});
