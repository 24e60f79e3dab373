import assert from "node:assert/strict";
import { decision, dmn, inputData, run, table, value } from "../_testing.ts";

const scored = (hitPolicy: string, rules: [string[], string[]][], values?: string) =>
  dmn(
    inputData("score", "number") +
      decision(
        "d",
        table({
          hitPolicy,
          inputs: ["score"],
          outputs: [{ values }],
          rules,
        }),
        { inputs: ["score"] },
      ),
  );

Deno.test("UNIQUE: the one matching rule gives the value; none gives null", () => {
  const xml = scored("UNIQUE", [[["< 10"], ['"low"']], [[">= 10"], ['"high"']]]);
  assert.equal(value(xml, "d", { score: 3 }), '"low"');
  assert.equal(value(xml, "d", { score: 30 }), '"high"');
  assert.equal(value(xml, "d", { score: null }), "null");
});

Deno.test("UNIQUE: two matching rules are a violation: null with a warning naming them", () => {
  const xml = scored("UNIQUE", [[["< 10"], ['"a"']], [["< 20"], ['"b"']]]);
  const r = run(xml, "d", { score: 5 });
  assert.equal(r.value, null);
  assert.match(r.warnings.join("\n"), /UNIQUE: rules 1, 2 all match/);
});

Deno.test("ANY: matches with equal outputs agree; different outputs are a violation", () => {
  const xml = scored("ANY", [[["< 10"], ['"a"']], [["< 20"], ['"a"']], [["< 5"], ['"b"']]]);
  assert.equal(value(xml, "d", { score: 7 }), '"a"');
  const r = run(xml, "d", { score: 3 });
  assert.equal(r.value, null);
  assert.match(r.warnings.join("\n"), /ANY: matching rules 1, 2, 3 give different outputs/);
});

Deno.test("FIRST: the first match in rule order wins and later rules are not tested", () => {
  // Rule 2's cell compares a number with a string: testing it would warn.
  const xml = scored("FIRST", [[["< 10"], ['"a"']], [['? < "x"'], ['"b"']], [["< 30"], ['"c"']]]);
  const r = run(xml, "d", { score: 5 });
  assert.equal(r.value, "a");
  assert.deepEqual(r.warnings, []);
  const later = run(xml, "d", { score: 15 });
  assert.equal(later.value, "c");
  assert.match(later.warnings.join("\n"), /cannot compare|cannot apply/);
});

Deno.test("PRIORITY: the match whose output ranks first in the output values wins", () => {
  const xml = scored(
    "PRIORITY",
    [[["< 10"], ['"ACCEPT"']], [["< 20"], ['"REFER"']], [["< 30"], ['"DECLINE"']]],
    '"DECLINE", "REFER", "ACCEPT"',
  );
  assert.equal(value(xml, "d", { score: 5 }), '"DECLINE"');
  assert.equal(value(xml, "d", { score: 15 }), '"DECLINE"');
  assert.equal(value(xml, "d", { score: 0 }), '"DECLINE"');
  const twoRules = scored(
    "PRIORITY",
    [[["< 10"], ['"ACCEPT"']], [["< 20"], ['"REFER"']]],
    '"DECLINE", "REFER", "ACCEPT"',
  );
  assert.equal(value(twoRules, "d", { score: 5 }), '"REFER"');
});

Deno.test("PRIORITY with several outputs ranks by the first output, then the next", () => {
  const xml = dmn(
    inputData("x", "number") +
      decision(
        "d",
        table({
          hitPolicy: "PRIORITY",
          inputs: ["x"],
          outputs: [{ name: "a", values: '"hi", "lo"' }, { name: "b", values: "1, 2, 3" }],
          rules: [[["-"], ['"lo"', "1"]], [["-"], ['"hi"', "3"]], [["-"], ['"hi"', "2"]]],
        }),
        { inputs: ["x"] },
      ),
  );
  assert.equal(value(xml, "d", { x: 1 }), '{a: "hi", b: 2}');
});
