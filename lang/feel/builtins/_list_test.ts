import assert from "node:assert/strict";
import { FeelFunction } from "../values.ts";
import { valueCompare } from "../semantics.ts";
import { show, showNamed } from "./_testing.ts";

Deno.test("list contains, count, index of use FEEL equality", () => {
  assert.equal(show("list contains", [1, 2, 3], 2), "true");
  assert.equal(show("list contains", [1, null], null), "true");
  assert.equal(show("list contains", [1, "a"], "a"), "true");
  assert.equal(show("list contains", null, 1), "null");
  assert.equal(show("count", [1, [2, 3]]), "2");
  assert.equal(show("count", []), "0");
  assert.equal(show("index of", [1, 2, 3, 2], 2), "[2, 4]");
  assert.equal(show("index of", ["a"], "b"), "[]");
});

Deno.test("min and max take a list or arguments", () => {
  assert.equal(show("min", [1, 2, 3]), "1");
  assert.equal(show("max", 1, 2, 3), "3");
  assert.equal(show("min", 1), "1");
  assert.equal(show("max", ["a", "ab"]), '"ab"');
  assert.equal(show("max", []), "null");
  assert.equal(show("min", [1, "a"]), "null");
  assert.equal(show("min"), "null");
  assert.equal(showNamed("min", { list: [3, 1] }), "1");
});

Deno.test("all and any follow ternary logic", () => {
  assert.equal(show("all", [false, null, true]), "false");
  assert.equal(show("all", true), "true");
  assert.equal(show("all", []), "true");
  assert.equal(show("all", 0), "null");
  assert.equal(show("any", [false, null, true]), "true");
  assert.equal(show("any", []), "false");
  assert.equal(show("any", [123, false]), "null");
  assert.equal(show("any", null, false), "null");
  assert.equal(show("any"), "null");
  assert.equal(showNamed("any", { l: [true] }), "null");
});

Deno.test("sublist, append, concatenate, insert before, remove, reverse", () => {
  assert.equal(show("sublist", [4, 5, 6], 1, 2), "[4, 5]");
  assert.equal(show("sublist", ["a", "b", "c"], -1, 1), '["c"]');
  assert.equal(show("sublist", [1, 2], 3), "null");
  assert.equal(show("append", [1], 2, 3), "[1, 2, 3]");
  assert.equal(show("append", [1]), "[1]");
  assert.equal(show("append", [1], null), "[1, null]");
  assert.equal(show("concatenate", [1, 2], [3]), "[1, 2, 3]");
  assert.equal(show("insert before", [1, 3], 1, 2), "[2, 1, 3]");
  assert.equal(show("insert before", [1, 3], -1, 2), "[1, 2, 3]");
  assert.equal(show("insert before", [1, 3], 3, 2), "null");
  assert.equal(show("remove", [1, 2, 3], 2), "[1, 3]");
  assert.equal(show("remove", [1, 2, 3], 0), "null");
  assert.equal(show("reverse", [1, 2, 3]), "[3, 2, 1]");
});

Deno.test("list replace by position or by match function", () => {
  assert.equal(show("list replace", [1, 2, 3], 2, 4), "[1, 4, 3]");
  assert.equal(show("list replace", [1, 2, 3], -1.5, 4), "[1, 2, 4]");
  assert.equal(show("list replace", [1, 2, 3], 3, null), "[1, 2, null]");
  assert.equal(show("list replace", [1, 2, 3], 4, 4), "null");
  assert.equal(show("list replace", [1, 2, 3], "2", 4), "null");
  assert.equal(show("list replace", 1, 1, 5), "[5]");
  const lessThan = new FeelFunction(
    [[{ name: "item" }, { name: "newItem" }]],
    ([a, b], env) => valueCompare(a!, b!, env)! < 0,
  );
  assert.equal(show("list replace", [2, 4, 7, 8], lessThan, 5), "[5, 5, 7, 8]");
  assert.equal(showNamed("list replace", { match: lessThan, newItem: 5, list: [9, 1] }), "[9, 5]");
  const oneParam = new FeelFunction([[{ name: "item" }]], () => true);
  assert.equal(show("list replace", [2, 4], oneParam, 5), "null");
  assert.equal(
    showNamed("list replace", { position: 2, newItem: 4, list: [1, 2, 3], foo: 1 }),
    "null",
  );
});

Deno.test("union, distinct values, flatten", () => {
  assert.equal(show("union", [1, 2], [2, 3]), "[1, 2, 3]");
  assert.equal(show("distinct values", [1, 2, 3, 2, 1]), "[1, 2, 3]");
  assert.equal(show("distinct values", [[1], [1], { a: 1 }, { a: 1 }]), "[[1], {a: 1}]");
  assert.equal(show("flatten", [[1, 2], [[3]], 4]), "[1, 2, 3, 4]");
  assert.equal(show("flatten", 1), "[1]");
});

Deno.test("sort with a precedes function or natural order", () => {
  const desc = new FeelFunction(
    [[{ name: "x" }, { name: "y" }]],
    ([a, b], env) => valueCompare(a!, b!, env)! > 0,
  );
  assert.equal(show("sort", [3, 1, 4, 5, 2], desc), "[5, 4, 3, 2, 1]");
  assert.equal(showNamed("sort", { list: [3, 1, 2], precedes: desc }), "[3, 2, 1]");
  assert.equal(show("sort", ["b", "a"]), '["a", "b"]');
  assert.equal(show("sort", [1, "a"]), "null");
  const notBoolean = new FeelFunction([[{ name: "x" }, { name: "y" }]], () => "yes");
  assert.equal(show("sort", [1, 2], notBoolean), "null");
});
