import assert from "node:assert/strict";
import { decision, dmn, inputData, literal, run, show, value } from "../_testing.ts";

const filter = (list: string, match: string) =>
  dmn(
    inputData("limit", "number") +
      decision(
        "d",
        `<filter><in>${literal(list)}</in><match>${literal(match)}</match></filter>`,
        { inputs: ["limit"] },
      ),
  );

Deno.test("a filter keeps the items whose match is true, with 'item' bound", () => {
  assert.equal(value(filter("[1, 5, 10, 20]", "item > limit"), "d", { limit: 5 }), "[10, 20]");
});

Deno.test("a context item's entries are names inside the match", () => {
  const xml = filter('[{n: "a", v: 1}, {n: "b", v: 9}]', "v > limit");
  assert.equal(value(xml, "d", { limit: 2 }), '[{n: "b", v: 9}]');
});

Deno.test("a single value is filtered as a one-item list; null stays null", () => {
  assert.equal(value(filter("7", "item > limit"), "d", { limit: 1 }), "[7]");
  assert.equal(value(filter("null", "item > limit"), "d", { limit: 1 }), "null");
});

Deno.test("a match that is not a boolean for any item makes the whole filter null, with a warning", () => {
  // OMG DMN TCK compliance-level-3/1151-boxed-filter, cases 004 and 005.
  assert.equal(value(filter("[1, 2, 3]", '"not a boolean"'), "d", { limit: 0 }), "null");
  const partly = filter("[1, 2, 3, 4, 5]", 'if item <= limit then true else "not a boolean"');
  const r = run(partly, "d", { limit: 3 });
  assert.equal(show(r.value), "null");
  assert.ok(r.warnings.some((w) => /match gave string for item 4/.test(w)), r.warnings.join());
});

Deno.test("a null match skips its item, as a FEEL filter does", () => {
  const xml = filter("[{v: 1}, {w: 2}, {v: 9}]", "item.v > limit");
  assert.equal(value(xml, "d", { limit: 2 }), "[{v: 9}]");
});
