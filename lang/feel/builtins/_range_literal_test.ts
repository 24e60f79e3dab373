import assert from "node:assert/strict";
import { show, showNamed } from "./_testing.ts";

Deno.test("range() reads interval literals with literal endpoints", () => {
  assert.equal(show("range", "[18..21)"), "[18..21)");
  assert.equal(show("range", "]18..21["), "(18..21)");
  assert.equal(show("range", " [ 1 .. 3 ] "), "[1..3]");
  assert.equal(show("range", '["a".."c"]'), '["a".."c"]');
  assert.equal(show("range", '[@"P1D"..@"P2D"]'), '[duration("P1D")..duration("P2D")]');
  assert.equal(
    show("range", '[date("1970-01-01")..@"1970-01-02"]'),
    '[date("1970-01-01")..date("1970-01-02")]',
  );
  assert.equal(show("range", "[-2.5..1e1]"), "[-2.5..10]");
  assert.equal(showNamed("range", { from: "[1..3]" }), "[1..3]");
});

Deno.test("range() reads open-ended literals as unary comparisons", () => {
  assert.equal(show("range", "[2..)"), ">= 2");
  assert.equal(show("range", "(..2)"), "< 2");
  assert.equal(show("range", "(..2]"), "<= 2");
  assert.equal(show("range", "[..2]"), "null");
  assert.equal(show("range", "[1..]"), "null");
  assert.equal(show("range", "[..]"), "null");
});

Deno.test("range() refuses anything but a literal range", () => {
  for (
    const bad of [
      "",
      " ",
      ">=10",
      '[1.."b"]',
      "[3..1]",
      '[@"1970-01-01"..@"1970-01-02T00:00:00"]',
      '[date(string("1970-01-01"))..date("1970-01-02")]',
      "[null..null]",
      "[1..3] x",
    ]
  ) assert.equal(show("range", bad), "null", bad);
  assert.equal(show("range", "[1..3]", "foo"), "null");
  assert.equal(showNamed("range", { fron: "[1..3]" }), "null");
});
