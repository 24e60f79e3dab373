import assert from "node:assert/strict";
import { FeelContext, feelNumber, type FeelValue, formatFeel } from "../feel/mod.ts";
import { javaExternals, javaMapping, javaMethod } from "./java.ts";

function call(cls: string, signature: string, ...args: FeelValue[]) {
  const warnings: string[] = [];
  const fn = javaMethod(cls, signature);
  assert.ok(fn !== undefined, `${cls}.${signature} should be mapped`);
  return { value: formatFeel(fn(args, { warn: (m) => warnings.push(m) })), warnings };
}

const n = (x: string) => feelNumber(x)!;

Deno.test("Math methods map to exact equivalents, whatever the spacing of the signature", () => {
  assert.equal(call("java.lang.Math", "max(double,double)", n("1.5"), n("2")).value, "2");
  assert.equal(call("java.lang.Math", "max(int, int)", n("7"), n("3")).value, "7");
  assert.equal(call("java.lang.Math", "abs(long)", n("-9")).value, "9");
  assert.equal(call("java.lang.Math", "floor(double)", n("2.7")).value, "2");
  assert.equal(call("java.lang.Math", "cos(double)", n("0")).value, "1");
});

Deno.test("Java argument rules: ints must be integers in range, chars one character", () => {
  const r = call("java.lang.Math", "max(int, int)", n("1.5"), n("2"));
  assert.equal(r.value, "null");
  assert.match(r.warnings[0], /argument 1 \(number\) is not a Java int/);
  assert.equal(call("java.lang.String", "valueOf(char)", "a").value, '"a"');
  assert.equal(call("java.lang.String", "valueOf(char)", "ab").value, "null");
  assert.equal(call("java.lang.Byte", "valueOf(byte)", n("300")).value, "null");
});

Deno.test("parsing methods follow Java: integers only for Integer, floats round like Java floats", () => {
  assert.equal(call("java.lang.Integer", "valueOf(java.lang.String)", "42").value, "42");
  assert.equal(call("java.lang.Integer", "valueOf(java.lang.String)", "4.2").value, "null");
  assert.equal(call("java.lang.Double", "valueOf(java.lang.String)", "1234.56").value, "1234.56");
  assert.equal(call("java.lang.Float", "valueOf(java.lang.String)", "1234.56").value, "1234.56");
  assert.equal(call("java.lang.Math", "max(float, float)", n("0.1"), n("0")).value, "0.1");
});

Deno.test("String.format takes the rest of the arguments as its varargs", () => {
  const r = call(
    "java.lang.String",
    "format(java.lang.String, [Ljava.lang.Object;)",
    "%s %s",
    "foo",
    "bar",
  );
  assert.equal(r.value, '"foo bar"');
  assert.equal(
    call("java.lang.String", "format(java.lang.String, [Ljava.lang.Object;)", "%d items", n("3"))
      .value,
    '"3 items"',
  );
});

Deno.test("unknown classes and methods are not mapped", () => {
  assert.equal(javaMethod("java.lang.Math", "foo(double)"), undefined);
  assert.equal(javaMethod("java.lang.Foo", "valueOf(double)"), undefined);
  assert.equal(javaMethod("java.lang.Math", "max(java.lang.String, java.lang.String)"), undefined);
});

Deno.test("mappings are read from FEEL's {java: {…}} form and from a boxed function's context", () => {
  const pair = new FeelContext(
    new Map<string, FeelValue>([["class", "java.lang.Math"], ["method signature", "abs(double)"]]),
  );
  assert.deepEqual(javaMapping(pair), { cls: "java.lang.Math", signature: "abs(double)" });
  assert.deepEqual(javaMapping(new FeelContext(new Map([["java", pair]]))), javaMapping(pair));
  assert.equal(javaMapping("java.lang.Math"), undefined);
});

Deno.test("FEEL's external functions run through the resolver; unmapped ones warn", () => {
  const pair = new FeelContext(
    new Map<string, FeelValue>([["class", "java.lang.Math"], ["method signature", "nope(double)"]]),
  );
  const body = javaExternals(new FeelContext(new Map([["java", pair]])));
  const warnings: string[] = [];
  assert.equal(body!([n("1")], { warn: (m) => warnings.push(m) }), null);
  assert.deepEqual(warnings, ["the Java method java.lang.Math.nope(double) is not mapped"]);
  assert.equal(javaExternals(new FeelContext(new Map([["pmml", pair]]))), undefined);
});
