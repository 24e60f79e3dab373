import assert from "node:assert/strict";
import {
  compile,
  type CompiledExpression,
  type CompileOptions,
  type EvaluateOptions,
} from "./compile.ts";
import type { InputContext } from "./_compile_frame.ts";
import { formatFeel, fromJs } from "./semantics.ts";
import { FeelContext, FeelDecimal, FeelFunction, type FeelValue } from "./values.ts";

function compiled(text: string, options?: CompileOptions): CompiledExpression {
  const c = compile(text, options);
  if (c.diagnostics !== undefined) throw new Error(`${text}: ${c.diagnostics[0].message}`);
  return c.compiled;
}

function run(
  text: string,
  context?: InputContext,
  options?: CompileOptions & EvaluateOptions,
): { value: FeelValue; warnings: string[] } {
  const r = compiled(text, options).evaluate(context, options);
  if (r.diagnostics !== undefined) throw new Error(`${text}: ${r.diagnostics[0].message}`);
  return r;
}

/** The value rendered as FEEL text, which makes decimals and nesting easy to compare. */
function feel(text: string, context?: InputContext, options?: CompileOptions & EvaluateOptions) {
  return formatFeel(run(text, context, options).value);
}

Deno.test("compile: literals and arithmetic are decimal", () => {
  assert.equal(feel("0.1 + 0.2"), "0.3");
  assert.equal(feel("1 / 3"), "0.3333333333333333333333333333333333");
  assert.equal(feel("2 ** 10"), "1024");
  assert.equal(feel("-(3 - 5)"), "2");
  assert.equal(feel("1.2e3 + .5"), "1200.5");
  assert.equal(feel('"a" + "b"'), '"ab"');
});

Deno.test("compile: comparisons", () => {
  assert.equal(feel("1 < 2"), "true");
  assert.equal(feel("2 <= 2"), "true");
  assert.equal(feel("3 > 4"), "false");
  assert.equal(feel('"b" >= "a"'), "true");
  assert.equal(feel("1 = 1.0"), "true");
  assert.equal(feel("1 != 2"), "true");
  assert.equal(feel("null = null"), "true");
  assert.equal(feel("1 = null"), "false");
  assert.equal(feel("[1, 2] = [1, 2]"), "true");
  assert.equal(feel("{a: 1} = {a: 1}"), "true");
});

Deno.test("compile: a type mismatch is null with a warning", () => {
  const r = run('1 < "a"');
  assert.equal(r.value, null);
  assert.equal(r.warnings.length, 1);
  const s = run('"a" * 2');
  assert.equal(s.value, null);
  assert.match(s.warnings[0], /cannot apply/);
});

Deno.test("compile: ternary and/or", () => {
  const cases: [string, string][] = [
    ["true and true", "true"],
    ["true and false", "false"],
    ["false and null", "false"],
    ["null and false", "false"],
    ["true and null", "null"],
    ["null and null", "null"],
    ["true or null", "true"],
    ["null or true", "true"],
    ["false or null", "null"],
    ["false or false", "false"],
    ['true and "x"', "null"],
    ["false or 1", "null"],
  ];
  for (const [text, expected] of cases) assert.equal(feel(text), expected, text);
});

Deno.test("compile: a non-boolean operand of and/or is reported", () => {
  const r = run("x and true", { x: "yes" });
  assert.equal(r.value, null);
  assert.match(r.warnings[0], /'and' needs booleans, got string/);
});

Deno.test("compile: between", () => {
  assert.equal(feel("5 between 1 and 10"), "true");
  assert.equal(feel("1 between 1 and 10"), "true");
  assert.equal(feel("11 between 1 and 10"), "false");
  assert.equal(feel('"b" between "a" and "c"'), "true");
  assert.equal(feel("null between 1 and 10"), "null");
});

Deno.test("compile: if/then/else takes else for anything but true", () => {
  assert.equal(feel('if 1 > 0 then "y" else "n"'), '"y"');
  assert.equal(feel('if null then "y" else "n"'), '"n"');
  assert.equal(feel('if x then "y" else "n"', { x: 3 }), '"n"');
});

Deno.test("compile: input variables from plain JS", () => {
  assert.equal(feel("a + b.c", { a: 1, b: { c: 2 } }), "3");
  assert.equal(feel("Monthly Salary * 12", { "Monthly Salary": 1000 }), "12000");
  assert.equal(feel("l", { l: [1, "x", true, null] }), '[1, "x", true, null]');
});

Deno.test("compile: input variables from a FEEL context", () => {
  const ctx = new FeelContext(new Map<string, FeelValue>([["a", new FeelDecimal(2)]]));
  assert.equal(feel("a * 3", ctx), "6");
  assert.equal(feel("a.b", fromJs({ a: { b: "x" } }) as FeelContext), '"x"');
});

Deno.test("compile: an unknown name is null with a warning", () => {
  const r = run("missing + 1");
  assert.equal(r.value, null);
  assert.deepEqual(r.warnings, [
    "no variable named 'missing'",
    "cannot apply '+' to null and number",
  ]);
});

Deno.test("compile: a missing context entry is null with a warning", () => {
  const r = run("a.b.c", { a: { x: 1 } });
  assert.equal(r.value, null);
  assert.match(r.warnings[0], /no entry 'b'/);
  assert.equal(feel("{a: 1}.b"), "null");
});

Deno.test("compile: paths over JS objects convert only what they reach", () => {
  let reads = 0;
  const big = {
    get untouched(): number {
      reads++;
      return 1;
    },
    wanted: { deep: 7 },
  };
  assert.equal(feel("big.wanted.deep", { big }), "7");
  assert.equal(reads, 0);
});

Deno.test("compile: paths through lists project each item", () => {
  const persons = [{ name: "a", age: 30 }, { name: "b", age: 10 }];
  assert.equal(feel("persons.name", { persons }), '["a", "b"]');
  assert.equal(feel("persons[age > 18].name", { persons }), '["a"]');
  assert.equal(feel("x.a.b", { x: [{ a: { b: 1 } }, { a: { b: 2 } }] }), "[1, 2]");
});

Deno.test("compile: properties of temporals and ranges", () => {
  assert.equal(feel('@"2021-03-04".month'), "3");
  assert.equal(feel("[1..5).end included"), "false");
  assert.equal(feel("(< 10).end"), "10");
});

Deno.test("compile: filters with item, entries, and boolean literals", () => {
  assert.equal(feel("[1, 2, 3, 4][item > 2]"), "[3, 4]");
  assert.equal(feel("[1, 2, 3][true]"), "[1, 2, 3]");
  assert.equal(feel("[1, 2, 3][false]"), "[]");
  const orders = [{ status: "open", total: 12 }, { status: "closed", total: 50 }, {
    status: "open",
    total: 3,
  }];
  assert.equal(
    feel('orders[status = "open" and total >= 10].total', { orders }),
    "[12]",
  );
  assert.equal(feel("orders[item.total > 10].status", { orders }), '["open", "closed"]');
});

Deno.test("compile: a literal filter skips every item whose condition is not true", () => {
  // FEEL's own rule (unlike DMN's boxed filter, which is null for a non-boolean match).
  assert.equal(feel('[1, 2, 3][if item > 1 then "x" else true]'), "[1]");
  assert.equal(feel("[{v: 1}, {w: 2}, {v: 3}][v > 1]"), "[{v: 3}]");
});

Deno.test("compile: an item entry named item hides the item itself", () => {
  assert.equal(feel("[{item: 1}, {item: 2}, {item: 3}][item >= 2]"), "[{item: 2}, {item: 3}]");
});

Deno.test("compile: an item entry hides an outer name inside the filter only", () => {
  const ctx = { total: 100, orders: [{ total: 5 }, { total: 500 }] };
  assert.equal(feel("orders[total > 10].total", ctx), "[500]");
  // Inside the filter `total` is the item's own entry, so this compares it with itself.
  assert.equal(feel("orders[item.total < total].total", ctx), "[]");
  assert.equal(feel("count(orders[total > 10]) + total", ctx), "101");
});

Deno.test("compile: numeric filters index from 1 and from the end", () => {
  assert.equal(feel("[10, 20, 30][1]"), "10");
  assert.equal(feel("[10, 20, 30][-1]"), "30");
  assert.equal(feel("[10, 20, 30][i]", { i: 2 }), "20");
  const r = run("[10, 20, 30][4]");
  assert.equal(r.value, null);
  assert.match(r.warnings[0], /outside a list of 3/);
  assert.equal(feel("[][1]"), "null");
  assert.equal(feel("[][item > 1]"), "[]");
});

Deno.test("compile: a filter on a single value treats it as a list", () => {
  assert.equal(feel("5[item > 1]"), "[5]");
  assert.equal(feel("5[1]"), "5");
});

Deno.test("compile: for over lists, numeric ranges, ranges and dates", () => {
  assert.equal(feel("for x in [1, 2, 3] return x * 2"), "[2, 4, 6]");
  assert.equal(feel("for i in 1..3 return i"), "[1, 2, 3]");
  assert.equal(feel("for i in 3..1 return i"), "[3, 2, 1]");
  assert.equal(feel("for i in [1..4) return i"), "[1, 2, 3]");
  assert.equal(feel("for i in (1..4] return i"), "[2, 3, 4]");
  assert.equal(feel("for x in [1, 2], y in x..2 return [x, y]"), "[[1, 1], [1, 2], [2, 2]]");
  assert.equal(
    feel('for d in @"2024-02-28"..@"2024-03-01" return d.day'),
    "[28, 29, 1]",
  );
  assert.equal(feel("for i in n..m return i", { n: 2, m: 4 }), "[2, 3, 4]");
});

Deno.test("compile: for exposes partial results", () => {
  assert.equal(
    feel("for i in 1..5 return if i <= 2 then i else partial[-1] + partial[-2]"),
    "[1, 2, 3, 5, 8]",
  );
});

Deno.test("compile: for over an invalid domain is null with a warning", () => {
  const r = run("for i in 1.5..3 return i");
  assert.equal(r.value, null);
  assert.match(r.warnings[0], /integer bounds/);
  assert.equal(run("for i in > 3 return i").value, null);
  assert.equal(run("for i in null return i").value, null);
  assert.equal(run("for i in [3..1] return i").value, null);
  const single = run("for i in 5 return i");
  assert.equal(single.value, null);
  assert.match(single.warnings[0], /cannot iterate over number/);
});

Deno.test("compile: some and every", () => {
  assert.equal(feel("some x in [1, 2, 3] satisfies x > 2"), "true");
  assert.equal(feel("some x in [1, 2, 3] satisfies x > 3"), "false");
  assert.equal(feel("every x in [1, 2, 3] satisfies x > 0"), "true");
  assert.equal(feel("every x in [1, 2, 3] satisfies x > 1"), "false");
  assert.equal(feel("some x in [1, 2], y in [2, 3] satisfies x * y = 5"), "false");
  assert.equal(feel("some x in [1, 2], y in [2, 3] satisfies x + y = 5"), "true");
  assert.equal(feel("every x in [] satisfies false"), "true");
  assert.equal(feel("some x in [] satisfies true"), "false");
});

Deno.test("compile: some and every need boolean conditions throughout", () => {
  const some = run('some x in [1, 2] satisfies if x = 2 then true else "no"');
  assert.equal(some.value, null);
  assert.match(some.warnings[0], /'some' needs boolean conditions, got string/);
  assert.equal(run("every x in [1, 2] satisfies if x = 1 then true else null").value, null);
  assert.equal(run("some x in 1 satisfies true").value, null);
});

Deno.test("compile: in with values, lists, ranges and test lists", () => {
  assert.equal(feel("1 in [2, 3, 1]"), "true");
  assert.equal(feel("1 in [[2..4], [1..3]]"), "true");
  assert.equal(feel("5 in [[2..4], [1..3]]"), "false");
  assert.equal(feel("10 in (1, < 5, >= 10)"), "true");
  assert.equal(feel("4 in (2..4)"), "false");
  assert.equal(feel("4 in (2..4]"), "true");
  assert.equal(feel("10 in = 10"), "true");
  assert.equal(feel("10 in != 10"), "false");
  assert.equal(feel('"b" in ("a".."c")'), "true");
  assert.equal(feel("1 in 1"), "true");
  assert.equal(feel("x in limits", { x: 3, limits: [1, 2, 3] }), "true");
  assert.equal(feel("[1, 2] in [[1, 2], [3]]"), "true");
});

Deno.test("compile: ranges and unary comparisons as values", () => {
  assert.equal(feel("[1..10]"), "[1..10]");
  assert.equal(feel("]1..10["), "(1..10)");
  assert.equal(feel("< 10"), "< 10");
  assert.equal(feel("[>= 5, < 2]"), "[>= 5, < 2]");
  assert.equal(feel("(=10).start"), "10");
});

Deno.test("compile: instance of with parametric types", () => {
  assert.equal(feel("1 instance of number"), "true");
  assert.equal(feel('"1" instance of number'), "false");
  assert.equal(feel("[1, 2] instance of list<number>"), "true");
  assert.equal(feel('[1, "2"] instance of list<number>'), "false");
  assert.equal(feel('{a: 1, b: "x"} instance of context<a: number>'), "true");
  assert.equal(feel("{a: 1} instance of context<a: string>"), "false");
  assert.equal(feel("[1..2] instance of range<number>"), "true");
  assert.equal(feel("(function(a: number) a) instance of function<number>->Any"), "true");
  assert.equal(feel('@"P1D" instance of days and time duration'), "true");
  assert.equal(feel('@"P1Y" instance of years and months duration'), "true");
  assert.equal(feel("null instance of Null"), "true");
  assert.equal(feel("null instance of Any"), "false");
  assert.equal(feel("1 instance of Any"), "true");
});

Deno.test("compile: instance of a caller-defined or unknown type", () => {
  const types = new Map([["tAmount", { kind: "number" } as const]]);
  assert.equal(feel("5 instance of tAmount", undefined, { types }), "true");
  const r = run("5 instance of tUnknown");
  assert.equal(r.value, null);
  assert.deepEqual(r.warnings, ["unknown type 'tUnknown'"]);
});

Deno.test("compile: context literals see earlier entries", () => {
  assert.equal(feel("{a: 1, b: a + 1, c: b * 2}"), "{a: 1, b: 2, c: 4}");
  assert.equal(feel('{"b c": 1, d: b c + 1}.d'), "2");
  assert.equal(feel("{ gross: 100, tax: gross * 0.2, net: gross - tax }.net"), "80");
  assert.equal(feel("{a: x, b: a}", { x: 7 }), "{a: 7, b: 7}");
});

Deno.test("compile: a context literal with a repeated key is null", () => {
  const r = run('{foo: "bar", foo: "baz"}');
  assert.equal(r.value, null);
  assert.match(r.warnings[0], /key 'foo' twice/);
});

Deno.test("compile: user functions, named invocation and closures", () => {
  assert.equal(feel("(function(a, b) a - b)(5, 1)"), "4");
  assert.equal(feel("(function(a, b) a - b)(b: 1, a: 5)"), "4");
  assert.equal(feel("{f: function(x) x * k, k: 3}.f(2)", { k: 10 }), "20");
  assert.equal(feel("{k: 3, f: function(x) x * k}.f(2)"), "6");
  assert.equal(feel("{adder: function(n) function(x) x + n, add2: adder(2), r: add2(5)}.r"), "7");
});

Deno.test("compile: functions may call themselves through their context entry", () => {
  assert.equal(
    feel("{fact: function(n) if n <= 1 then 1 else n * fact(n - 1), r: fact(10)}.r"),
    "3628800",
  );
});

Deno.test("compile: closures made in a loop keep their own variables", () => {
  assert.equal(feel("for f in (for i in 1..3 return function() i) return f()"), "[1, 2, 3]");
  assert.equal(
    feel("for f in [1, 2][(function(x) x > 1)(item)] return f"),
    "[2]",
  );
});

Deno.test("compile: calling a non-function is null with a warning", () => {
  const r = run("x(1)", { x: 5 });
  assert.equal(r.value, null);
  assert.match(r.warnings[0], /'x' is number, not a function/);
});

Deno.test("compile: external functions are parsed but not run", () => {
  const r = run('(function(x) external {java: {class: "C", method signature: "m"}})(1)');
  assert.equal(r.value, null);
  assert.match(r.warnings[0], /external functions/);
});

Deno.test("compile: the externals option implements external functions", () => {
  const seen: [string, string[]][] = [];
  const externals = (mapping: FeelValue, params: readonly string[]) => {
    seen.push([formatFeel(mapping), [...params]]);
    if (!(mapping instanceof FeelContext) || !mapping.entries.has("twice")) return undefined;
    return (args: readonly (FeelValue | undefined)[]) =>
      new FeelDecimal(formatFeel(args[0] ?? null)).times(2);
  };
  const text = "(function(x) external {twice: name})(21)";
  assert.equal(feel(text, { name: "double" }, { externals }), "42");
  assert.deepEqual(seen, [['{twice: "double"}', ["x"]]]);
  // A mapping the resolver does not know falls back to the refusal.
  const r = run("(function(x) external {pmml: {}})(1)", {}, { externals });
  assert.equal(r.value, null);
  assert.match(r.warnings[0], /external functions/);
});

Deno.test("compile: built-in calls, names with spaces, named arguments", () => {
  assert.equal(feel('string length("🐎x")'), "2");
  assert.equal(feel("upper case(substring(name, 1, 3))", { name: "alice" }), '"ALI"');
  assert.equal(feel('substring(string: "abcdef", start position: 3)'), '"cdef"');
  assert.equal(feel('date and time("2020-01-02T03:04:05").hour'), "3");
  assert.equal(
    feel("sum(for x in items return x.price * x.qty)", {
      items: [{ price: 2.5, qty: 3 }, { price: 1, qty: 10 }],
    }),
    "17.5",
  );
});

Deno.test("compile: an input variable hides a built-in of the same name", () => {
  assert.equal(feel("count > 5", { count: 9 }), "true");
  assert.equal(feel('string length("abc")', {}), "3");
  const shadow = new FeelFunction([[{ name: "s" }]], () => "mine");
  assert.equal(feel('string length("abc")', { "string length": shadow }), '"mine"');
});

Deno.test("compile: folded constants replay their warnings on each evaluation", () => {
  const c = compiled("1 / 0 + 1");
  for (let i = 0; i < 2; i++) {
    const r = c.evaluate({});
    assert.equal(r.value, null);
    assert.deepEqual(r.warnings, ["division by zero", "cannot apply '+' to null and number"]);
  }
});

Deno.test("compile: temporal literals", () => {
  assert.equal(feel('@"2020-01-01" + @"P1D"'), 'date("2020-01-02")');
  assert.equal(feel('@"10:30:00".minute'), "30");
  const r = run('@"not a date"');
  assert.equal(r.value, null);
  assert.equal(r.warnings.length, 1);
});

Deno.test("compile: unary tests apply to the input", () => {
  const t = (tests: string, input: unknown, context?: InputContext) => {
    const r = compiled(tests, { mode: "unaryTests" }).evaluate(context, { input });
    if (r.diagnostics !== undefined) throw new Error(r.diagnostics[0].message);
    return r.value;
  };
  assert.equal(t("-", 5), true);
  assert.equal(t("< 10", 5), true);
  assert.equal(t("< 10", 15), false);
  assert.equal(t("[1..5], > 10", 11), true);
  assert.equal(t('"a", "b"', "b"), true);
  assert.equal(t('not("a", "b")', "c"), true);
  assert.equal(t('not("a", "b")', "a"), false);
  assert.equal(t("? > limit", 6, { limit: 5 }), true);
  assert.equal(t('starts with(?, "ab")', "abc"), true);
  assert.equal(t("limit", 5, { limit: 5 }), true);
  assert.equal(t("[1, 2, 3]", 2), true);
  assert.equal(t("null", null), true);
  assert.equal(t("true", true), true);
  assert.equal(t("false", false), true);
  assert.equal(t("flag", 7, { flag: true }), true);
  assert.equal(t("= 5, != 6", 6), false);
  assert.equal(t("< 10", null), null);
  assert.equal(t("not(< 10)", null), null);
});

Deno.test("compile: a unary test using ? must be boolean", () => {
  const r = compiled("? + 1", { mode: "unaryTests" }).evaluate({}, { input: 1 });
  assert.ok(r.diagnostics === undefined);
  assert.equal(r.value, null);
  assert.match(r.warnings[0], /instead of a boolean/);
});

Deno.test("compile: paths lists what the expression reads", () => {
  const paths = (text: string, names?: string[]) => compiled(text, { names }).paths;
  assert.deepEqual(
    paths(
      "if fromAccount.frozen or toAccount.frozen or fromAccount.balance < payload.amount then 1 else 2",
    ),
    ["fromAccount.balance", "fromAccount.frozen", "payload.amount", "toAccount.frozen"],
  );
  assert.deepEqual(paths("sum(for x in items return x.price * x.qty)"), ["items"]);
  assert.deepEqual(paths('count(orders[status = "open"])'), ["orders"]);
  assert.deepEqual(paths("count(orders[status = limit])", ["limit"]), ["limit", "orders"]);
  assert.deepEqual(paths("{a: 1, b: a + c}.b"), ["c"]);
  assert.deepEqual(paths("(function(p) p + q)(1)"), ["q"]);
  assert.deepEqual(paths("some v in vs satisfies v > min"), ["min", "vs"]);
  assert.deepEqual(paths("x + x.y"), ["x", "x.y"]);
  assert.deepEqual(paths("count > 1"), ["count"]);
});

Deno.test("compile: determinism rejects now() and today() without a clock", () => {
  const c = compile('today() + duration("P1D")', { deterministic: true });
  assert.ok(c.diagnostics !== undefined);
  assert.equal(c.diagnostics[0].code, "SUTRA.FEEL.NONDETERMINISTIC");
  assert.equal(c.diagnostics[0].source?.column, 1);
  const ok = compiled("now()");
  assert.equal(ok.readsClock, true);
  const refused = ok.evaluate({}, { deterministic: true });
  assert.ok(refused.diagnostics !== undefined);
  assert.equal(refused.diagnostics[0].code, "SUTRA.FEEL.NONDETERMINISTIC");
});

Deno.test("compile: a supplied clock drives now() and today()", () => {
  const at = Date.UTC(2024, 4, 6, 7, 8, 9);
  const today = compiled("today()").evaluate({}, { now: at, deterministic: true });
  assert.equal(formatFeel(today.value ?? null), 'date("2024-05-06")');
  assert.equal(feel("now().hour", {}, { now: new Date(at) }), "7");
  assert.equal(feel("now().minute", {}, { now: () => at }), "8");
});

Deno.test("compile: a compiled expression is reusable and independent per evaluation", () => {
  const c = compiled("for x in l return x + n");
  for (let n = 0; n < 3; n++) {
    const r = c.evaluate({ l: [1, 2], n });
    assert.ok(r.diagnostics === undefined);
    assert.equal(formatFeel(r.value), `[${1 + n}, ${2 + n}]`);
    assert.deepEqual(r.warnings, []);
  }
});

Deno.test("compile: unicode names and strings", () => {
  assert.equal(feel('{🐎: "😀"}.🐎'), '"😀"');
  assert.equal(feel("Größe * 2", { "Größe": 21 }), "42");
  assert.equal(feel('"\\U01F40E" = "🐎"'), "true");
});

Deno.test("compile: names may be given as any iterable, read once", () => {
  function* names() {
    yield "net-amount";
  }
  assert.equal(feel("net-amount * 2", { "net-amount": 4 }, { names: names() }), "8");
});
