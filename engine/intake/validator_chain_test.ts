import assert from "node:assert/strict";
import { ManualClock } from "../core/clock.ts";
import { Registry } from "../core/registry.ts";
import { complexValidatorKinds, type ContentValidator } from "../core/validator.ts";
import { compileValidatorChain, runValidatorChain } from "./validator_chain.ts";
import { complex, packageFiles, simple } from "./_testing.ts";
import "./mod.ts";

const SRL = `rule "positive"
when payload.amount <= 0
then
  report("SUTRA.VALIDATE.AMOUNT", "payload.amount", "must be positive");
end
rule "named"
when not(payload.name instance of string)
then
  report("SUTRA.VALIDATE.NAME", "header.x", "no name");
end`;

const DMN =
  `<definitions xmlns="https://www.omg.org/spec/DMN/20230324/MODEL/" namespace="urn:t" name="t" id="t">
  <inputData id="p" name="payload"/>
  <inputData id="n" name="now"/>
  <decision id="late" name="late">
    <informationRequirement><requiredInput href="#p"/></informationRequirement>
    <informationRequirement><requiredInput href="#n"/></informationRequirement>
    <literalExpression><text>if now &gt; date and time("2026-01-01T00:00:00Z")
      then {code: "SUTRA.VALIDATE.LATE", path: "payload", message: "too late", severity: "WARNING", value: payload.amount}
      else null</text></literalExpression>
  </decision>
  <decision id="list" name="list">
    <literalExpression><text>["SUTRA.VALIDATE.A", null, {code: "SUTRA.VALIDATE.B", path: "payload.x"}]</text></literalExpression>
  </decision>
  <decision id="broken" name="broken"><literalExpression><text>42</text></literalExpression></decision>
</definitions>`;

const files = packageFiles({
  "rules/fields.srl": SRL,
  "rules/time.dmn": DMN,
  "elsewhere/other.srl": SRL,
});

const upper: ContentValidator = {
  name: "upper-case",
  check: (v) =>
    typeof v === "string" && v === v.toUpperCase()
      ? []
      : [{ code: "SUTRA.VALIDATE.NOT_UPPER", message: `${JSON.stringify(v)} is not upper case` }],
};
const throwing: ContentValidator = {
  name: "throwing",
  check: () => {
    throw new Error("lookup table missing");
  },
};
const contents = new Registry<ContentValidator>("content validator");
contents.register(upper);
contents.register(throwing);

function input(payload: unknown, at = "2026-06-01T00:00:00Z") {
  return { payload, variable: "payload", headers: { x: "1" }, clock: new ManualClock(at) };
}

Deno.test("a chain mixes .dmn, .srl and field validators and keeps declaration order", async () => {
  const built = compileValidatorChain(
    [
      simple("upper-case", "payload.code"),
      complex("time.dmn#late"),
      complex("fields.srl"),
      complex("elsewhere/other.srl"),
    ],
    { files, variable: "payload", uri: "bpmn/p.bpmn", contents },
  );
  assert.ok(built.chain, JSON.stringify(built.diagnostics));
  const issues = await runValidatorChain(built.chain, input({ amount: -1, code: "ab", name: 3 }));
  assert.deepEqual(issues.map((i) => [i.code, i.severity, i.path, i.value ?? null]), [
    ["SUTRA.VALIDATE.NOT_UPPER", "ERROR", "/code", "ab"],
    ["SUTRA.VALIDATE.LATE", "WARNING", "", -1],
    ["SUTRA.VALIDATE.AMOUNT", "ERROR", "/amount", -1],
    ["SUTRA.VALIDATE.NAME", "ERROR", "header.x", "1"],
    ["SUTRA.VALIDATE.AMOUNT", "ERROR", "/amount", -1],
    ["SUTRA.VALIDATE.NAME", "ERROR", "header.x", "1"],
  ]);
  const early = await runValidatorChain(
    built.chain,
    input({ amount: 5, code: "AB", name: "n" }, "2025-01-01T00:00:00Z"),
  );
  assert.deepEqual(early, []);
});

Deno.test("a .dmn validator returns lists and strings as issues; anything else fails it", async () => {
  const list = compileValidatorChain([complex("time.dmn#list")], {
    files,
    variable: "payload",
    uri: "p.bpmn",
  });
  assert.ok(list.chain);
  assert.deepEqual(
    (await runValidatorChain(list.chain, input({}))).map((i) => [i.code, i.path, i.message]),
    [["SUTRA.VALIDATE.A", "", "SUTRA.VALIDATE.A"], ["SUTRA.VALIDATE.B", "/x", "SUTRA.VALIDATE.B"]],
  );
  const broken = compileValidatorChain([complex("time.dmn#broken")], {
    files,
    variable: "payload",
    uri: "p.bpmn",
  });
  assert.ok(broken.chain);
  const [failed] = await runValidatorChain(broken.chain, input({}));
  assert.equal(failed.code, "SUTRA.VALIDATE.VALIDATOR_FAILED");
  assert.match(failed.message, /decision 'broken': it returned 42/);
});

Deno.test("a bare .dmn source runs every decision no other decision requires, in order", async () => {
  const all = compileValidatorChain([complex("time.dmn")], {
    files,
    variable: "payload",
    uri: "p.bpmn",
  });
  assert.ok(all.chain);
  // "broken" runs last: what was found before it stays, and its failure is reported.
  assert.deepEqual((await runValidatorChain(all.chain, input({ amount: 1 }))).map((i) => i.code), [
    "SUTRA.VALIDATE.LATE",
    "SUTRA.VALIDATE.A",
    "SUTRA.VALIDATE.B",
    "SUTRA.VALIDATE.VALIDATOR_FAILED",
  ]);
});

Deno.test("failing validators are issues in their place, never skipped", async () => {
  const srlFailing = packageFiles({
    "rules/bad.srl":
      `rule "r"\nwhen payload.amount > "x" + 1\nthen report("SUTRA.VALIDATE.X", "p", "m"); end`,
  });
  const built = compileValidatorChain(
    [
      complex("bad.srl"),
      simple("throwing", "payload.amount"),
      simple("upper-case", "payload.code"),
    ],
    { files: srlFailing, variable: "payload", uri: "p.bpmn", contents },
  );
  assert.ok(built.chain);
  const issues = await runValidatorChain(built.chain, input({ amount: 1, code: "x" }));
  assert.deepEqual(issues.map((i) => i.code), [
    "SUTRA.VALIDATE.VALIDATOR_FAILED",
    "SUTRA.VALIDATE.VALIDATOR_FAILED",
    "SUTRA.VALIDATE.NOT_UPPER",
  ]);
  assert.match(issues[1].message, /validator throwing could not run: lookup table missing/);
});

Deno.test("every unusable entry of a chain is a deploy-time diagnostic with its line", () => {
  const broken = compileValidatorChain(
    [
      complex("limits.xlsx", 3),
      complex("missing.srl", 4),
      simple("unknown-ref", "payload.x", 5),
      simple("upper-case", "payload.(", 6),
      complex("time.dmn#nope", 7),
    ],
    {
      files: packageFiles({ "rules/time.dmn": DMN }),
      variable: "payload",
      uri: "bpmn/p.bpmn",
      contents,
    },
  );
  assert.deepEqual(broken.diagnostics?.map((d) => [d.code, d.source?.line]), [
    ["SUTRA.CONFIG.VALIDATOR.KIND_UNKNOWN", 3],
    ["SUTRA.CONFIG.VALIDATOR.SOURCE_MISSING", 4],
    ["SUTRA.CONFIG.VALIDATOR.UNKNOWN", 5],
    ["SUTRA.CONFIG.VALIDATOR.PATH_INVALID", 6],
    ["SUTRA.CONFIG.VALIDATOR.DECISION_MISSING", undefined],
  ]);
  assert.match(broken.diagnostics![0].message, /linked kinds: \.dmn, \.srl/);
  const unparsable = compileValidatorChain([complex("x.srl")], {
    files: packageFiles({ "rules/x.srl": "rule without quotes" }),
    variable: "payload",
    uri: "p.bpmn",
  });
  assert.equal(unparsable.diagnostics?.[0].code, "SUTRA.SRL.PARSE");
  const notDmn = compileValidatorChain([complex("x.dmn")], {
    files: packageFiles({ "rules/x.dmn": "<nope/>" }),
    variable: "payload",
    uri: "p.bpmn",
  });
  assert.ok(notDmn.diagnostics && notDmn.diagnostics.length > 0);
});

Deno.test("the built-in kinds register once, on import of engine/intake", () => {
  assert.deepEqual(complexValidatorKinds.names(), [".dmn", ".srl"]);
});
