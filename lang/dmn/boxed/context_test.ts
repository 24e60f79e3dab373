import assert from "node:assert/strict";
import { loadModel } from "../models.ts";
import { decision, dmn, literal, run, value } from "../_testing.ts";

const entry = (name: string | undefined, body: string, typeRef?: string) =>
  `<contextEntry>${
    name === undefined
      ? ""
      : `<variable name="${name}"${typeRef === undefined ? "" : ` typeRef="${typeRef}"`}/>`
  }${body}</contextEntry>`;

Deno.test("a context's entries see the ones before them; without a result entry it is a context", () => {
  const xml = dmn(decision(
    "d",
    `<context>${entry("gross", literal("100"))}${entry("tax", literal("gross * 0.2"))}${
      entry("net", literal("gross - tax"))
    }</context>`,
  ));
  assert.equal(value(xml, "d"), "{gross: 100, tax: 20, net: 80}");
});

Deno.test("a final entry without a variable is the context's value", () => {
  const xml = dmn(decision(
    "d",
    `<context>${entry("a", literal("2"))}${entry(undefined, literal("a * 21"))}</context>`,
  ));
  assert.equal(value(xml, "d"), "42");
});

Deno.test("entry values convert to the entry's type", () => {
  const xml = dmn(decision(
    "d",
    `<context>${entry("n", literal("[5]"), "number")}${
      entry("s", literal("5"), "string")
    }</context>`,
  ));
  const r = run(xml, "d");
  assert.equal(value(xml, "d"), "{n: 5, s: null}");
  assert.match(r.warnings.join("\n"), /context entry 's'/);
});

Deno.test("a function entry can call itself", () => {
  const xml = dmn(decision(
    "d",
    `<context>${
      entry(
        "fact",
        `<functionDefinition><formalParameter name="n" typeRef="number"/>${
          literal("if n <= 1 then 1 else n * fact(n - 1)")
        }</functionDefinition>`,
      )
    }${entry(undefined, literal("fact(5)"))}</context>`,
  ));
  assert.equal(value(xml, "d"), "120");
});

Deno.test("duplicate entry names and a result entry before the end are reported", () => {
  const xml = dmn(decision(
    "d",
    `<context>${entry("a", literal("1"))}${entry(undefined, literal("2"))}${
      entry("a", literal("3"))
    }</context>`,
  ));
  assert.deepEqual(loadModel(xml).diagnostics.map((d) => d.message), [
    "only the last context entry may lack a variable",
    "context entry 'a' appears twice",
  ]);
});
