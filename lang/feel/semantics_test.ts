import assert from "node:assert/strict";
import {
  add,
  callFunction,
  compareStrings,
  conformsTo,
  divide,
  formatFeel,
  fromJs,
  getProperty,
  isInstanceOf,
  multiply,
  negate,
  parseTemporalLiteral,
  power,
  rangeContains,
  structureOf,
  subtract,
  toFeelString,
  toJs,
  typeName,
  typeOf,
  valueCompare,
  valueEquals,
} from "./semantics.ts";
import {
  type EvalEnv,
  FeelContext,
  FeelDecimal,
  FeelFunction,
  feelRange,
  type FeelType,
  type FeelValue,
} from "./values.ts";

function env(): EvalEnv & { warnings: string[] } {
  const warnings: string[] = [];
  return { warnings, warn: (m) => warnings.push(m) };
}
const n = (x: number | string) => new FeelDecimal(x);
const t = (s: string) => parseTemporalLiteral(s, env());
const f = (v: FeelValue) => formatFeel(v);

Deno.test("numbers: exact decimal128 arithmetic", () => {
  const e = env();
  assert.equal(f(add(n("0.1"), n("0.2"), e)), "0.3");
  assert.equal(f(subtract(n("1.1234"), n("0.2345"), e)), "0.8889");
  assert.equal(f(multiply(n(10), n(-10), e)), "-100");
  assert.equal(f(divide(n(1), n(3), e)), "0.3333333333333333333333333333333333");
  assert.equal(f(divide(n(2), n(3), e)), "0.6666666666666666666666666666666667");
  assert.equal(divide(n(1), n(0), e), null);
  assert.equal(f(power(n(5), n(-2), e)), "0.04");
  assert.equal(f(power(n(3), power(n(4), n(5), e), e)).length > 0, true);
  assert.equal(f(power(n(2), n("0.5"), e)), "1.414213562373095048801688724209698");
  assert.equal(power(n(-8), n("0.5"), e), null);
  assert.equal(power(n(0), n(-1), e), null);
  assert.equal(multiply(n("1e6000"), n("1e6000"), e), null);
  assert.equal(f(negate(n(10), e)), "-10");
  assert.ok(e.warnings.some((w) => w.includes("division by zero")));
  assert.ok(e.warnings.some((w) => w.includes("decimal128")));
});

Deno.test("strings: concatenation and code point ordering", () => {
  const e = env();
  assert.equal(add("foo", "bar", e), "foobar");
  assert.equal(add("1", n(1), e), null);
  assert.match(e.warnings[0], /string and number/);
  // U+1F40E (a surrogate pair) sorts after U+FF5E although its first code unit is smaller.
  assert.equal(compareStrings("\u{1F40E}", "\uFF5E"), 1);
  assert.equal(valueCompare("a", "b", e), -1);
  assert.equal(valueCompare("b", "ab", e), 1);
  assert.equal(valueCompare("ab", "ab", e), 0);
});

Deno.test("equality: deep, typed, ternary", () => {
  const e = env();
  assert.equal(valueEquals(null, null, e), true);
  assert.equal(valueEquals(n(1), null, e), false);
  assert.equal(valueEquals(n(0), n("0.00"), e), true);
  assert.equal(valueEquals(n(100), "100", e), null);
  assert.equal(valueEquals(true, n(1), e), null);
  assert.equal(valueEquals(fromJs([1, 2, [3, 4]]), fromJs([1, 2, [3, 4]]), e), true);
  assert.equal(valueEquals(fromJs([1, 2]), fromJs([2, 1]), e), false);
  assert.equal(valueEquals(fromJs({ a: 1, b: 2 }), fromJs({ b: 2, a: 1 }), e), true);
  assert.equal(valueEquals(fromJs({ a: 1 }), fromJs({ a: 1, b: 1 }), e), false);
  assert.equal(valueEquals(fromJs({}), fromJs([]), e), null);
  assert.equal(valueEquals(fromJs([100]), n(100), e), null);
  const fn = new FeelFunction([[]], () => null);
  assert.equal(valueEquals(fn, fn, e), true);
  assert.equal(valueEquals(fn, new FeelFunction([[]], () => null), e), false);
});

Deno.test("equality and ordering of temporals", () => {
  const e = env();
  assert.equal(
    valueEquals(t("2018-10-08T00:00:00+02:00"), t("2018-10-08T00:00:00@Europe/Paris"), e),
    true,
  );
  assert.equal(
    valueEquals(
      t("2002-04-02T12:00:00@Australia/Melbourne"),
      t("2002-04-02T12:00:00@Australia/Sydney"),
      e,
    ),
    true,
  );
  assert.equal(valueEquals(t("10:30:00Z"), t("10:30:00+00:00"), e), true);
  assert.equal(valueEquals(t("10:30:00.0001"), t("10:30:00.0002"), e), true);
  assert.equal(valueEquals(t("P1D"), t("PT24H"), e), true);
  assert.equal(valueEquals(t("P0D"), t("P0Y"), e), true);
  assert.equal(valueEquals(t("P1Y"), t("P365D"), e), null);
  assert.equal(valueEquals(t("P1Y"), t("P12M"), e), true);
  assert.equal(valueCompare(t("2021-01-01"), t("2021-01-02"), e), -1);
  assert.equal(valueCompare(t("2021-01-01T10:00:00+01:00"), t("2021-01-01T09:30:00Z"), e), -1);
  // A local value is taken to share the other's offset.
  assert.equal(valueCompare(t("2021-01-01T10:00:00"), t("2021-01-01T09:00:00+05:00"), e), 1);
  assert.equal(valueCompare(t("PT1H"), t("PT59M"), e), 1);
  assert.equal(valueCompare(t("P1Y"), t("P13M"), e), -1);
  assert.equal(valueCompare(t("P1Y"), t("P1D"), e), null);
  assert.equal(valueCompare(true, false, e), null);
  assert.equal(valueCompare(t("2021-01-01"), t("2021-01-01T00:00:00"), e), null);
});

Deno.test("temporal arithmetic", () => {
  const e = env();
  const cases: [string, FeelValue][] = [
    ['date and time("2021-01-02T00:00:01")', add(t("2021-01-01T24:00:00"), t("PT1S"), e)],
    ['date and time("2021-02-28T10:00:00")', add(t("2021-01-31T10:00:00"), t("P1M"), e)],
    ['date("2021-02-28")', add(t("2020-02-29"), t("P1Y"), e)],
    ['date("2021-01-02")', add(t("PT36H"), t("2021-01-01"), e)],
    ['date("2020-12-31")', subtract(t("2021-01-02"), t("PT25H"), e)],
    [
      'duration("P1DT9H10M10S")',
      subtract(t("2021-01-02T10:10:10@Europe/Paris"), t("2021-01-01"), e),
    ],
    ['duration("P1DT49M50S")', subtract(t("2021-01-02"), t("2021-01-01T10:10:10+11:00"), e)],
    [
      'duration("P1DT5H")',
      subtract(t("2021-01-02T10:10:10@Europe/Paris"), t("2021-01-01T10:10:10@Asia/Dhaka"), e),
    ],
    ['duration("P9498D")', subtract(t("2021-01-02"), t("1995-01-01"), e)],
    [
      'duration("-PT1H")',
      subtract(t("10:10:10@Australia/Melbourne"), t("11:10:10@Australia/Melbourne"), e),
    ],
    [
      'time("09:15:00@Australia/Melbourne")',
      subtract(t("10:15:00@Australia/Melbourne"), t("PT1H"), e),
    ],
    ['time("10:15:00+11:00")', add(t("10:15:00+11:00"), t("P1D"), e)],
    [
      'date and time("-2022-12-31T10:10:10+11:00")',
      add(t("-2021-01-01T10:10:10+11:00"), t("-P1D"), e),
    ],
    [
      'date and time("-2020-01-01T10:10:10@Australia/Melbourne")',
      add(t("-2021-01-01T10:10:10@Australia/Melbourne"), t("P1Y"), e),
    ],
    ['duration("P1Y2M")', add(t("P1Y"), t("P2M"), e)],
    ['duration("-PT22H")', subtract(t("-P1D"), t("-PT2H"), e)],
    ['duration("P6DT1H30M")', multiply(n("1.5"), t("P4DT1H"), e)],
    ['duration("-P4Y9M")', multiply(t("P1Y11M"), n("-2.5"), e)],
    ['duration("P4Y4M")', divide(t("P10Y11M"), n("2.5"), e)],
    ['duration("P4DT9H12M")', divide(t("P10DT23H"), n("2.5"), e)],
    ["2", divide(t("P10D"), t("P5D"), e)],
    ["2", divide(t("P10Y"), t("P5Y"), e)],
    ['duration("P1D")', negate(t("-P1D"), e)],
  ];
  for (const [want, got] of cases) assert.equal(f(got), want);
  assert.equal(subtract(t("2021-01-02T10:10:10"), t("2021-01-01T10:10:10@Europe/Paris"), e), null);
  assert.equal(subtract(t("2021-01-01T00:00:00"), t("2021-01-02"), e), null);
  assert.equal(divide(t("P10D"), t("P0Y"), e), null);
  assert.equal(divide(t("P10D"), n(0), e), null);
  assert.equal(add(t("10:00:00"), t("P1Y"), e), null);
  assert.equal(negate(t("2021-01-01"), e), null);
  assert.equal(add(t("999999999-12-31"), t("P1D"), e), null);
  assert.equal(add(t("2021-01-01"), t("2021-01-01"), e), null);
  assert.equal(power(t("P2D"), n(4), e), null);
});

Deno.test("zoned date and time arithmetic follows the zone's DST rules", () => {
  const e = env();
  assert.equal(
    toFeelString(add(t("2021-01-01T10:10:10@Australia/Melbourne"), t("PT1H"), e)),
    "2021-01-01T11:10:10@Australia/Melbourne",
  );
  // Melbourne leaves DST at 03:00 on 2021-04-04 (clocks go back to 02:00).
  const beforeChange = t("2021-04-04T01:30:00@Australia/Melbourne");
  const plus1 = add(beforeChange, t("PT1H"), e);
  const plus2 = add(beforeChange, t("PT2H"), e);
  assert.equal(toFeelString(plus1), "2021-04-04T02:30:00@Australia/Melbourne");
  assert.equal(toFeelString(plus2), "2021-04-04T02:30:00@Australia/Melbourne");
  assert.equal(f(getProperty(plus1, "time offset", e)), 'duration("PT11H")');
  assert.equal(f(getProperty(plus2, "time offset", e)), 'duration("PT10H")');
  assert.equal(f(subtract(plus2, plus1, e)), 'duration("PT1H")');
  assert.equal(valueEquals(plus1, plus2, e), false);
  // A day is 24 hours on the time line: across the change the wall clock shows an hour less.
  assert.equal(
    toFeelString(add(t("2021-04-03T12:00:00@Australia/Melbourne"), t("P1D"), e)),
    "2021-04-04T11:00:00@Australia/Melbourne",
  );
  // A wall time inside the spring-forward gap moves past it.
  assert.equal(
    toFeelString(t("2021-10-03T02:30:00@Australia/Melbourne")),
    "2021-10-03T03:30:00@Australia/Melbourne",
  );
  // Months keep the wall clock and take the offset valid on the new date.
  const winter = add(t("2021-01-15T12:00:00@Europe/Paris"), t("P6M"), e);
  assert.equal(toFeelString(winter), "2021-07-15T12:00:00@Europe/Paris");
  assert.equal(f(getProperty(winter, "time offset", e)), 'duration("PT2H")');
});

Deno.test("properties of temporals, durations, ranges and contexts", () => {
  const e = env();
  const dt = t("2018-12-10T10:30:01.5+05:00");
  const props: [FeelValue, string, string][] = [
    [t("2018-12-10"), "weekday", "1"],
    [dt, "year", "2018"],
    [dt, "second", "1.5"],
    [dt, "time offset", 'duration("PT5H")'],
    [dt, "timezone", "null"],
    [t("10:30:00@Etc/UTC"), "timezone", '"Etc/UTC"'],
    [t("10:30:00"), "time offset", "null"],
    [t("P1DT2H3M4.5S"), "hours", "2"],
    [t("P1DT2H3M4.5S"), "seconds", "4.5"],
    [t("-P1DT2H"), "days", "-1"],
    [t("P1Y2M"), "years", "1"],
    [t("P26M"), "months", "2"],
    [t("P1Y"), "days", "null"],
    [feelRange(n(1), false, n(10), true), "start included", "false"],
    [feelRange(null, false, n(10), false, "<"), "start", "null"],
    [fromJs({ a: "foo" }), "a", '"foo"'],
    [fromJs({ a: 1 }), "b", "null"],
    [fromJs([{ y: 2 }, { x: 1 }]), "y", "[2, null]"],
    [n(1), "x", "null"],
  ];
  for (const [v, name, want] of props) {
    assert.equal(f(getProperty(v, name, e)), want, `${f(v)}.${name}`);
  }
  assert.ok(e.warnings.length >= 3);
});

Deno.test("types: typeOf, typeName, instance of, conformance", () => {
  assert.equal(typeName(typeOf(fromJs(["a", "b"]))), "list<string>");
  assert.equal(typeName(typeOf(fromJs(["a", true]))), "list<Any>");
  assert.equal(
    typeName(typeOf(fromJs({ name: "Peter", age: 30 }))),
    "context<name: string, age: number>",
  );
  assert.equal(typeName(typeOf(feelRange(n(1), true, n(10), false))), "range<number>");
  assert.equal(typeName(typeOf(t("2019-01-01T00:00:00"))), "date and time");
  const listOfNumber: FeelType = { kind: "list", item: { kind: "number" } };
  assert.equal(isInstanceOf(fromJs([123]), listOfNumber), true);
  assert.equal(isInstanceOf(fromJs([1, "2"]), listOfNumber), false);
  assert.equal(isInstanceOf(null, { kind: "Any" }), false);
  assert.equal(isInstanceOf(null, { kind: "Null" }), true);
  assert.equal(isInstanceOf(n(1), { kind: "Any" }), true);
  const ctx: FeelType = { kind: "context", entries: new Map([["a", { kind: "string" }]]) };
  assert.equal(isInstanceOf(fromJs({ a: "x", b: 1 }), ctx), true);
  assert.equal(isInstanceOf(fromJs({ b: 1 }), ctx), false);
  const sfn: FeelType = {
    kind: "function",
    params: [{ kind: "string" }, { kind: "number" }],
    result: { kind: "Any" },
  };
  const typed = new FeelFunction([[{ name: "a", type: { kind: "string" } }, {
    name: "b",
    type: { kind: "number" },
  }]], () => null);
  const wrong = new FeelFunction([[{ name: "a", type: { kind: "string" } }, {
    name: "b",
    type: { kind: "string" },
  }]], () => null);
  assert.equal(isInstanceOf(typed, sfn), true);
  assert.equal(isInstanceOf(wrong, sfn), false);
  assert.equal(conformsTo({ kind: "Null" }, { kind: "number" }), true);
  assert.equal(conformsTo(listOfNumber, { kind: "list", item: { kind: "Any" } }), true);
  assert.equal(conformsTo({ kind: "date" }, { kind: "date and time" }), false);
});

Deno.test("types: a named type stands for its structure and may refer to itself", () => {
  const tree: { kind: "named"; name: string; base: FeelType } = {
    kind: "named",
    name: "tTree",
    base: { kind: "Any" },
  };
  tree.base = {
    kind: "context",
    entries: new Map<string, FeelType>([["v", { kind: "number" }], [
      "kids",
      { kind: "list", item: tree },
    ]]),
  };
  assert.equal(typeName(tree), "tTree");
  assert.equal(typeName({ kind: "list", item: tree }), "list<tTree>");
  assert.equal(isInstanceOf(fromJs({ v: 1, kids: [{ v: 2, kids: [] }] }), tree), true);
  assert.equal(isInstanceOf(fromJs({ v: 1, kids: [{ v: "x", kids: [] }] }), tree), false);
  assert.equal(conformsTo(tree, tree), true);
  // Two recursive types of the same shape conform without expanding forever.
  const other: { kind: "named"; name: string; base: FeelType } = {
    kind: "named",
    name: "tOther",
    base: { kind: "Any" },
  };
  other.base = {
    kind: "context",
    entries: new Map<string, FeelType>([["v", { kind: "number" }], [
      "kids",
      { kind: "list", item: other },
    ]]),
  };
  assert.equal(conformsTo(tree, other), true);
  assert.equal(conformsTo(other, { kind: "list", item: tree }), false);
  assert.equal(conformsTo(tree, { kind: "context", entries: new Map() }), true);
  const age: FeelType = { kind: "named", name: "tAge", base: { kind: "number" } };
  assert.equal(conformsTo({ kind: "number" }, age), true);
  assert.equal(conformsTo(age, { kind: "string" }), false);
  assert.equal(structureOf(age).kind, "number");
  // A typed parameter of a named list type wraps a single value, as for list<…>.
  const seen: FeelValue[] = [];
  const fn = new FeelFunction(
    [[{ name: "xs", type: { kind: "named", name: "tNums", base: { kind: "list", item: age } } }]],
    (args) => {
      seen.push(args[0] ?? null);
      return true;
    },
  );
  callFunction(fn, { positional: [n(3)] }, env());
  assert.equal(formatFeel(seen[0]), "[3]");
});

Deno.test("callFunction: positional, named, optional, variadic and coercion", () => {
  const seen: unknown[] = [];
  const fn = new FeelFunction(
    [
      [{ name: "s", type: { kind: "string" } }, { name: "n", optional: true }],
      [{ name: "items", variadic: true }],
    ],
    (args, _env, sig) => {
      seen.push([sig, ...args.map((a) => (a === undefined ? "undefined" : formatFeel(a)))]);
      return true;
    },
    "probe",
  );
  const e = env();
  callFunction(fn, { positional: ["x"] }, e);
  callFunction(fn, { positional: [["y"], n(2)] }, e);
  callFunction(fn, { positional: [n(1), n(2), n(3)] }, e);
  callFunction(fn, { named: new Map([["n", n(1)]]) }, e);
  callFunction(fn, { named: new Map<string, FeelValue>([["items", n(1)]]) }, e);
  assert.deepEqual(seen, [
    [0, '"x"', "undefined"],
    [0, '"y"', "2"],
    [1, "[1, 2, 3]"],
    [0, "null", "1"],
    [1, "[1]"],
  ]);
  assert.equal(callFunction(fn, { positional: [] }, e), null);
  assert.equal(callFunction(fn, { named: new Map([["zzz", n(1)]]) }, e), null);
  assert.match(e.warnings.join("\n"), /'probe' does not take 0 argument/);
  assert.match(e.warnings.join("\n"), /no parameters named zzz/);
  const typed = new FeelFunction([[{ name: "d", type: { kind: "date and time" } }]], ([d]) => d!);
  assert.equal(
    f(callFunction(typed, { positional: [t("2021-01-01")] }, e)),
    'date and time("2021-01-01T00:00:00Z")',
  );
  assert.equal(callFunction(typed, { positional: [n(1)] }, e), null);
  const list = new FeelFunction(
    [[{ name: "l", type: { kind: "list", item: { kind: "number" } } }]],
    ([l]) => l!,
  );
  assert.equal(f(callFunction(list, { positional: [n(7)] }, e)), "[7]");
});

Deno.test("rangeContains: intervals, unary comparisons, null endpoints", () => {
  const e = env();
  assert.equal(rangeContains(feelRange(n(1), true, n(10), false), n(10), e), false);
  assert.equal(rangeContains(feelRange(n(1), false, n(10), true), n(10), e), true);
  assert.equal(rangeContains(feelRange(null, false, n(10), false, "<"), n(-5), e), true);
  assert.equal(rangeContains(feelRange(n(10), true, n(10), true, "="), n(10), e), true);
  assert.equal(rangeContains(feelRange(n(10), false, n(10), false, "!="), n(10), e), false);
  assert.equal(rangeContains(feelRange(null, false, n(10), true), n(5), e), null);
  assert.equal(rangeContains(feelRange(n(1), true, n(10), true), "a", e), null);
  assert.equal(
    rangeContains(feelRange(t("2021-01-01"), true, t("2021-12-31"), true), t("2021-06-01"), e),
    true,
  );
});

Deno.test("fromJs and toJs", () => {
  const v = fromJs({
    a: 1,
    b: [true, "x", null, undefined],
    c: 10n,
    d: new Date(Date.UTC(2021, 0, 1)),
    e: NaN,
  });
  assert.equal(
    f(v),
    '{a: 1, b: [true, "x", null, null], c: 10, d: date and time("2021-01-01T00:00:00Z"), e: null}',
  );
  assert.equal(fromJs(v), v);
  const m = fromJs(new Map([["k", 1]]));
  assert.ok(m instanceof FeelContext);
  assert.deepEqual(toJs(fromJs({ a: 1.5, b: [1, "x"], c: null })), {
    a: 1.5,
    b: [1, "x"],
    c: null,
  });
  assert.equal(toJs(n("0.1")), 0.1);
  assert.equal(toJs(n("12345678901234567890.5")), "12345678901234567890.5");
  // JS prints these in exponent form, the decimal in full: they still come out as numbers.
  assert.equal(toJs(n("0.00000015")), 1.5e-7);
  assert.equal(toJs(n("-0.0000001")), -1e-7);
  assert.equal(
    toJs(n("0.1000000000000000000000000000000001")),
    "0.1000000000000000000000000000000001",
  );
  assert.equal(toJs(n("9007199254740993")), "9007199254740993");
  assert.ok(Object.is(toJs(n("-0")), 0));
  assert.equal(toJs(t("P1DT1H")), "P1DT1H");
  assert.equal(toJs(feelRange(n(1), true, n(2), false)), "[1..2)");
  const proto = toJs(new FeelContext(new Map<string, FeelValue>([["__proto__", n(1)]]))) as Record<
    string,
    unknown
  >;
  assert.equal(Object.getPrototypeOf(proto), Object.prototype);
  assert.equal(proto["__proto__"], 1);
});

Deno.test("formatFeel renders FEEL source deterministically", () => {
  assert.equal(f('a"b\\c\n\u0001'), '"a\\"b\\\\c\\n\\u0001"');
  assert.equal(f(fromJs({ "first name": 1, if: 2, a: [] })), '{"first name": 1, "if": 2, a: []}');
  assert.equal(f(feelRange(n(1), false, n(2), true)), "(1..2]");
  assert.equal(f(feelRange(null, false, n(2), true, "<=")), "<= 2");
  assert.equal(f(feelRange(n(2), false, n(2), false, "!=")), "!= 2");
  assert.equal(f(n("1e40")), "1e+40");
  assert.equal(f(n("123456789012345678901234567890")), "123456789012345678901234567890");
  assert.equal(f(t("10:00:00+01:00")), 'time("10:00:00+01:00")');
  assert.equal(
    f(new FeelFunction([[{ name: "a" }, { name: "b c" }]], () => null)),
    'function(a, "b c")',
  );
  assert.equal(toFeelString(t("P1Y")), "P1Y");
  assert.equal(toFeelString(t("PT0S")), "PT0S");
  assert.equal(toFeelString(n("1.10")), "1.1");
});

Deno.test("parseTemporalLiteral recognises each kind", () => {
  const e = env();
  assert.equal(f(parseTemporalLiteral("2019-03-31", e)), 'date("2019-03-31")');
  assert.equal(
    f(parseTemporalLiteral("10:30:11@Australia/Melbourne", e)),
    'time("10:30:11@Australia/Melbourne")',
  );
  assert.equal(
    f(parseTemporalLiteral("2018-12-08T10:30:11+11:00", e)),
    'date and time("2018-12-08T10:30:11+11:00")',
  );
  assert.equal(f(parseTemporalLiteral("-P1Y2M", e)), 'duration("-P1Y2M")');
  assert.equal(f(parseTemporalLiteral("P1DT25H", e)), 'duration("P2DT1H")');
  assert.equal(parseTemporalLiteral("foo", e), null);
  assert.match(e.warnings[0], /"foo" is not a valid/);
});
