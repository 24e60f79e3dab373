import assert from "node:assert/strict";
import { FeelContext, FeelDecimal, fromJs, toJs } from "../feel/mod.ts";
import {
  evaluate,
  type EvaluateRulesetOptions,
  parseRuleset,
  type Ruleset,
  SrlCode,
  type SrlEvaluation,
  type SrlRefusal,
} from "./mod.ts";

function ruleset(text: string): Ruleset {
  const r = parseRuleset(text, { uri: "rules/t.srl" });
  assert.equal(r.diagnostics, undefined, JSON.stringify(r.diagnostics));
  return r.ruleset!;
}

function run(
  text: string,
  context: Record<string, unknown>,
  options?: EvaluateRulesetOptions,
): SrlEvaluation {
  const r = evaluate(ruleset(text), context, options);
  assert.equal(r.diagnostics, undefined, JSON.stringify(r.diagnostics));
  return r as SrlEvaluation;
}

function refused(text: string, context: Record<string, unknown>): SrlRefusal {
  const r = evaluate(ruleset(text), context);
  assert.equal(r.issues, undefined, "expected the evaluation to be refused");
  assert.equal(r.diagnostics!.length, 1);
  return r as SrlRefusal;
}

const CURRENCY = `
rule "currency-not-usd"
when
  payload.amount.currency != null and payload.amount.currency != "USD"
then
  report(
    "SUTRA.VALIDATE.CURRENCY_NOT_USD",
    "payload.amount.currency",
    "Currency must be USD; got " + payload.amount.currency
  );
end`;

Deno.test("report appends an issue with code, severity, path, message, value and rule", () => {
  const r = run(CURRENCY, { payload: { amount: { currency: "EUR", value: 10 } } });
  assert.deepEqual(r.issues, [{
    code: "SUTRA.VALIDATE.CURRENCY_NOT_USD",
    severity: "ERROR",
    path: "payload.amount.currency",
    message: "Currency must be USD; got EUR",
    value: "EUR",
    rule: "currency-not-usd",
  }]);
  assert.deepEqual(r.fired, ["currency-not-usd"]);
  assert.equal(r.outputs.size, 0);
});

Deno.test("a false condition fires nothing", () => {
  const r = run(CURRENCY, { payload: { amount: { currency: "USD" } } });
  assert.deepEqual(r.issues, []);
  assert.deepEqual(r.fired, []);
});

Deno.test("an issue's value follows dotted paths and 1-based list positions; missing is null", () => {
  const r = run(
    `rule "r" when true then
       report("A", "payload.items[2].sku", "x");
       report("B", "payload.items[9].sku", "x");
       report("C", "nowhere.at.all", "x");
       report("D", "payload.total", "x");
       report("E", "payload.items[x].sku", "x");
       report("F", "payload..total", "x");
       report("G", "payload.items[1][1]", "x");
     end`,
    { payload: { items: [{ sku: "a" }, { sku: "b" }], total: 12.5 } },
  );
  assert.deepEqual(r.issues.map((i) => i.value), [
    "b",
    null,
    null,
    new FeelDecimal("12.5"),
    null,
    null,
    null,
  ]);
});

Deno.test("rules fire in agenda order: salience descending, then declaration order", () => {
  const r = run(
    `rule "late" salience -10 when true then report("LATE", "", ""); end
     rule "plain-1" when true then report("P1", "", ""); end
     rule "urgent" salience 100 when true then report("URGENT", "", ""); end
     rule "plain-2" when true then report("P2", "", ""); end`,
    {},
  );
  assert.deepEqual(r.issues.map((i) => i.code), ["URGENT", "P1", "P2", "LATE"]);
  assert.deepEqual(r.fired, ["urgent", "plain-1", "plain-2", "late"]);
});

Deno.test("activation group: the first rule whose condition holds wins, the rest are skipped", () => {
  const rules = `
    rule "gold" salience 30 activation-group "tier" when amount >= 10000 then set(tier, "gold"); end
    rule "silver" salience 20 activation-group "tier" when amount >= 1000 then set(tier, "silver"); end
    rule "bronze" salience 10 activation-group "tier" when true then set(tier, "bronze"); end
    rule "audit" when true then report("AUDIT", "amount", "tier " + tier); end`;
  const cases: [number, string, string[]][] = [
    [50000, "gold", ["gold", "audit"]],
    [5000, "silver", ["silver", "audit"]],
    [5, "bronze", ["bronze", "audit"]],
  ];
  for (const [amount, tier, fired] of cases) {
    const r = run(rules, { amount });
    assert.equal(r.outputs.get("tier"), tier);
    assert.deepEqual(r.fired, fired);
    assert.equal(r.issues[0].message, `tier ${tier}`);
  }
});

Deno.test("activation group: a skipped rule's condition is never evaluated", () => {
  // The second rule would fail (null condition) if it were evaluated after the group fired.
  const r = run(
    `rule "a" activation-group "g" when true then report("A", "", ""); end
     rule "b" activation-group "g" when missing > 1 then report("B", "", ""); end
     rule "c" activation-group "other" when true then report("C", "", ""); end`,
    {},
  );
  assert.deepEqual(r.issues.map((i) => i.code), ["A", "C"]);
});

Deno.test("activation group: salience, not declaration order, decides who is first", () => {
  const r = run(
    `rule "declared-first" activation-group "g" when true then set(winner, "declared-first"); end
     rule "more-salient" salience 1 activation-group "g" when true then set(winner, "more-salient"); end`,
    {},
  );
  assert.equal(r.outputs.get("winner"), "more-salient");
  assert.deepEqual(r.fired, ["more-salient"]);
});

Deno.test("mixed chain: set from one rule feeds the next rule's condition and report", () => {
  const r = run(
    `rule "score" salience 30 when true then
       set(riskScore, payload.amount / 100 + (if payload.country = "XX" then 50 else 0));
     end
     rule "classify" salience 20 when riskScore > 60 then set(review, true); end
     rule "escalate" salience 10 when review = true then
       report("SUTRA.VALIDATE.REVIEW", "payload.amount", "risk " + string(riskScore) + " needs review");
       set(queue, "manual");
     end`,
    { payload: { amount: 2500, country: "XX" } },
  );
  assert.deepEqual(r.fired, ["score", "classify", "escalate"]);
  assert.deepEqual([...r.outputs].map(([k, v]) => [k, toJs(v)]), [
    ["riskScore", 75],
    ["review", true],
    ["queue", "manual"],
  ]);
  assert.equal(r.issues[0].message, "risk 75 needs review");
});

Deno.test("a set is visible to later rules only, and a rule fires at most once", () => {
  const r = run(
    `rule "reads-before" salience 10 when flag = null then report("BEFORE", "flag", "unset"); end
     rule "sets" salience 5 when true then set(flag, true); end
     rule "reads-after" when flag then report("AFTER", "flag", "set"); end`,
    {},
  );
  assert.deepEqual(r.issues.map((i) => [i.code, i.value]), [["BEFORE", null], ["AFTER", true]]);
  assert.deepEqual(r.fired, ["reads-before", "sets", "reads-after"]);
});

Deno.test("set shadows an input variable; the last write wins in the outputs", () => {
  const input = { limit: 10 };
  const r = run(
    `rule "a" salience 2 when true then set(limit, limit * 2); end
     rule "b" salience 1 when true then set(limit, limit + 1); end
     rule "c" when limit = 21 then report("OK", "limit", "shadowed"); end`,
    input,
  );
  assert.deepEqual(toJs(r.outputs.get("limit")!), 21);
  assert.equal(r.issues[0].code, "OK");
  assert.deepEqual(input, { limit: 10 }, "the caller's context is not changed");
});

Deno.test("a FEEL context works as input and is not changed", () => {
  const ctx = fromJs({ a: 1 }) as FeelContext;
  const r = evaluate(ruleset(`rule "r" when a = 1 then set(a, 2); set(b, 3); end`), ctx);
  assert.equal(r.diagnostics, undefined);
  assert.deepEqual([...r.outputs!.keys()], ["a", "b"]);
  assert.deepEqual(toJs(ctx), { a: 1 });
});

Deno.test("set may bind an explicit null", () => {
  const r = run(`rule "r" when true then set(cleared, null); end`, {});
  assert.equal(r.outputs.get("cleared"), null);
  assert.ok(r.outputs.has("cleared"));
});

Deno.test("fail-closed: a condition that gives null is an error, not a skipped rule", () => {
  const { diagnostics: [d] } = refused(
    `rule "ok" when true then report("FIRST", "", ""); end
     rule "amount-positive"
     when payload.amount <= 0
     then report("X", "payload.amount", "m"); end`,
    { payload: {} },
  );
  assert.equal(d.code, SrlCode.CONDITION_FAILED);
  assert.equal(d.severity, "ERROR");
  assert.match(d.message, /rule "amount-positive" gave null instead of true or false/);
  assert.deepEqual(d.source, { uri: "rules/t.srl", line: 3, column: 11 });
  assert.deepEqual(d.attributes, { rule: "amount-positive", expression: "payload.amount <= 0" });
});

Deno.test("fail-closed: a condition that gives a non-boolean is an error", () => {
  const { diagnostics: [d] } = refused(`rule "r" when "yes" then end`, {});
  assert.equal(d.code, SrlCode.CONDITION_FAILED);
  assert.match(d.message, /gave a string instead of true or false/);
});

Deno.test("fail-closed: now() without a clock refuses; with a clock it reads that clock", () => {
  const text = `rule "stale" when now() > date and time("2024-01-01T00:00:00Z")
    then report("STALE", "", "old"); end`;
  const { diagnostics: [d] } = refused(text, {});
  assert.equal(d.code, SrlCode.CONDITION_FAILED);
  assert.equal(d.attributes!.feelCode, "SUTRA.FEEL.NONDETERMINISTIC");
  assert.match(d.message, /no clock was supplied \(pass the `clock` option\)/);
  assert.equal(d.attributes!.rule, "stale");
  const before = run(text, {}, { clock: { now: () => Date.parse("2023-06-01T00:00:00Z") } });
  assert.deepEqual(before.issues, []);
  const after = run(text, {}, { clock: { now: () => Date.parse("2024-06-01T00:00:00Z") } });
  assert.equal(after.issues[0].code, "STALE");
});

Deno.test("the zone option sets the day today() sees", () => {
  const text = `rule "r" when true then set(day, string(today())); end`;
  const clock = { now: () => Date.parse("2024-03-01T23:30:00Z") };
  assert.equal(run(text, {}, { clock }).outputs.get("day"), "2024-03-01");
  assert.equal(run(text, {}, { clock, zone: "Asia/Tokyo" }).outputs.get("day"), "2024-03-02");
});

Deno.test("fail-closed: report arguments must be strings and the code non-empty", () => {
  const cases: [string, RegExp][] = [
    [`report(42, "p", "m")`, /report code in rule "r" gave a number instead of a string/],
    [`report("C", null, "m")`, /report path in rule "r" gave null instead of a string/],
    [
      `report("C", "p", "total " + missing)`,
      /report message in rule "r" gave null instead of a string/,
    ],
    [`report("", "p", "m")`, /gave an empty code/],
  ];
  for (const [action, message] of cases) {
    const { diagnostics: [d] } = refused(`rule "r" when true then ${action}; end`, {});
    assert.equal(d.code, SrlCode.ACTION_FAILED, action);
    assert.match(d.message, message, action);
    assert.equal(d.attributes!.rule, "r");
    assert.equal(d.source!.line, 1);
  }
});

Deno.test("fail-closed: a set whose value FEEL could not compute is an error", () => {
  const { diagnostics: [d] } = refused(
    `rule "r" when true then
       set(total, "a" + 1);
     end`,
    {},
  );
  assert.equal(d.code, SrlCode.ACTION_FAILED);
  assert.match(d.message, /set\(total, …\) in rule "r" could not compute a value \(.+\)/);
  assert.deepEqual(d.source, { uri: "rules/t.srl", line: 2, column: 19 });
});

Deno.test("fail-closed: an error stops the pass and no partial issues are returned", () => {
  const r = evaluate(
    ruleset(
      `rule "a" salience 1 when true then report("A", "", ""); end
       rule "b" when x > 1 then end`,
    ),
    {},
  );
  assert.equal(r.issues, undefined);
  assert.equal(r.outputs, undefined);
  assert.equal(r.diagnostics![0].attributes!.rule, "b");
});

Deno.test("a context that is not an object is a diagnostic, not a throw", () => {
  const r = evaluate(
    ruleset(`rule "r" when true then end`),
    [1, 2] as unknown as Record<string, unknown>,
  );
  assert.equal(r.diagnostics![0].code, SrlCode.INTERNAL);
});

Deno.test("exists() guards optional fields, as in the book's currency rule", () => {
  const parsed = parseRuleset(`
rule "currency-not-usd"
when
  exists(payload.amount.currency) and payload.amount.currency != "USD"
then
  report("SUTRA.VALIDATE.CURRENCY_NOT_USD", "payload.amount.currency",
    "Currency must be USD; got " + payload.amount.currency);
end`);
  assert.ok(parsed.ruleset, JSON.stringify(parsed.diagnostics));
  const eur = evaluate(parsed.ruleset, { payload: { amount: { value: 5, currency: "EUR" } } });
  assert.deepEqual(eur.issues?.map((i) => [i.code, i.message, i.value]), [
    ["SUTRA.VALIDATE.CURRENCY_NOT_USD", "Currency must be USD; got EUR", "EUR"],
  ]);
  const missing = evaluate(parsed.ruleset, { payload: { amount: { value: 5 } } });
  assert.deepEqual(missing.issues, []);
  const usd = evaluate(parsed.ruleset, { payload: { amount: { currency: "USD" } } });
  assert.deepEqual(usd.issues, []);
  // An input entry named `exists` wins over the addition: calling a string fails closed.
  const own = evaluate(parsed.ruleset, { exists: "not a function", payload: {} });
  assert.equal(own.diagnostics?.[0].code, "SUTRA.SRL.CONDITION_FAILED");
});
