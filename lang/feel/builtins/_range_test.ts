import assert from "node:assert/strict";
import { feelRange, type FeelValue } from "../values.ts";
import { FeelDecimal } from "../values.ts";
import { call, callNamed, show } from "./_testing.ts";
import { formatFeel } from "../semantics.ts";

/** `[a..b]` with inclusivity from the bracket characters. */
function r(text: string): FeelValue {
  const m = /^([[(\]])(-?\d*)\.\.(-?\d*)([\])[])$/.exec(text)!;
  const num = (s: string) => (s === "" ? null : new FeelDecimal(s));
  const start = num(m[2]);
  const end = num(m[3]);
  const si = m[1] === "[";
  const ei = m[4] === "]";
  const op = start === null ? (ei ? "<=" : "<") : end === null ? (si ? ">=" : ">") : undefined;
  return feelRange(start, si, end, ei, op);
}

const cases: [string, unknown, unknown, string][] = [
  ["before", 1, 10, "true"],
  ["before", 10, 1, "false"],
  ["before", 1, r("[1..10]"), "false"],
  ["before", 1, r("(1..10]"), "true"],
  ["before", r("[1..10)"), 10, "true"],
  ["before", r("[1..10]"), r("[10..20]"), "false"],
  ["before", r("[1..10)"), r("[10..20]"), "true"],
  ["after", 12, r("[1..10]"), "true"],
  ["after", r("(11..20]"), 11, "true"],
  ["after", r("[11..20]"), r("[1..11)"), "true"],
  ["meets", r("[1..5]"), r("[5..10]"), "true"],
  ["meets", r("[1..5)"), r("[5..10]"), "false"],
  ["met by", r("[5..10]"), r("[1..5]"), "true"],
  ["overlaps", r("[1..5]"), r("[3..8]"), "true"],
  ["overlaps", r("[1..5)"), r("(5..8]"), "false"],
  ["overlaps", r("[5..8]"), r("[1..5]"), "true"],
  ["overlaps before", r("[1..5)"), r("(1..5]"), "true"],
  ["overlaps before", r("[1..5]"), r("[1..5]"), "false"],
  ["overlaps after", r("(1..5]"), r("[1..5)"), "true"],
  ["overlaps after", r("[1..5]"), r("[1..5)"), "false"],
  ["finishes", 10, r("[1..10]"), "true"],
  ["finishes", r("[5..10)"), r("[1..10)"), "true"],
  ["finishes", r("[5..10)"), r("[1..10]"), "false"],
  ["finished by", r("[1..10]"), r("(1..10]"), "true"],
  ["includes", r("[1..10]"), 10, "true"],
  ["includes", r("[1..10)"), 10, "false"],
  ["includes", r("[1..10]"), r("(1..10)"), "true"],
  ["during", 5, r("[1..10]"), "true"],
  ["during", r("(1..10]"), r("[1..10]"), "true"],
  ["starts", 1, r("(1..10]"), "false"],
  ["starts", r("[1..10)"), r("[1..10]"), "true"],
  ["started by", r("[1..10]"), r("[1..10)"), "true"],
  ["coincides", 5, 5, "true"],
  ["coincides", r("(1..5)"), r("[1..5]"), "false"],
  ["before", r("(..5)"), 5, "true"],
  ["after", r("[5..)"), r("[1..3]"), "true"],
  ["includes", r("(..5)"), -1000, "true"],
];

Deno.test("range relations follow the DMN 1.5 tables", () => {
  for (const [fn, a, b, want] of cases) {
    const text = (x: unknown) => (typeof x === "number" ? String(x) : formatFeel(x as FeelValue));
    assert.equal(show(fn, a, b), want, `${fn}(${text(a)}, ${text(b)})`);
  }
});

Deno.test("range relations check argument shapes and comparability", () => {
  assert.equal(show("meets", 1, 2), "null");
  assert.equal(show("before", 1, "a"), "null");
  assert.equal(show("before", null, 1), "null");
  assert.equal(call("before", r("[1..5]"), r("[1..5]")), false);
  assert.equal(callNamed("before", { point: 1, range: r("[2..3]") }), true);
  assert.equal(callNamed("before", { point: r("[2..3]"), range: 1 }), null);
  assert.equal(callNamed("finishes", { range1: r("[5..10]"), range2: r("[1..10]") }), true);
  assert.equal(callNamed("coincides", { point1: 1, point2: 1 }), true);
  // A null endpoint written in an interval literal is not "unbounded".
  assert.equal(show("before", 1, feelRange(null, true, new FeelDecimal(5), true)), "null");
});
