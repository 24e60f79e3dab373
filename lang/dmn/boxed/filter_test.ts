import assert from "node:assert/strict";
import { decision, dmn, inputData, literal, value } from "../_testing.ts";

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
