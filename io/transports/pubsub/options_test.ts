import assert from "node:assert/strict";
import type { BoundChannel, TransportContext } from "../../../engine/core/transport.ts";
import { readPubSubOptions } from "./options.ts";
import { parseDestination } from "./sink.ts";
import { openClient, outboundAttributes } from "./_client.ts";

function bound(options: Record<string, unknown>): BoundChannel {
  return {
    tenant: "t",
    deploymentId: "d",
    ackMode: "on-persist",
    declaration: { name: "orders", transport: "pubsub", options },
  };
}

Deno.test("pubsub options: defaults follow the channel", () => {
  const { options, problems } = readPubSubOptions(bound({}));
  assert.deepEqual(problems, []);
  assert.equal(options.topic, "orders");
  assert.equal(options.subscription, "orders");
  assert.equal(options.deadLetterTopic, "orders-dlq");
  assert.equal(options.ackDeadlineSeconds, 60);
  assert.equal(options.maxMessages, 100);
  assert.equal(options.maxDeliveries, 5);
  assert.equal(options.idempotencyAttribute, "");
  assert.equal(options.declare, true);
  assert.equal(options.ordering, false);
  assert.equal(options.project, undefined);
});

Deno.test("pubsub options: every wrong key is named, a literal key refused", () => {
  const { problems } = readPubSubOptions(bound({
    credentials: '{"private_key": "x"}',
    "ack-deadline": "PT5S",
    "max-deliveries": 0,
    subscription: "1bad",
    ordering: "yes",
    queue: "x",
  }));
  assert.ok(problems.every((p) => p.code === "SUTRA.BROKER.OPTIONS_INVALID"));
  const named = problems.map((p) => p.attributes?.option).sort();
  assert.deepEqual(named, [
    "ack-deadline",
    "credentials",
    "dead-letter-topic",
    "max-deliveries",
    "ordering",
    "queue",
    "subscription",
  ]);
});

Deno.test("pubsub destinations: a topic id, optionally the channel whose connection it uses", () => {
  assert.deepEqual(parseDestination("pubsub://order-events"), { topic: "order-events" });
  assert.deepEqual(parseDestination("pubsub://order-events?channel=orders%2Fin"), {
    topic: "order-events",
    channel: "orders/in",
  });
  assert.equal(parseDestination("pubsub://a"), undefined);
  assert.equal(parseDestination("pubsub://projects/p/topics/t"), undefined);
  assert.equal(parseDestination("rabbitmq://x/y"), undefined);
  assert.equal(parseDestination("pubsub://topic?channel=%zz"), undefined);
});

Deno.test("pubsub outbound: the ordering-key header is taken out of the attributes", () => {
  assert.deepEqual(outboundAttributes({ "Pubsub-Ordering-Key": "k1", "ce-id": "e", "X-A": "1" }), {
    attributes: { "ce-id": "e", "x-a": "1" },
    orderingKey: "k1",
  });
  assert.deepEqual(outboundAttributes({ "pubsub-ordering-key": "" }), { attributes: {} });
});

Deno.test("pubsub client: a credentials reference that is not a JSON key fails without quoting it", async () => {
  const context = {
    resolveSecret: (reference: string) =>
      Promise.resolve(reference === "secret:sa" ? "not-json-s3cr3t" : reference),
  } as unknown as TransportContext;
  await assert.rejects(
    openClient(context, { project: "p", endpoint: "127.0.0.1:1", credentials: "secret:sa" }),
    (error: Error) => {
      assert.match(error.message, /does not resolve to a JSON service-account key/);
      assert.ok(!error.message.includes("s3cr3t"));
      return true;
    },
  );
});

Deno.test("pubsub options: consume: false makes a send-only channel", () => {
  assert.equal(readPubSubOptions(bound({})).options.consume, true);
  const { options, problems } = readPubSubOptions(bound({ consume: false }));
  assert.deepEqual(problems, []);
  assert.equal(options.consume, false);
});
