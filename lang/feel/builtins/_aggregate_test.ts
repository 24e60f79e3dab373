import assert from "node:assert/strict";
import { show, showNamed } from "./_testing.ts";

Deno.test("sum, mean and product of a list or of arguments", () => {
  assert.equal(show("sum", [1, 2, 3]), "6");
  assert.equal(show("sum", 1, 2, 3), "6");
  assert.equal(show("sum", 1), "1");
  assert.equal(show("sum", []), "null");
  assert.equal(show("sum", [1, "a"]), "null");
  assert.equal(show("sum", [0.1, 0.2]), "0.3");
  assert.equal(show("mean", [1, 2, 3]), "2");
  assert.equal(show("mean", 5, 6, 6), "5.666666666666666666666666666666667");
  assert.equal(show("mean", []), "null");
  assert.equal(show("product", [2, 3, 4]), "24");
  assert.equal(show("product", 2, 3, 4), "24");
  assert.equal(show("product", []), "null");
});

Deno.test("median, stddev and mode", () => {
  assert.equal(show("median", 8, 2, 5, 3, 4), "4");
  assert.equal(show("median", [6, 1, 2, 3]), "2.5");
  assert.equal(show("median", []), "null");
  assert.equal(show("median", [1, 2, "foo"]), "null");
  assert.equal(show("stddev", 2, 4, 7, 5), "2.081665999466132735282297706979931");
  assert.equal(show("stddev", [47]), "null");
  assert.equal(show("stddev", 47), "null");
  assert.equal(show("mode", 6, 3, 9, 6, 6), "[6]");
  assert.equal(show("mode", [6, 1, 9, 6, 1]), "[1, 6]");
  assert.equal(show("mode", [2.5, 1, 2.5, 3]), "[2.5]");
  assert.equal(show("mode", []), "[]");
  assert.equal(showNamed("mode", { list: [1, 1, 2] }), "[1]");
  assert.equal(showNamed("median", { l: [1] }), "null");
});
