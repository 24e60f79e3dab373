import assert from "node:assert/strict";
import { decision, dmn, literal, run, value } from "../_testing.ts";

const iterator = (kind: "for" | "some" | "every", source: string, body: string) => {
  const role = kind === "for" ? "return" : "satisfies";
  return dmn(decision(
    "d",
    `<${kind} iteratorVariable="x"><in>${literal(source)}</in><${role}>${
      literal(body)
    }</${role}></${kind}>`,
  ));
};

Deno.test("for: the body's value for each item", () => {
  assert.equal(value(iterator("for", "[1, 2, 3]", "x * 2"), "d"), "[2, 4, 6]");
  assert.equal(value(iterator("for", "[]", "x * 2"), "d"), "[]");
});

Deno.test("for over a range runs over its integers, like FEEL's for", () => {
  assert.equal(value(iterator("for", "[1..4)", "x"), "d"), "[1, 2, 3]");
});

Deno.test("for over something that is neither a list nor a range is null with a warning", () => {
  const r = run(iterator("for", '"text"', "x"), "d");
  assert.equal(r.value, null);
  assert.match(r.warnings.join("\n"), /cannot iterate over string/);
});

Deno.test("some and every test each item", () => {
  assert.equal(value(iterator("some", "[1, 5]", "x > 3"), "d"), "true");
  assert.equal(value(iterator("some", "[1, 2]", "x > 3"), "d"), "false");
  assert.equal(value(iterator("every", "[4, 5]", "x > 3"), "d"), "true");
  assert.equal(value(iterator("every", "[1, 5]", "x > 3"), "d"), "false");
  assert.equal(value(iterator("some", "[]", "x > 3"), "d"), "false");
  assert.equal(value(iterator("every", "[]", "x > 3"), "d"), "true");
});

Deno.test("a non-boolean condition makes some/every null with a warning", () => {
  const r = run(iterator("every", "[1, 2]", "x"), "d");
  assert.equal(r.value, null);
  assert.match(r.warnings.join("\n"), /'every' needs boolean conditions, got number/);
});
