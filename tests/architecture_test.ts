import assert from "node:assert/strict";
import { checkArchitecture, domainTerms, formatViolation } from "./support/architecture.ts";

const root = new URL("..", import.meta.url).pathname.replace(/\/$/, "");
const fixture = new URL("./fixtures/architecture/bad_tree", import.meta.url).pathname;

Deno.test("the project tree follows DESIGN.md's dependency rules and domain denylist", async () => {
  const violations = await checkArchitecture(root);
  assert.deepEqual(violations.map(formatViolation), []);
});

Deno.test("a lang/ file importing engine/ is rejected with file and line", async () => {
  const violations = await checkArchitecture(fixture);
  const leak = violations.filter((v) => v.file === "lang/feel/leak.ts");
  assert.equal(leak.length, 1);
  assert.equal(leak[0].line, 3);
  assert.equal(leak[0].rule, "lang-independent");
  assert.match(formatViolation(leak[0]), /^lang\/feel\/leak\.ts:3: \[lang-independent\]/);
});

Deno.test("lang/feel importing another lang/ module is rejected", async () => {
  const violations = await checkArchitecture(fixture);
  assert.deepEqual(
    violations.filter((v) => v.file === "lang/feel/sibling.ts").map((v) => [v.line, v.rule]),
    [[1, "feel-standalone"]],
  );
});

Deno.test("engine/ naming io/ and domain terms in literals is rejected, comments are not", async () => {
  const violations = await checkArchitecture(fixture);
  assert.deepEqual(
    violations.filter((v) => v.file === "engine/core/concrete.ts").map((v) => [v.line, v.rule]),
    [[2, "engine-spi-only"], [4, "domain-neutral"]],
  );
});

Deno.test("the executor may not perform I/O itself", async () => {
  const violations = await checkArchitecture(fixture);
  assert.deepEqual(
    violations.filter((v) => v.file === "engine/executor/step.ts").map((v) => [v.line, v.rule]),
    [[1, "executor-no-io"], [4, "executor-no-io"]],
  );
});

Deno.test("domain terms match whole words and numbered message names only", () => {
  assert.deepEqual(domainTerms("parsePacs008Message"), ["pacs"]);
  assert.deepEqual(domainTerms("camt_053 and X12"), ["camt", "x12"]);
  assert.deepEqual(domainTerms("swiftly impacts pacsimile"), []);
});
