import assert from "node:assert/strict";
import { diagnostic } from "../../../engine/core/diagnostic.ts";
import { RedeliveryBudget } from "./redelivery.ts";
import { Backoff } from "./backoff.ts";
import { inboundHeaderName, outboundHeaderName } from "./cloudevents.ts";

Deno.test("the broker's own delivery count wins over the in-process one", () => {
  const budget = new RedeliveryBudget({ maxDeliveries: 3 });
  assert.equal(budget.count({ messageId: "m", priorDeliveries: 2 }), 3);
  assert.ok(budget.spent(3));
});

Deno.test("without a broker count, deliveries are counted per message id", () => {
  const budget = new RedeliveryBudget({ maxDeliveries: 3 });
  assert.equal(budget.count({ messageId: "m" }), 1);
  assert.equal(budget.count({ messageId: "m", redelivered: true }), 2);
  assert.ok(!budget.spent(2));
  assert.equal(budget.count({ messageId: "m", redelivered: true }), 3);
  assert.ok(budget.spent(3));
  budget.forget("m");
  // A restart knows only the broker's flag.
  assert.equal(budget.count({ messageId: "m", redelivered: true }), 2);
  const cause = budget.exhausted(3, diagnostic("SUTRA.A.B", "x"));
  assert.equal(cause.code, "SUTRA.BROKER.REDELIVERY_EXHAUSTED");
});

Deno.test("the in-process count forgets the oldest ids past its capacity", () => {
  const budget = new RedeliveryBudget({ maxDeliveries: 5, capacity: 2 });
  budget.count({ messageId: "a" });
  budget.count({ messageId: "b" });
  budget.count({ messageId: "c" });
  assert.equal(budget.count({ messageId: "a" }), 1);
});

Deno.test("backoff grows, is capped, jittered into [base/2, base] and resets", () => {
  const backoff = new Backoff({ initialMs: 100, maxMs: 400 });
  const waits = Array.from({ length: 6 }, () => backoff.next());
  const bases = [100, 200, 400, 400, 400, 400];
  waits.forEach((w, i) => assert.ok(w >= bases[i] / 2 && w <= bases[i], `${i}: ${w}`));
  backoff.reset();
  assert.ok(backoff.next() <= 100);
});

Deno.test("CloudEvents attribute spellings map to ce-* and back", () => {
  assert.equal(inboundHeaderName("cloudEvents_id"), "ce-id");
  assert.equal(inboundHeaderName("cloudEvents:type"), "ce-type");
  assert.equal(inboundHeaderName("ce_source"), "ce-source");
  assert.equal(inboundHeaderName("X-Trace"), "x-trace");
  assert.equal(outboundHeaderName("ce-id"), "cloudEvents_id");
  assert.equal(outboundHeaderName("x-trace"), "x-trace");
});
