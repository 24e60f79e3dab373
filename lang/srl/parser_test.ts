import assert from "node:assert/strict";
import { parseRuleset, type Ruleset, SrlCode, type SrlDiagnostic } from "./mod.ts";

function ok(text: string, names?: string[]): Ruleset {
  const r = parseRuleset(text, { uri: "rules/t.srl", names });
  assert.equal(r.diagnostics, undefined, JSON.stringify(r.diagnostics));
  return r.ruleset!;
}

function errors(text: string): SrlDiagnostic[] {
  const r = parseRuleset(text, { uri: "rules/t.srl" });
  assert.equal(r.ruleset, undefined, "expected the ruleset to be rejected");
  return r.diagnostics!;
}

function where(d: SrlDiagnostic): [string, number, number] {
  return [d.code, d.source!.line, d.source!.column];
}

Deno.test("ruleset := rule*: empty text and comment-only text are empty rulesets", () => {
  assert.deepEqual(ok("").rules, []);
  assert.deepEqual(ok("  // nothing yet\n/* still\nnothing */\n").rules, []);
});

Deno.test("rule: name, condition, actions, defaults and source position", () => {
  const rs = ok(`
  rule "amount-positive"
  when payload.amount <= 0
  then
    report("SUTRA.VALIDATE.AMOUNT", "payload.amount", "must be positive");
  end`);
  assert.equal(rs.uri, "rules/t.srl");
  assert.equal(rs.rules.length, 1);
  const rule = rs.rules[0];
  assert.equal(rule.name, "amount-positive");
  assert.equal(rule.salience, 0);
  assert.equal(rule.activationGroup, undefined);
  assert.deepEqual(rule.source, { uri: "rules/t.srl", line: 2, column: 3 });
  assert.equal(rule.condition.text, "payload.amount <= 0");
  assert.deepEqual(rule.condition.source, { uri: "rules/t.srl", line: 3, column: 8 });
  assert.equal(rule.actions.length, 1);
  const report = rule.actions[0];
  assert.equal(report.verb, "report");
  if (report.verb !== "report") return;
  assert.equal(report.code.text, '"SUTRA.VALIDATE.AMOUNT"');
  assert.equal(report.path.text, '"payload.amount"');
  assert.equal(report.message.text, '"must be positive"');
  assert.deepEqual(report.source, { uri: "rules/t.srl", line: 5, column: 5 });
});

Deno.test("rule: a name takes FEEL string escapes", () => {
  const rs = ok(String.raw`rule "say \"hi\" \u00e9" when true then end`);
  assert.equal(rs.rules[0].name, 'say "hi" é');
});

Deno.test("rule: a rule may have no actions", () => {
  assert.deepEqual(ok(`rule "noop" when true then end`).rules[0].actions, []);
});

Deno.test("attr: salience (signed) and activation-group in either order", () => {
  const rs = ok(`
    rule "a" salience 10 activation-group "g" when true then end
    rule "b" activation-group "g" salience -5 when true then end
    rule "c" salience +3 when true then end`);
  assert.deepEqual(
    rs.rules.map((r) => [r.name, r.salience, r.activationGroup]),
    [["a", 10, "g"], ["b", -5, "g"], ["c", 3, undefined]],
  );
});

Deno.test("attr: a non-integer salience is a parse error at the value", () => {
  for (const bad of ["salience x", "salience 1.5", "salience", "salience 99999999999999999999"]) {
    const [d] = errors(`rule "r" ${bad} when true then end`);
    assert.equal(d.code, SrlCode.PARSE);
    assert.match(d.message, /'salience' needs an integer/);
    assert.equal(d.source!.column, 19);
    assert.equal(d.attributes!.rule, "r");
  }
});

Deno.test("attr: repeating an attribute is a parse error", () => {
  assert.match(errors(`rule "r" salience 1 salience 2 when true then end`)[0].message, /twice/);
  assert.match(
    errors(`rule "r" activation-group "a" activation-group "b" when true then end`)[0].message,
    /'activation-group' is given twice/,
  );
});

Deno.test("attr: activation-group needs a quoted name", () => {
  const [d] = errors(`rule "r" activation-group g when true then end`);
  assert.deepEqual(where(d), [SrlCode.PARSE, 1, 27]);
  assert.match(d.message, /needs a name in double quotes, found 'g'/);
});

Deno.test("rule: framing errors name what was expected and where", () => {
  const cases: [string, RegExp, number, number][] = [
    [`rules "r" when true then end`, /expected 'rule', found 'rules'/, 1, 1],
    [`rule r when true then end`, /rule name in double quotes, found 'r'/, 1, 6],
    [`rule "r\nwhen true then end`, /unterminated string/, 1, 6],
    [
      `rule "r" if true then end`,
      /expected 'salience', 'activation-group' or 'when', found 'if'/,
      1,
      10,
    ],
    [`rule "r" when true`, /condition of rule "r" has no 'then'/, 1, 10],
    [`rule "r" when then end`, /empty condition/, 1, 14],
    [`rule "r" when true then report("a", "b", "c");`, /rule "r" is not closed with 'end'/, 1, 1],
    [
      `rule "r" when true then report("a", "b", "c") end`,
      /expected ';' after the 'report\(…\)' action, found 'end'/,
      1,
      47,
    ],
    [`rule "r" when true then report "a"; end`, /expected '\(' after 'report', found '"a"'/, 1, 32],
    [
      `rule "r" when true then report("a", "b", "c"; end`,
      /arguments of 'report' are not closed/,
      1,
      25,
    ],
    [`rule "r" when true then 42; end`, /expected an action or 'end', found '4'/, 1, 25],
    [`rule "r" when true /* open then end`, /unterminated comment/, 1, 20],
  ];
  for (const [text, message, line, column] of cases) {
    const ds = errors(text);
    assert.equal(ds.length, 1, `${text}: ${JSON.stringify(ds)}`);
    assert.match(ds[0].message, message, text);
    assert.deepEqual(where(ds[0]), [SrlCode.PARSE, line, column], text);
    assert.equal(ds[0].source!.uri, "rules/t.srl");
  }
});

Deno.test("condition: `then` ends it only at depth 0, outside strings and comments", () => {
  const rs = ok(`
    rule "a" when (if x > 1 then true else false) then end
    rule "b" when name = "when x then y" then end
    rule "c" when list contains([1, 2], 2) // then is not here
      and {k: if x then 1 else 2}.k = 1 /* nor then here */ then end
    rule "d" when x in [1..10) and y in (1..5] then end
    rule "e" when thenable and athen then end`);
  assert.deepEqual(rs.rules.map((r) => r.condition.text), [
    "(if x > 1 then true else false)",
    'name = "when x then y"',
    "list contains([1, 2], 2) // then is not here\n      and {k: if x then 1 else 2}.k = 1 /* nor then here */",
    "x in [1..10) and y in (1..5]",
    "thenable and athen",
  ]);
});

Deno.test("condition: a bare if/then/else is rejected with a hint to parenthesise", () => {
  const ds = errors(
    `rule "r" when if x then true else false then end\nrule "next" when true then modify(); end`,
  );
  assert.deepEqual(ds.map((d) => d.code), [SrlCode.EXPRESSION, SrlCode.UNKNOWN_ACTION]);
  assert.match(ds[0].message, /must be parenthesised/);
  assert.deepEqual(ds[0].source, { uri: "rules/t.srl", line: 1, column: 19 });
});

Deno.test("condition: FEEL errors point at the file position inside the expression", () => {
  const ds = errors(`rule "r"
when
  payload.amount > 0 and
  payload.currency = "USD" "EUR"
then end`);
  assert.equal(ds.length, 1);
  assert.equal(ds[0].code, SrlCode.EXPRESSION);
  assert.equal(ds[0].attributes!.feelCode, "SUTRA.FEEL.PARSE");
  assert.equal(ds[0].attributes!.rule, "r");
  assert.equal(ds[0].source!.line, 4);
  assert.equal(ds[0].source!.column, 28);
  assert.doesNotMatch(ds[0].message, /\(line \d+, column \d+\)$/);
});

Deno.test("report: arguments split at top-level commas only", () => {
  const rs = ok(`rule "r" when true then
    report(string join(["a", "b"], ","), "p,q", "x(" + string(count([1, 2])) + ")");
  end`);
  const a = rs.rules[0].actions[0];
  assert.equal(a.verb, "report");
  if (a.verb !== "report") return;
  assert.equal(a.code.text, 'string join(["a", "b"], ",")');
  assert.equal(a.path.text, '"p,q"');
  assert.equal(a.message.text, '"x(" + string(count([1, 2])) + ")"');
});

Deno.test("report: needs exactly three non-empty arguments", () => {
  const cases: [string, RegExp][] = [
    [`report("a", "b")`, /'report' takes 3 arguments, found 2/],
    [`report("a", "b", "c", "d")`, /'report' takes 3 arguments, found 4/],
    [`report()`, /'report' takes 3 arguments, found 0/],
    [`report("a", , "c")`, /argument 2 of 'report' is empty/],
  ];
  for (const [action, message] of cases) {
    const [d] = errors(`rule "r" when true then ${action}; end`);
    assert.equal(d.code, SrlCode.ACTION_ARGUMENTS, action);
    assert.match(d.message, message, action);
    assert.equal(d.attributes!.action, "report");
  }
});

Deno.test("report: each argument is compiled FEEL with its own position", () => {
  const [d] = errors(`rule "r" when true then report("a", "b", "c" +); end`);
  assert.equal(d.code, SrlCode.EXPRESSION);
  assert.match(d.message, /^argument 3 of 'report' is not valid FEEL/);
  assert.equal(d.source!.column, 47);
});

Deno.test("set: an identifier and one FEEL expression", () => {
  const rs = ok(`rule "r" when true then set( risk_score , 1 + 2 ); set(tierÉ, "x"); end`);
  const [a, b] = rs.rules[0].actions;
  assert.equal(a.verb, "set");
  assert.equal(b.verb, "set");
  if (a.verb !== "set" || b.verb !== "set") return;
  assert.equal(a.target, "risk_score");
  assert.equal(a.value.text, "1 + 2");
  assert.equal(b.target, "tierÉ");
});

Deno.test("set: the target must be a plain, non-keyword name; arity is two", () => {
  const cases: [string, RegExp][] = [
    [`set("x", 1)`, /must be a variable name, found '"x"'/],
    [`set(a.b, 1)`, /must be a variable name, found 'a.b'/],
    [`set(null, 1)`, /must be a variable name, found 'null'/],
    [`set(x)`, /'set' takes 2 arguments, found 1/],
    [`set(x, 1, 2)`, /'set' takes 2 arguments, found 3/],
  ];
  for (const [action, message] of cases) {
    const [d] = errors(`rule "r" when true then ${action}; end`);
    assert.equal(d.code, SrlCode.ACTION_ARGUMENTS, action);
    assert.match(d.message, message, action);
  }
});

Deno.test("insert and retract are a clean parse error naming them as reserved", () => {
  for (const verb of ["insert", "retract"]) {
    const ds = errors(`rule "r" when true then\n  ${verb}(new Fact());\nend`);
    assert.equal(ds.length, 1);
    assert.equal(ds[0].code, SrlCode.RESERVED_ACTION);
    assert.match(ds[0].message, new RegExp(`'${verb}' is reserved`));
    assert.deepEqual(ds[0].source, { uri: "rules/t.srl", line: 2, column: 3 });
    assert.deepEqual(ds[0].attributes, { rule: "r", action: verb });
  }
});

Deno.test("an unknown verb is rejected", () => {
  const [d] = errors(`rule "r" when true then modify(x); end`);
  assert.equal(d.code, SrlCode.UNKNOWN_ACTION);
  assert.match(d.message, /unknown action 'modify'/);
});

Deno.test("every broken rule is reported in one run, good rules in between do not hide them", () => {
  const ds = errors(`rule "a" when x > then end
rule "fine" when true then end
rule "b" salience high when true then end
rule "c" when true then insert(y); end
rule "d" when true then set(1, 2); end`);
  assert.deepEqual(ds.map((d) => [d.code, d.attributes!.rule, d.source!.line]), [
    [SrlCode.EXPRESSION, "a", 1],
    [SrlCode.PARSE, "b", 3],
    [SrlCode.RESERVED_ACTION, "c", 4],
    [SrlCode.ACTION_ARGUMENTS, "d", 5],
  ]);
});

Deno.test("two rules with one name are rejected at the second", () => {
  const ds = errors(`rule "x" when true then end\n\nrule "x" when false then end`);
  assert.equal(ds.length, 1);
  assert.deepEqual(where(ds[0]), [SrlCode.DUPLICATE_RULE, 3, 1]);
  assert.match(ds[0].message, /first at line 1/);
});

Deno.test("agenda: salience descending, declaration order breaking ties", () => {
  const rs = ok(`
    rule "low" salience -1 when true then end
    rule "first-zero" when true then end
    rule "high" salience 5 when true then end
    rule "second-zero" salience 0 when true then end
    rule "also-high" salience 5 when true then end`);
  assert.deepEqual(rs.rules.map((r) => r.name), [
    "low",
    "first-zero",
    "high",
    "second-zero",
    "also-high",
  ]);
  assert.deepEqual(rs.agenda.map((r) => r.name), [
    "high",
    "also-high",
    "first-zero",
    "second-zero",
    "low",
  ]);
});

Deno.test("readsClock tells whether any expression calls now() or today()", () => {
  assert.equal(ok(`rule "a" when true then end`).readsClock, false);
  assert.equal(ok(`rule "a" when today() > date("2020-01-01") then end`).readsClock, true);
  assert.equal(ok(`rule "a" when true then set(at, now()); end`).readsClock, true);
});

Deno.test("names with spaces are read as one name when declared", () => {
  const rs = ok(`rule "a" when net amount > 0 then end`, ["net amount"]);
  assert.equal(rs.rules[0].condition.compiled.paths.join(), "net amount");
});

Deno.test("without a uri the diagnostics say <input>", () => {
  const r = parseRuleset(`rule`);
  assert.equal(r.diagnostics![0].source!.uri, "<input>");
});
