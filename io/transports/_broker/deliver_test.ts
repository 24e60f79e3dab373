import assert from "node:assert/strict";
import { createLogger } from "../../../engine/core/log.ts";
import { diagnostic } from "../../../engine/core/diagnostic.ts";
import type {
  AckMode,
  BoundChannel,
  DeliveryOutcome,
  InboundDelivery,
  TransportContext,
} from "../../../engine/core/transport.ts";
import { ABANDON, deliverForVerdict, unwrapStructured } from "./deliver.ts";

/** A context whose engine answers every delivery with `answer`, recording what it was given. */
function contextOf(
  answer: (delivery: InboundDelivery) => DeliveryOutcome,
  seen: InboundDelivery[] = [],
): TransportContext {
  return {
    channels: () => [],
    deliver: (delivery) => {
      seen.push(delivery);
      return Promise.resolve(answer(delivery));
    },
    http: { add: () => {} },
    logger: createLogger("test", { write: () => {} }),
    resolveSecret: (reference) => Promise.resolve(reference),
    payloadCapBytes: 1_024,
    ackHoldMs: 1_000,
  };
}

function channelOf(
  ackMode: AckMode,
  cloudeventsMode?: "binary" | "structured",
): BoundChannel {
  return {
    tenant: "t",
    deploymentId: "d",
    declaration: {
      name: "orders",
      transport: "test",
      bind: "test://orders",
      ...(cloudeventsMode ? { cloudeventsMode } : {}),
    },
    ackMode,
  };
}

const body = new TextEncoder().encode("{}");
const captured: DeliveryOutcome = { kind: "captured", receiptId: "r1" };
const settled: DeliveryOutcome = { kind: "settled", instances: [] };

Deno.test("deliverForVerdict: on-persist acks a captured delivery without a deferral", async () => {
  const seen: InboundDelivery[] = [];
  const verdict = await deliverForVerdict({
    context: contextOf(() => captured, seen),
    channel: channelOf("on-persist"),
    signal: new AbortController().signal,
    delivery: (deferral) => ({ channel: "orders", body, headers: {}, deferral }),
  });
  assert.deepEqual(verdict, { action: "ack" });
  assert.equal(seen[0].deferral, undefined);
});

Deno.test("deliverForVerdict: a refused view is dead-lettered and never delivered", async () => {
  const seen: InboundDelivery[] = [];
  const refusal = diagnostic("SUTRA.TEST.REFUSED", "no");
  const verdict = await deliverForVerdict({
    context: contextOf(() => captured, seen),
    channel: channelOf("on-persist"),
    signal: new AbortController().signal,
    delivery: () => refusal,
  });
  assert.deepEqual(verdict, { action: "dead-letter", diagnostic: refusal });
  assert.equal(seen.length, 0);
});

Deno.test("deliverForVerdict: on-complete waits for the instance's ack verdict", async () => {
  const failed = diagnostic("SUTRA.TEST.FAILED", "instance failed");
  const verdict = await deliverForVerdict({
    context: contextOf((delivery) => {
      setTimeout(() =>
        delivery.deferral!.settle({ kind: "nack", permanent: true, diagnostic: failed })
      );
      return settled;
    }),
    channel: channelOf("on-complete"),
    signal: new AbortController().signal,
    delivery: (deferral) => ({ channel: "orders", body, headers: {}, deferral }),
  });
  assert.deepEqual(verdict, { action: "dead-letter", diagnostic: failed });
});

Deno.test("deliverForVerdict: stopping while the engine holds the message abandons it", async () => {
  const stop = new AbortController();
  const verdict = deliverForVerdict({
    context: contextOf(() => {
      setTimeout(() => stop.abort());
      return settled;
    }),
    channel: channelOf("on-complete"),
    signal: stop.signal,
    delivery: (deferral) => ({ channel: "orders", body, headers: {}, deferral }),
  });
  assert.equal(await verdict, ABANDON);
});

Deno.test("unwrapStructured: binary mode leaves the delivery as it is", () => {
  const delivery: InboundDelivery = { channel: "orders", body, headers: {} };
  assert.equal(unwrapStructured(delivery, channelOf("on-persist")), delivery);
});

Deno.test("unwrapStructured: a structured event is unwrapped, keeping deferral and reply address", () => {
  const event = {
    specversion: "1.0",
    id: "e1",
    source: "/shop",
    type: "order.placed",
    data: { n: 1 },
  };
  const deferral = { settle: () => {} };
  const replyTo = { destination: "test:///replies", headers: { "correlation-id": "c1" } };
  const view = unwrapStructured({
    channel: "orders",
    body: new TextEncoder().encode(JSON.stringify(event)),
    headers: {},
    contentType: "application/cloudevents+json",
    deferral,
    replyTo,
  }, channelOf("on-complete"));
  assert.ok(!("code" in view));
  assert.equal(view.deferral, deferral);
  assert.deepEqual(view.replyTo, replyTo);
  assert.deepEqual(JSON.parse(new TextDecoder().decode(view.body)), { n: 1 });
});

Deno.test("unwrapStructured: a structured channel refuses what is no CloudEvent", () => {
  const view = unwrapStructured(
    { channel: "orders", body: new TextEncoder().encode("not json"), headers: {} },
    channelOf("on-persist", "structured"),
  );
  assert.ok("code" in view);
});

function quotaRefusal(retryAfterSeconds: number): DeliveryOutcome {
  return {
    kind: "refused",
    refusal: "overloaded",
    diagnostics: [
      diagnostic("SUTRA.INBOUND.TENANT_RATE_LIMIT", "over", { attributes: { retryAfterSeconds } }),
    ],
  };
}

Deno.test("deliverForVerdict: a quota refusal is requeued once its wait is over", async () => {
  const verdict = await deliverForVerdict({
    context: contextOf(() => quotaRefusal(0)),
    channel: channelOf("on-persist"),
    signal: new AbortController().signal,
    delivery: () => ({ channel: "orders", body, headers: {} }),
  });
  assert.ok(verdict !== ABANDON && verdict.action === "requeue");
  assert.equal(verdict.diagnostic.code, "SUTRA.INBOUND.TENANT_RATE_LIMIT");
});

Deno.test("deliverForVerdict: a consumer stopping during a quota wait abandons the message", async () => {
  const stop = new AbortController();
  const verdict = deliverForVerdict({
    context: contextOf(() => {
      queueMicrotask(() => stop.abort());
      return quotaRefusal(60);
    }),
    channel: channelOf("on-persist"),
    signal: stop.signal,
    delivery: () => ({ channel: "orders", body, headers: {} }),
  });
  assert.equal(await verdict, ABANDON);
});
