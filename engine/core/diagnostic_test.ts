import assert from "node:assert/strict";
import { diagnostic, DiagnosticError, formatDiagnostic, hasErrors } from "./diagnostic.ts";

Deno.test("diagnostics carry code, severity, source and attributes", () => {
  const d = diagnostic("SUTRA.CONFIG.PROPERTY.INVALID", "bad port", {
    source: { uri: "sutra.properties", line: 3, column: 1 },
    attributes: { key: "sutra.http.port" },
  });
  assert.equal(d.severity, "ERROR");
  assert.equal(
    formatDiagnostic(d),
    'sutra.properties:3:1: ERROR SUTRA.CONFIG.PROPERTY.INVALID: bad port key="sutra.http.port"',
  );
  assert.ok(hasErrors([d]));
  assert.ok(!hasErrors([diagnostic("SUTRA.X.Y", "w", { severity: "WARNING" })]));
});

Deno.test("codes must be shaped SUTRA.<CATEGORY>.<REASON>", () => {
  assert.throws(() => diagnostic("SUTRA.ONLY", "x"));
  assert.throws(() => diagnostic("sutra.x.y", "x"));
});

Deno.test("DiagnosticError carries every diagnostic", () => {
  const e = new DiagnosticError([diagnostic("SUTRA.A.B", "one"), diagnostic("SUTRA.A.C", "two")]);
  assert.equal(e.diagnostics.length, 2);
  assert.match(e.message, /one\n.*two/);
});

Deno.test("a hostile value is quoted cut down and without its control characters", () => {
  const huge = "x".repeat(5_000_000);
  const d = diagnostic(
    "SUTRA.INPUT.ALIAS.TOO_LONG",
    `label '${huge}' is not allowed\u0000\u001b[31m`,
    {
      source: { uri: `pkg/\u001b]0;owned\u0007${huge}.yaml`, line: 3 },
      attributes: { label: huge, limit: 63 },
    },
  );
  assert.ok(d.message.length < 4_100, `message of ${d.message.length} characters`);
  assert.match(d.message, /^label 'x+… \(\d+ more characters\)$/);
  assert.ok((d.attributes!.label as string).length < 1_100);
  assert.equal(d.attributes!.limit, 63);
  assert.match(d.source!.uri, /^pkg\/\\u001b\]0;owned\\u0007x+… \(\d+ more characters\)$/);
  assert.equal(d.source!.line, 3);
  const line = formatDiagnostic(
    diagnostic("SUTRA.INPUT.ALIAS.TOO_LONG", "bad\u0000value\u001b[2J\nsecond line\tend"),
  );
  assert.equal(
    line,
    "ERROR SUTRA.INPUT.ALIAS.TOO_LONG: bad\\u0000value\\u001b[2J\nsecond line\tend",
  );
});

Deno.test("a message is never cut inside a surrogate pair", () => {
  const d = diagnostic("SUTRA.INPUT.ALIAS.TOO_LONG", "a".repeat(3_999) + "😀".repeat(10));
  assert.ok(d.message.startsWith("a".repeat(3_999) + "…"), "the pair is left off whole");
});
