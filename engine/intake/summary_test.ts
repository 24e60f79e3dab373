import assert from "node:assert/strict";
import { issue } from "../core/codec.ts";
import { summarizeValidation } from "./summary.ts";

Deno.test("no issues: OK with nothing to report", () => {
  assert.deepEqual(summarizeValidation([], []), {
    outcome: "OK",
    tier: null,
    firstReasonCode: null,
    firstIssue: null,
    issues: [],
  });
});

Deno.test("structural issues come first; the first ERROR gives the reason and the tier", () => {
  const s = summarizeValidation(
    [issue("SUTRA.PARSE.YAML.WARNING", "w", { severity: "WARNING" })],
    [
      issue("SUTRA.VALIDATE.FIRST", "one", { path: "/a", value: 3 }),
      issue("SUTRA.VALIDATE.SECOND", "two"),
    ],
  );
  assert.equal(s.outcome, "SOFT_ERRORS");
  assert.equal(s.tier, "content");
  assert.equal(s.firstReasonCode, "SUTRA.VALIDATE.FIRST");
  assert.deepEqual(s.firstIssue, {
    code: "SUTRA.VALIDATE.FIRST",
    severity: "ERROR",
    path: "/a",
    message: "one",
    value: 3,
  });
  assert.deepEqual(s.issues.map((i) => [i.code, i.value]), [
    ["SUTRA.PARSE.YAML.WARNING", null],
    ["SUTRA.VALIDATE.FIRST", 3],
    ["SUTRA.VALIDATE.SECOND", null],
  ]);
  const structural = summarizeValidation([issue("SUTRA.VALIDATE.XSD.VIOLATION", "x")], [
    issue("SUTRA.VALIDATE.FIRST", "one"),
  ]);
  assert.equal(structural.tier, "structural");
  assert.equal(structural.firstReasonCode, "SUTRA.VALIDATE.XSD.VIOLATION");
});

Deno.test("warnings alone leave the outcome OK but still name the first", () => {
  const s = summarizeValidation([], [
    issue("SUTRA.VALIDATE.NOTE", "n", { severity: "INFO" }),
    issue("SUTRA.VALIDATE.HEADS_UP", "h", { severity: "WARNING" }),
  ]);
  assert.equal(s.outcome, "OK");
  assert.equal(s.firstReasonCode, "SUTRA.VALIDATE.HEADS_UP");
  assert.ok(Object.isFrozen(s) && Object.isFrozen(s.issues) && Object.isFrozen(s.issues[0]));
});
