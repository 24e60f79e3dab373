import assert from "node:assert/strict";
import {
  compile,
  evaluate,
  evaluateBoolean,
  FeelContext,
  FeelDecimal,
  formatFeel,
  parse,
  paths,
  toJs,
  unaryTest,
} from "./mod.ts";

Deno.test("mod: evaluate text against a plain object", () => {
  const r = evaluate('amount > 100 and currency = "EUR"', { amount: 150, currency: "EUR" });
  assert.deepEqual(r, { value: true, warnings: [] });
});

Deno.test("mod: evaluate a compiled expression many times", () => {
  const c = compile("price * qty");
  assert.ok(c.compiled !== undefined);
  for (let qty = 1; qty <= 3; qty++) {
    const r = evaluate(c.compiled, { price: 2.5, qty });
    assert.ok(r.diagnostics === undefined);
    assert.equal(toJs(r.value), 2.5 * qty);
  }
});

Deno.test("mod: numbers come back as decimals", () => {
  const r = evaluate("0.1 + 0.2");
  assert.ok(r.value instanceof FeelDecimal);
  assert.equal(r.value.toString(), "0.3");
});

Deno.test("mod: a malformed expression gives diagnostics, never a throw", () => {
  const r = evaluate("1 +* 2");
  assert.ok(r.diagnostics !== undefined);
  assert.equal(r.diagnostics[0].code, "SUTRA.FEEL.PARSE");
  assert.deepEqual(r.diagnostics[0].source, { line: 1, column: 4, offset: 3 });
});

Deno.test("mod: parse returns the tree or diagnostics", () => {
  const ok = parse("a + 1");
  assert.equal(ok.ast?.kind, "Binary");
  const bad = parse("a +", { uri: "memory:x" });
  assert.equal(bad.diagnostics?.[0].source?.uri, "memory:x");
  const tests = parse("< 5, > 10", { mode: "unaryTests" });
  assert.equal(tests.ast?.kind, "UnaryTests");
});

Deno.test("mod: evaluateBoolean is true only for boolean true", () => {
  assert.deepEqual(evaluateBoolean("x > 1", { x: 2 }), { value: true, warnings: [] });
  assert.deepEqual(evaluateBoolean("x > 1", { x: 0 }), { value: false, warnings: [] });
  const nul = evaluateBoolean("x > 1", {});
  assert.equal(nul.value, false);
  assert.equal(nul.warnings?.[0], "no variable named 'x'");
  const str = evaluateBoolean('"yes"');
  assert.equal(str.value, false);
  assert.match(str.warnings?.[0] ?? "", /gave string instead of a boolean/);
});

Deno.test("mod: unaryTest applies a test list to an input", () => {
  assert.deepEqual(unaryTest("< 10, [20..30]", 25), { value: true, warnings: [] });
  assert.deepEqual(unaryTest("< 10, [20..30]", 15), { value: false, warnings: [] });
  assert.deepEqual(unaryTest("-", "anything"), { value: true, warnings: [] });
  assert.deepEqual(unaryTest("? > limit", 7, { context: { limit: 5 } }), {
    value: true,
    warnings: [],
  });
  assert.equal(unaryTest("< 10", null).value, null);
  const bad = unaryTest("< ", 1);
  assert.equal(bad.diagnostics?.[0].code, "SUTRA.FEEL.PARSE");
});

Deno.test("mod: unaryTest refuses an expression compiled as an expression", () => {
  const c = compile("1");
  assert.ok(c.compiled !== undefined);
  assert.ok(unaryTest(c.compiled, 1).diagnostics !== undefined);
});

Deno.test("mod: paths without evaluating", () => {
  assert.deepEqual(paths("fromAccount.balance < payload.amount"), {
    paths: ["fromAccount.balance", "payload.amount"],
  });
  assert.deepEqual(paths("for x in xs return x.a"), { paths: ["xs"] });
  assert.ok(paths("(").diagnostics !== undefined);
});

Deno.test("mod: a FEEL context works as input", () => {
  const ctx = new FeelContext(new Map([["a", new FeelDecimal(4)]]));
  assert.equal(formatFeel(evaluate("a * a", ctx).value ?? null), "16");
});

Deno.test("mod: determinism with and without a clock", () => {
  const refused = evaluate("now()", {}, { deterministic: true });
  assert.equal(refused.diagnostics?.[0].code, "SUTRA.FEEL.NONDETERMINISTIC");
  const fixed = evaluate("today()", {}, { deterministic: true, now: Date.UTC(2030, 0, 2) });
  assert.equal(formatFeel(fixed.value ?? null), 'date("2030-01-02")');
  const free = evaluate("today() instance of date");
  assert.equal(free.value, true);
});

Deno.test("mod: names option resolves names containing keywords", () => {
  const r = evaluate("count(values in a list)", { "values in a list": [1, 2] }, {
    names: ["values in a list"],
  });
  assert.equal(formatFeel(r.value ?? null), "2");
});
