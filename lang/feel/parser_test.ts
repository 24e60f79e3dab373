import assert from "node:assert/strict";
import type { Node, TypeNode } from "./ast.ts";
import { parse, type ParseOptions } from "./parser.ts";

/** Renders a tree compactly with explicit grouping, to assert structure. */
function show(n: Node | null): string {
  if (n === null) return "_";
  switch (n.kind) {
    case "Number":
      return n.text;
    case "String":
      return JSON.stringify(n.value);
    case "Boolean":
      return String(n.value);
    case "Null":
      return "null";
    case "Temporal":
      return `@${JSON.stringify(n.text)}`;
    case "Name":
      return `<${n.name}>`;
    case "Path":
      return `${show(n.base)}.<${n.member}>`;
    case "Filter":
      return `${show(n.base)}[${show(n.filter)}]`;
    case "Invocation":
      return `${show(n.callee)}(${
        n.args.map((a) => (a.name === undefined ? "" : `${a.name}: `) + show(a.value)).join(", ")
      })`;
    case "Negation":
      return `(-${show(n.operand)})`;
    case "Binary":
    case "Logical":
      return `(${show(n.left)} ${n.op} ${show(n.right)})`;
    case "Between":
      return `(${show(n.value)} between ${show(n.low)} and ${show(n.high)})`;
    case "In":
      return `(${show(n.value)} in ${n.tests.map(show).join(" | ")})`;
    case "InstanceOf":
      return `(${show(n.value)} instance of ${showType(n.type)})`;
    case "If":
      return `if ${show(n.condition)} then ${show(n.then)} else ${show(n.else)}`;
    case "For":
    case "Quantified": {
      const its = n.iterations.map((i) =>
        `${i.name} in ${show(i.source)}${i.to === undefined ? "" : ".." + show(i.to)}`
      ).join(", ");
      return n.kind === "For"
        ? `for ${its} return ${show(n.body)}`
        : `${n.quantifier} ${its} satisfies ${show(n.condition)}`;
    }
    case "Function":
      return `function(${
        n.params.map((p) => p.name + (p.type === undefined ? "" : `: ${showType(p.type)}`)).join(
          ", ",
        )
      })${n.external ? " external" : ""} ${show(n.body)}`;
    case "Context":
      return `{${n.entries.map((e) => `${JSON.stringify(e.key)}: ${show(e.value)}`).join(", ")}}`;
    case "List":
      return `[${n.items.map(show).join(", ")}]`;
    case "Range":
      return `${n.startIncluded ? "[" : "("}${show(n.start)}..${show(n.end)}${
        n.endIncluded ? "]" : ")"
      }`;
    case "UnaryCompare":
      return `${n.op}${show(n.value)}`;
    case "UnaryTests":
      return n.any ? "ANY" : `${n.negated ? "not" : ""}{${n.tests.map(show).join(" | ")}}`;
  }
}

function showType(t: TypeNode): string {
  switch (t.kind) {
    case "NamedType":
      return t.name;
    case "ListType":
      return `list<${showType(t.item)}>`;
    case "RangeType":
      return `range<${showType(t.item)}>`;
    case "ContextType":
      return `context<${t.entries.map((e) => `${e.name}: ${showType(e.type)}`).join(", ")}>`;
    case "FunctionType":
      return `function<${t.params.map(showType).join(", ")}>->${showType(t.result)}`;
  }
}

function ast(text: string, options?: ParseOptions): Node {
  const r = parse(text, options);
  if (r.diagnostics !== undefined) {
    throw new Error(`unexpected diagnostics for ${text}: ${r.diagnostics[0].message}`);
  }
  return r.ast;
}

function tree(text: string, options?: ParseOptions): string {
  return show(ast(text, options));
}

function tests(text: string, names?: string[]): string {
  return show(ast(text, { mode: "unaryTests", names }));
}

function failure(text: string, options?: ParseOptions) {
  const r = parse(text, options);
  assert.ok(r.diagnostics !== undefined, `expected ${text} to be rejected`);
  assert.equal(r.diagnostics.length, 1);
  return r.diagnostics[0];
}

Deno.test("parser: literals", () => {
  assert.equal(tree("42"), "42");
  assert.equal(tree(".5"), ".5");
  assert.equal(tree('"a b"'), '"a b"');
  assert.equal(tree("true"), "true");
  assert.equal(tree("null"), "null");
  assert.equal(tree('@"2020-01-01"'), '@"2020-01-01"');
  assert.equal(tree("[1, 2, 3]"), "[1, 2, 3]");
  assert.equal(tree("[]"), "[]");
});

Deno.test("parser: arithmetic precedence", () => {
  assert.equal(tree("1 + 2 * 3"), "(1 + (2 * 3))");
  assert.equal(tree("(1 + 2) * 3"), "((1 + 2) * 3)");
  assert.equal(tree("1 - 2 - 3"), "((1 - 2) - 3)");
  assert.equal(tree("8 / 2 * 4"), "((8 / 2) * 4)");
  assert.equal(tree("2 * 3 ** 2"), "(2 * (3 ** 2))");
});

Deno.test("parser: exponentiation is left-associative and binds looser than negation", () => {
  assert.equal(tree("3 ** 4 ** 5"), "((3 ** 4) ** 5)");
  assert.equal(tree("-3 ** 2"), "((-3) ** 2)");
  assert.equal(tree("--10"), "(-(-10))");
});

Deno.test("parser: logic and comparison precedence", () => {
  assert.equal(tree("a or b and c"), "(<a> or (<b> and <c>))");
  assert.equal(tree("a > 1 and b = 2"), "((<a> > 1) and (<b> = 2))");
  assert.equal(tree("a + 1 > b * 2"), "((<a> + 1) > (<b> * 2))");
  assert.equal(tree("x between 1 and 5 and y"), "((<x> between 1 and 5) and <y>)");
  assert.equal(tree("a != b"), "(<a> != <b>)");
});

Deno.test("parser: instance of binds tighter than comparison, looser than arithmetic", () => {
  assert.equal(tree("x + 1 instance of number"), "((<x> + 1) instance of number)");
  assert.equal(tree("x instance of number = true"), "((<x> instance of number) = true)");
});

Deno.test("parser: parametric types", () => {
  assert.equal(tree("x instance of list<number>"), "(<x> instance of list<number>)");
  assert.equal(
    tree("x instance of context<a: number, b c: list<string>>"),
    "(<x> instance of context<a: number, b c: list<string>>)",
  );
  assert.equal(
    tree("f instance of function<number, string>->boolean"),
    "(<f> instance of function<number, string>->boolean)",
  );
  assert.equal(tree("f instance of function<>->Any"), "(<f> instance of function<>->Any)");
  assert.equal(tree("r instance of range<date>"), "(<r> instance of range<date>)");
  assert.equal(
    tree("d instance of days and time duration"),
    "(<d> instance of days and time duration)",
  );
  assert.equal(tree("d instance of date and time"), "(<d> instance of date and time)");
  assert.equal(tree("x instance of list<list<Null>>"), "(<x> instance of list<list<Null>>)");
  assert.equal(tree("x instance of ns.tPerson"), "(<x> instance of ns.tPerson)");
});

Deno.test("parser: names with spaces join plain words", () => {
  assert.equal(tree("Monthly Salary * 12"), "(<Monthly Salary> * 12)");
  assert.equal(tree("string length(x)"), "<string length>(<x>)");
  assert.equal(tree("Applicant's age"), "<Applicant's age>");
  assert.equal(tree("Step 2 + 1"), "(<Step 2> + 1)");
});

Deno.test("parser: names containing keywords or operators need to be known", () => {
  assert.equal(tree("a-b + 1"), "((<a> - <b>) + 1)");
  assert.equal(tree("a-b + 1", { names: ["a-b"] }), "(<a-b> + 1)");
  assert.equal(tree("a - b", { names: ["a-b"] }), "(<a> - <b>)");
  assert.equal(
    tree("every i in values in a list satisfies i > 0", { names: ["values in a list"] }),
    "every i in <values in a list> satisfies (<i> > 0)",
  );
  assert.equal(tree("net/gross", { names: ["net/gross"] }), "<net/gross>");
  assert.equal(tree("x.y z", { names: ["x.y z"] }), "<x.y z>");
});

Deno.test("parser: the longest known name wins", () => {
  assert.equal(
    tree("date and time > 1", { names: ["date", "date and time"] }),
    "(<date and time> > 1)",
  );
  assert.equal(tree("date and x", { names: ["date and time"] }), "(<date> and <x>)");
});

Deno.test("parser: keywords end a name", () => {
  assert.equal(tree("if a b then c d else e"), "if <a b> then <c d> else <e>");
  assert.equal(tree("for x in y z return x"), "for x in <y z> return <x>");
});

Deno.test("parser: names declared by the expression itself", () => {
  assert.equal(
    tree("{unit price: 2, total-cost: unit price * 3, t: total-cost}"),
    '{"unit price": 2, "total-cost": (<unit price> * 3), "t": <total-cost>}',
  );
  assert.equal(
    tree("for tax-rate in [1] return tax-rate"),
    "for tax-rate in [1] return <tax-rate>",
  );
  assert.equal(tree("function(net-value) net-value * 2"), "function(net-value) (<net-value> * 2)");
});

Deno.test("parser: paths", () => {
  assert.equal(tree("a.b.c"), "<a>.<b>.<c>");
  assert.equal(tree("Applicant.Credit Score > 5"), "(<Applicant>.<Credit Score> > 5)");
  assert.equal(tree("r.start included"), "<r>.<start included>");
  assert.equal(tree("{a: 1}.a"), '{"a": 1}.<a>');
  assert.equal(tree("f(x).y"), "<f>(<x>).<y>");
});

Deno.test("parser: filters", () => {
  assert.equal(tree("l[1]"), "<l>[1]");
  assert.equal(tree("l[-1]"), "<l>[(-1)]");
  assert.equal(tree("l[item > 2].name"), "<l>[(<item> > 2)].<name>");
  assert.equal(tree('orders[status = "open"][1]'), '<orders>[(<status> = "open")][1]');
});

Deno.test("parser: invocation, positional and named", () => {
  assert.equal(tree("f()"), "<f>()");
  assert.equal(tree("f(1, 2)"), "<f>(1, 2)");
  assert.equal(tree("f(b: 1, a: 2)"), "<f>(b: 1, a: 2)");
  assert.equal(
    tree("substring(string: s, start position: 2)"),
    "<substring>(string: <s>, start position: 2)",
  );
  assert.equal(tree("f(1)(2)"), "<f>(1)(2)");
  assert.equal(tree("(function(a) a)(3)"), "function(a) <a>(3)");
});

Deno.test("parser: if, for, some, every", () => {
  assert.equal(tree("if a then 1 else 2"), "if <a> then 1 else 2");
  assert.equal(tree("1 + if a then 2 else 3"), "(1 + if <a> then 2 else 3)");
  assert.equal(
    tree("for x in l, y in 1..3 return x * y"),
    "for x in <l>, y in 1..3 return (<x> * <y>)",
  );
  assert.equal(
    tree('for d in @"2020-01-01"..e return d'),
    'for d in @"2020-01-01"..<e> return <d>',
  );
  assert.equal(tree("some x in [1, 2] satisfies x > 1"), "some x in [1, 2] satisfies (<x> > 1)");
  assert.equal(
    tree("every x in a, y in b satisfies x < y"),
    "every x in <a>, y in <b> satisfies (<x> < <y>)",
  );
});

Deno.test("parser: intervals with every bracket combination", () => {
  assert.equal(tree("[1..10]"), "[1..10]");
  assert.equal(tree("(1..10)"), "(1..10)");
  assert.equal(tree("]1..10["), "(1..10)");
  assert.equal(tree("[1..10["), "[1..10)");
  assert.equal(tree("]1..10]"), "(1..10]");
  assert.equal(tree("[a.b..c[1]]"), "[<a>.<b>..<c>[1]]");
  assert.equal(tree('[@"2020-01-01"..@"2020-12-31"]'), '[@"2020-01-01"..@"2020-12-31"]');
});

Deno.test("parser: unary comparisons are range values", () => {
  assert.equal(tree("< 10"), "(_..10)");
  assert.equal(tree(">= x + 1"), "[(<x> + 1).._)");
  assert.equal(tree("[< 10, > 20]"), "[(_..10), (20.._)]");
  assert.equal(tree("(!= 10).start"), "!=10.<start>");
});

Deno.test("parser: in with one test or a list of tests", () => {
  assert.equal(tree("x in [1, 2]"), "(<x> in [1, 2])");
  assert.equal(tree("x in (1, < 5, >= 10)"), "(<x> in 1 | (_..5) | [10.._))");
  assert.equal(tree("x in (2..4]"), "(<x> in (2..4])");
  assert.equal(tree("x in = 10"), "(<x> in =10)");
  assert.equal(tree("x in <= 10 and y"), "((<x> in (_..10]) and <y>)");
});

Deno.test("parser: context literals", () => {
  assert.equal(tree("{}"), "{}");
  assert.equal(tree('{a: 1, "b c": a + 1}'), '{"a": 1, "b c": (<a> + 1)}');
  assert.equal(tree('{🐎: "😀"}'), '{"🐎": "😀"}');
  assert.equal(tree("{a: {b: 1}}.a.b"), '{"a": {"b": 1}}.<a>.<b>');
});

Deno.test("parser: function definitions", () => {
  assert.equal(tree("function(a, b) a + b"), "function(a, b) (<a> + <b>)");
  assert.equal(
    tree("function(a: number, b: list<string>) a"),
    "function(a: number, b: list<string>) <a>",
  );
  assert.equal(
    tree('function(x) external {java: {class: "C", method signature: "m(double)"}}'),
    'function(x) external {"java": {"class": "C", "method signature": "m(double)"}}',
  );
});

Deno.test("parser: comments anywhere", () => {
  assert.equal(tree("1 /* one */ + // plus\n 2"), "(1 + 2)");
});

Deno.test("parser: unary tests", () => {
  assert.equal(tests("-"), "ANY");
  assert.equal(tests("< 10"), "{(_..10)}");
  assert.equal(tests('"a", "b"'), '{"a" | "b"}');
  assert.equal(tests('not("a", "b")'), 'not{"a" | "b"}');
  assert.equal(tests("[1..5], > 10"), "{[1..5] | (10.._)}");
  assert.equal(tests("? > 5"), "{(<?> > 5)}");
  assert.equal(tests('contains(?, "x")'), '{<contains>(<?>, "x")}');
  assert.equal(tests("not(1) or x"), "{(<not>(1) or <x>)}");
  assert.equal(tests("= 5, != 6"), "{=5 | !=6}");
  assert.equal(tests("-5"), "{(-5)}");
  assert.equal(tests("null"), "{null}");
});

Deno.test("parser: every node carries its span", () => {
  const n = ast("a +\n  f(1)");
  assert.equal(n.kind, "Binary");
  if (n.kind !== "Binary") return;
  assert.deepEqual(n.span, { offset: 0, end: 10, line: 1, column: 1 });
  assert.deepEqual(n.right.span, { offset: 6, end: 10, line: 2, column: 3 });
});

Deno.test("parser: errors carry line and column", () => {
  const d = failure("a +\n  * b");
  assert.equal(d.code, "SUTRA.FEEL.PARSE");
  assert.equal(d.severity, "ERROR");
  assert.deepEqual(d.source, { line: 2, column: 3, offset: 6 });
  assert.match(d.message, /unexpected '\*'/);
});

Deno.test("parser: common mistakes are diagnosed", () => {
  assert.match(failure("(1 + 2").message, /expected '\)' but found the end of the text/);
  assert.match(failure("if a then b").message, /expected 'else'/);
  assert.match(failure("for x in l x").message, /expected 'return'/);
  assert.match(failure("some x in l").message, /expected 'satisfies'/);
  assert.match(failure("[1..2").message, /to close the interval/);
  assert.match(failure("{a 1}").message, /expected ':'/);
  assert.match(failure("1 2").message, /unexpected number 2/);
  assert.match(failure("f(a: 1, a: 2)").message, /given twice/);
  assert.match(failure("function(a, a) a").message, /duplicate parameter/);
  assert.match(failure("x instance of").message, /expected a type/);
  assert.match(failure("").message, /expression is missing/);
  assert.match(failure("a and").message, /expression is missing/);
  assert.match(failure("then").message, /unexpected keyword 'then'/);
  assert.match(failure('"open').message, /unterminated string/);
});

Deno.test("parser: diagnostics carry the caller's uri", () => {
  const d = failure("1 +", { uri: "file:///rules.dmn" });
  assert.equal(d.source?.uri, "file:///rules.dmn");
});

Deno.test("parser: unary-test lists reject stray tokens", () => {
  const r = parse("1, 2 3", { mode: "unaryTests" });
  assert.ok(r.diagnostics !== undefined);
  assert.equal(r.diagnostics[0].source?.column, 6);
});

Deno.test("parser: absurdly deep nesting is a diagnostic, not a crash", () => {
  const d = failure("(".repeat(20000) + "1" + ")".repeat(20000));
  assert.match(d.message, /nested too deeply/);
});

Deno.test("parser: not(…) around intervals with reversed brackets", () => {
  assert.equal(tests("not(]1..5[)"), "not{(1..5)}");
  assert.equal(tests("not([1..5), 7)"), "not{[1..5) | 7}");
});
