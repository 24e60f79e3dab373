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
