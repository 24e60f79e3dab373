import assert from "node:assert/strict";
import { diagnostic } from "../../../engine/core/diagnostic.ts";
import type { DeliveryOutcome, RefusalClass } from "../../../engine/core/transport.ts";
import { deadLetterHeaders, verdictOf, verdictOfAck } from "./verdict.ts";

function refusal(refusal: RefusalClass, code = "SUTRA.X.Y"): DeliveryOutcome {
  return { kind: "refused", refusal, diagnostics: [diagnostic(code, "why")] };
}

Deno.test("captured and settled outcomes are acknowledged", () => {
  assert.equal(verdictOf({ kind: "captured", receiptId: "r" }).action, "ack");
  assert.equal(verdictOf({ kind: "settled", instances: [] }).action, "ack");
});

Deno.test("transient refusals are requeued, poison is dead-lettered with its diagnostic", () => {
  for (const r of ["retry", "overloaded", "failed"] as const) {
    assert.equal(verdictOf(refusal(r)).action, "requeue", r);
  }
  for (const r of ["malformed", "too-large", "rejected", "conflict"] as const) {
    const v = verdictOf(refusal(r, "SUTRA.A.B"));
    assert.equal(v.action, "dead-letter", r);
    assert.equal(v.action === "dead-letter" && v.diagnostic.code, "SUTRA.A.B");
  }
});

Deno.test("not-found is transient only while the channel or instance may still appear", () => {
  assert.equal(
    verdictOf(refusal("not-found", "SUTRA.RUNTIME.RELAY.CORRELATION_NOT_FOUND")).action,
    "requeue",
  );
  assert.equal(verdictOf(refusal("not-found", "SUTRA.RESOLVE.CHANNEL.UNKNOWN")).action, "requeue");
  assert.equal(
    verdictOf(refusal("not-found", "SUTRA.RUNTIME.DISPATCH.NO_MATCH")).action,
    "dead-letter",
  );
});

Deno.test("a deferred nack is dead-lettered when permanent, requeued otherwise", () => {
  const d = diagnostic("SUTRA.ACK.DEFERRED_NACKED", "failed");
  assert.equal(verdictOfAck({ kind: "ack" }).action, "ack");
  assert.equal(
    verdictOfAck({ kind: "nack", permanent: true, diagnostic: d }).action,
    "dead-letter",
  );
  assert.equal(verdictOfAck({ kind: "nack", permanent: false, diagnostic: d }).action, "requeue");
});

Deno.test("dead-letter headers name the code on one bounded line", () => {
  const h = deadLetterHeaders(diagnostic("SUTRA.A.B", "two\nlines " + "x".repeat(2000)), "ch");
  assert.equal(h["sutra-diagnostic-code"], "SUTRA.A.B");
  assert.equal(h["sutra-diagnostic-channel"], "ch");
  assert.ok(!h["sutra-diagnostic-message"].includes("\n"));
  assert.equal(h["sutra-diagnostic-message"].length, 1000);
});
