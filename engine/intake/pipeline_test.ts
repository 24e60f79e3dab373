import assert from "node:assert/strict";
import { ManualClock } from "../core/clock.ts";
import { decoded, fatal, issue } from "../core/codec.ts";
import { MASK, type Redactor } from "../core/redactor.ts";
import { Registry } from "../core/registry.ts";
import { admitInbound, type Inbound, type IntakeSource, screenInbound } from "./pipeline.ts";
import { compileValidatorChain, EMPTY_CHAIN } from "./validator_chain.ts";
import { complex, jsonStub, packageFiles, stubCodec } from "./_testing.ts";
import "./mod.ts";

const body = (value: unknown) => new TextEncoder().encode(JSON.stringify(value));
const clock = new ManualClock("2026-03-01T10:00:00Z");

function inbound(value: unknown): Inbound {
  return { channel: "orders", body: body(value), contentType: "application/json", headers: {} };
}

Deno.test("the payload cap runs before the codec; a channel's cap overrides the engine's", async () => {
  let decodes = 0;
  const counting = stubCodec((b) => {
    decodes++;
    return decoded(b.length);
  });
  const message = { channel: "orders", body: new Uint8Array(100) };
  const refused = await admitInbound(message, { channel: { codec: counting }, capBytes: 99 });
  assert.ok(!refused.admitted);
  assert.deepEqual(refused.diagnostics.map((d) => [d.code, d.attributes]), [
    ["SUTRA.INBOUND.PAYLOAD_TOO_LARGE", { channel: "orders", size: 100, cap: 99 }],
  ]);
  assert.match(refused.diagnostics[0].message, /sutra\.inbound\.payload-cap-bytes/);
  assert.equal(decodes, 0);
  const raised = await admitInbound(message, {
    channel: { codec: counting, payloadCapBytes: 100 },
    capBytes: 10,
  });
  assert.ok(raised.admitted);
  const lowered = await admitInbound(message, {
    channel: { codec: counting, payloadCapBytes: 50 },
    capBytes: 1000,
  });
  assert.ok(!lowered.admitted);
  assert.match(lowered.diagnostics[0].message, /channel's payload-cap-bytes/);
  assert.equal(decodes, 1);
});

Deno.test("a FATAL decode is refused with every issue as a diagnostic", async () => {
  const broken = stubCodec(() =>
    fatal([issue("SUTRA.PARSE.JSON.MALFORMED", "bad", { line: 2, column: 3 })])
  );
  const r = await admitInbound(inbound({}), { channel: { codec: broken }, capBytes: 1e6 });
  assert.ok(!r.admitted);
  assert.deepEqual(r.diagnostics.map((d) => [d.code, d.attributes]), [
    ["SUTRA.PARSE.JSON.MALFORMED", { channel: "orders", path: "", line: 2, column: 3 }],
  ]);
  const throwing = stubCodec(() => {
    throw new Error("bug");
  });
  const crashed = await admitInbound(inbound({}), { channel: { codec: throwing }, capBytes: 1e6 });
  assert.ok(!crashed.admitted);
  assert.equal(crashed.diagnostics[0].code, "SUTRA.PARSE.CODEC.FAILED");
});

const SRL = `rule "positive"
when payload.amount <= 0
then report("SUTRA.VALIDATE.AMOUNT", "payload.amount", "must be positive"); end`;

const amountChain = compileValidatorChain([complex("amount.srl")], {
  files: packageFiles({ "rules/amount.srl": SRL }),
  variable: "payload",
  uri: "p.bpmn",
}).chain!;

function payloadSource(mode?: "route" | "reject" | "error", errorCode?: string): IntakeSource {
  return {
    variable: "payload",
    chain: amountChain,
    redactors: [],
    ...(mode === undefined ? {} : { onValidation: { mode, errorCode } }),
  };
}

async function admitted(value: unknown, codec = jsonStub) {
  const a = await admitInbound(inbound(value), { channel: { codec }, capBytes: 1e6 });
  assert.ok(a.admitted);
  return a;
}

Deno.test("a clean message is accepted with the payload and an OK summary", async () => {
  const v = await screenInbound(await admitted({ amount: 5 }), {
    source: payloadSource("reject"),
    clock,
  });
  assert.equal(v.kind, "accept");
  assert.deepEqual(v.variables.payload, { amount: 5 });
  assert.equal(v.validation.outcome, "OK");
  assert.equal(v.variables.validation, v.validation);
});

Deno.test("route mode hands soft errors to the process as validation variables", async () => {
  const soft = stubCodec(() =>
    decoded({ amount: -1 }, [
      issue("SUTRA.VALIDATE.XSD.VIOLATION", "schema says no", { path: "/x" }),
    ], "Order")
  );
  for (const mode of ["route", undefined] as const) {
    const v = await screenInbound(await admitted(null, soft), {
      source: payloadSource(mode),
      clock,
    });
    assert.equal(v.kind, "accept");
    assert.deepEqual(v.variables.payload, { amount: -1 });
    assert.equal(v.validation.outcome, "SOFT_ERRORS");
    assert.equal(v.validation.tier, "structural");
    assert.equal(v.validation.firstReasonCode, "SUTRA.VALIDATE.XSD.VIOLATION");
    assert.deepEqual(v.validation.issues.map((i) => i.code), [
      "SUTRA.VALIDATE.XSD.VIOLATION",
      "SUTRA.VALIDATE.AMOUNT",
    ]);
  }
});

Deno.test("reject mode refuses the message with every issue; error mode raises the error code", async () => {
  const rejected = await screenInbound(await admitted({ amount: -1 }), {
    source: payloadSource("reject"),
    clock,
  });
  assert.equal(rejected.kind, "reject");
  assert.ok(rejected.kind === "reject");
  assert.deepEqual(rejected.diagnostics.map((d) => d.code), [
    "SUTRA.INBOUND.VALIDATION_REJECTED",
    "SUTRA.VALIDATE.AMOUNT",
  ]);
  assert.deepEqual(rejected.diagnostics[0].attributes, {
    channel: "orders",
    messageType: "",
    issues: 1,
    firstReasonCode: "SUTRA.VALIDATE.AMOUNT",
  });
  assert.deepEqual(rejected.diagnostics[1].attributes, {
    channel: "orders",
    path: "/amount",
    value: -1,
  });
  const raised = await screenInbound(await admitted({ amount: -1 }), {
    source: payloadSource("error", "T505"),
    clock,
  });
  assert.ok(raised.kind === "error");
  assert.equal(raised.errorCode, "T505");
  const defaulted = await screenInbound(await admitted({ amount: -1 }), {
    source: payloadSource("error"),
    clock,
  });
  assert.ok(defaulted.kind === "error");
  assert.equal(defaulted.errorCode, "SUTRA.VALIDATE.AMOUNT");
});

Deno.test("reject mode passes a package's own reason codes through as written", async () => {
  const chain = compileValidatorChain([complex("amount.srl")], {
    files: packageFiles({
      "rules/amount.srl": SRL.replace('"SUTRA.VALIDATE.AMOUNT"', '"ORDER-17"'),
    }),
    variable: "payload",
    uri: "p.bpmn",
  }).chain!;
  const rejected = await screenInbound(await admitted({ amount: -1 }), {
    source: { ...payloadSource("reject"), chain },
    clock,
  });
  assert.ok(rejected.kind === "reject");
  assert.deepEqual(rejected.diagnostics.map((d) => d.code), [
    "SUTRA.INBOUND.VALIDATION_REJECTED",
    "ORDER-17",
  ]);
});

Deno.test("the observed copy is redacted; a failing redactor masks it all", async () => {
  const redactors = new Registry<Redactor>("redactor");
  redactors.register({ name: "cards", locate: () => [{ path: "/card", reason: "pan" }] });
  redactors.register({
    name: "broken",
    locate: () => {
      throw new Error("x");
    },
  });
  const a = await admitted({ amount: 1, card: "4111" });
  const masked = await screenInbound(a, {
    source: { ...payloadSource(), redactors: ["cards"], dataClass: "pci" },
    clock,
    redactors,
  });
  assert.ok(masked.kind === "accept");
  assert.deepEqual(masked.observed.value, { amount: 1, card: MASK });
  assert.deepEqual(masked.variables.payload, { amount: 1, card: "4111" });
  const over = await screenInbound(a, {
    source: { ...payloadSource(), redactors: ["cards", "broken"] },
    clock,
    redactors,
  });
  assert.ok(over.kind === "accept");
  assert.equal(over.observed.value, MASK);
  assert.equal(over.observed.diagnostics[0].code, "SUTRA.REDACT.FAILED");
});

Deno.test("the payload is bound under the source's variable name", async () => {
  const v = await screenInbound(await admitted({ amount: 1 }), {
    source: { variable: "order", chain: EMPTY_CHAIN, redactors: [] },
    clock,
  });
  assert.ok(v.kind === "accept");
  assert.deepEqual(Object.keys(v.variables), ["order", "validation"]);
});
