import assert from "node:assert/strict";
import {
  type Codec,
  codecUrn,
  decoded,
  type DecodeResult,
  decodeSafely,
  fatal,
  issue,
  outcomeOf,
} from "./codec.ts";

function codecReturning(decode: () => Promise<DecodeResult>): Codec {
  return {
    name: codecUrn("test"),
    contentTypes: [],
    decode,
    messageTypes: () => [],
    shapeOf: () => undefined,
    encode: () => Promise.resolve({ ok: true, bytes: new Uint8Array(), contentType: "x/y" }),
  };
}

const bytes = new Uint8Array([1, 2, 3]);

Deno.test("the outcome follows the issues: only an ERROR makes soft errors", () => {
  assert.equal(outcomeOf([]), "OK");
  assert.equal(outcomeOf([issue("SUTRA.PARSE.YAML.WARNING", "w", { severity: "WARNING" })]), "OK");
  assert.equal(outcomeOf([issue("SUTRA.VALIDATE.XSD.VIOLATION", "e")]), "SOFT_ERRORS");
  const d = decoded({ a: 1 }, [issue("SUTRA.VALIDATE.XSD.VIOLATION", "e", { path: "/a" })], "T");
  assert.deepEqual(d, {
    outcome: "SOFT_ERRORS",
    messageType: "T",
    payload: { a: 1 },
    issues: [{ code: "SUTRA.VALIDATE.XSD.VIOLATION", severity: "ERROR", path: "/a", message: "e" }],
  });
});

Deno.test("issues keep only the slots that were given", () => {
  assert.deepEqual(issue("SUTRA.PARSE.JSON.MALFORMED", "m", { line: 2, column: 5, value: null }), {
    code: "SUTRA.PARSE.JSON.MALFORMED",
    severity: "ERROR",
    path: "",
    message: "m",
    value: null,
    line: 2,
    column: 5,
  });
});

Deno.test("a codec that throws or rejects is a FATAL decode naming it", async () => {
  const throwing = codecReturning(() => {
    throw new Error("boom");
  });
  const r = await decodeSafely(throwing, bytes);
  assert.equal(r.outcome, "FATAL");
  assert.equal(r.issues[0].code, "SUTRA.PARSE.CODEC.FAILED");
  assert.match(r.issues[0].message, /urn:sutra:codec:test failed: boom/);
  const rejecting = codecReturning(() => Promise.reject("nope"));
  assert.match((await decodeSafely(rejecting, bytes)).issues[0].message, /nope/);
});

Deno.test("a result breaking the three-outcome contract is FATAL", async () => {
  const cases: [DecodeResult, RegExp][] = [
    [{ outcome: "OK", payload: 1, issues: [issue("SUTRA.X.Y", "e")] }, /OK with ERROR issues/],
    [{ outcome: "SOFT_ERRORS", payload: 1, issues: [] }, /SOFT_ERRORS without an ERROR/],
    [{ outcome: "FATAL", issues: [] }, /FATAL without an ERROR/],
    [{ outcome: "MAYBE", payload: 1, issues: [] } as unknown as DecodeResult, /not an outcome/],
    [undefined as unknown as DecodeResult, /no issue list/],
  ];
  for (const [result, reason] of cases) {
    const r = await decodeSafely(codecReturning(() => Promise.resolve(result)), bytes);
    assert.equal(r.outcome, "FATAL");
    assert.match(r.issues[0].message, reason);
  }
});

Deno.test("well-behaved results pass through unchanged", async () => {
  const ok = decoded("x");
  assert.equal(await decodeSafely(codecReturning(() => Promise.resolve(ok)), bytes), ok);
  const bad = fatal(issue("SUTRA.PARSE.JSON.MALFORMED", "m"), "T");
  assert.deepEqual(await decodeSafely(codecReturning(() => Promise.resolve(bad)), bytes), {
    outcome: "FATAL",
    messageType: "T",
    issues: [{ code: "SUTRA.PARSE.JSON.MALFORMED", severity: "ERROR", path: "", message: "m" }],
  });
});
