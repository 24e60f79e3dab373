/**
 * The pubsub channel consumer on its own (tier 1): the real client against
 * the Pub/Sub test double, the engine replaced by a `deliver` that records
 * what it was handed. What a delivery looks like (CloudEvents binding,
 * idempotency key), ordering keys kept in order under concurrency, and a
 * stop that hands held messages back.
 */
import assert from "node:assert/strict";
import { createLogger } from "../../engine/core/mod.ts";
import type {
  AckMode,
  BoundChannel,
  DeliveryOutcome,
  InboundDelivery,
  TransportContext,
} from "../../engine/core/transport.ts";
import { PubSubConsumer } from "../../io/transports/pubsub/consumer.ts";
import { readPubSubOptions } from "../../io/transports/pubsub/options.ts";
import {
  externalEmulator,
  openPubSub,
  PubSubPeer,
  TEST_PROJECT,
  uniqueName,
} from "../support/pubsub_server/mod.ts";

type Deliver = (delivery: InboundDelivery) => Promise<DeliveryOutcome>;

/** A consumer of a fresh topic whose deliveries go to `deliver`; `run` gets the peer and topic. */
async function withConsumer(
  o: { ackMode?: AckMode; options?: Record<string, unknown>; deliver: Deliver },
  run: (
    peer: PubSubPeer,
    topic: string,
    subscription: string,
    stop: () => Promise<void>,
  ) => Promise<void>,
): Promise<void> {
  const target = await openPubSub();
  const peer = new PubSubPeer(target);
  const topic = uniqueName("c");
  const channel: BoundChannel = {
    tenant: "default",
    deploymentId: "d",
    ackMode: o.ackMode ?? "on-persist",
    declaration: {
      name: "consumer-test",
      transport: "pubsub",
      options: { project: TEST_PROJECT, endpoint: target.host, topic, ...o.options },
    },
  };
  const { options, problems } = readPubSubOptions(channel);
  assert.deepEqual(problems, []);
  const logger = createLogger("test", { filter: "error", write: () => {} });
  const context: TransportContext = {
    channels: () => [channel],
    deliver: o.deliver,
    http: { add: () => {} },
    logger,
    resolveSecret: (reference) => Promise.resolve(reference),
    payloadCapBytes: 1_000_000,
    ackHoldMs: 60_000,
  };
  const consumer = new PubSubConsumer({ context, channel, options, logger });
  try {
    // The consumer declares topic and subscription; publish only once they exist.
    consumer.start();
    for (let i = 0; i < 400; i++) {
      const [exists] = await peer.client.subscription(options.subscription).exists();
      if (exists) break;
      await new Promise((r) => setTimeout(r, 25));
    }
    await run(peer, topic, options.subscription, () => consumer.stop());
  } finally {
    await consumer.stop();
    await peer.close();
    await target.close();
  }
}

async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 800 && !check(); i++) await new Promise((r) => setTimeout(r, 25));
  assert.ok(check(), what);
}

const captured: DeliveryOutcome = { kind: "captured", receiptId: "r" };

Deno.test("pubsub consumer: attributes become headers, ce- ones in the CloudEvents spelling", async () => {
  const got: InboundDelivery[] = [];
  await withConsumer({
    deliver: (d) => {
      got.push(d);
      return Promise.resolve(captured);
    },
    options: { "idempotency-attribute": "event-key" },
  }, async (peer, topic) => {
    await peer.publish(topic, { a: 1 }, {
      "ce-id": "e-1",
      "ce-type": "order",
      "Content-Type": "application/json",
      "event-key": "k-1",
    });
    await peer.publish(topic, "no key");
    await until(() => got.length === 2, "two deliveries");
  });
  const [first, second] = got;
  assert.equal(first.headers["ce-id"], "e-1");
  assert.equal(first.headers["ce-type"], "order");
  assert.equal(first.contentType, "application/json");
  assert.ok(first.headers["message-id"]);
  assert.ok(first.headers["publish-time"]);
  // The configured attribute is the idempotency key; without it there is none.
  assert.equal(first.idempotencyKey, "k-1");
  assert.equal(second.idempotencyKey, undefined);
});

Deno.test("pubsub consumer: the message id is the idempotency key by default", async () => {
  const got: InboundDelivery[] = [];
  await withConsumer({
    deliver: (d) => {
      got.push(d);
      return Promise.resolve(captured);
    },
  }, async (peer, topic) => {
    const id = await peer.publish(topic, "x");
    await until(() => got.length === 1, "delivered");
    assert.equal(got[0].idempotencyKey, id);
  });
});

// With message ordering the service hands out one message per key at a time (the double does);
// without it (or when the real service batches a key's messages) the consumer's lanes keep order.
for (const ordering of [true, false]) {
  Deno.test(`pubsub consumer: one ordering key runs in publish order, keys side by side (subscription ordering ${ordering})`, async () => {
    const started: string[] = [];
    const running = new Map<string, number>();
    let concurrent = 0;
    let maxConcurrent = 0;
    let overlaps = 0;
    await withConsumer({
      options: { ordering },
      deliver: async (d) => {
        const { key, seq } = JSON.parse(new TextDecoder().decode(d.body));
        // The engine keeps a key's captured runs in order by the delivery's ordering key.
        assert.equal(d.orderingKey, key);
        if ((running.get(key) ?? 0) > 0) overlaps++;
        running.set(key, (running.get(key) ?? 0) + 1);
        maxConcurrent = Math.max(maxConcurrent, ++concurrent);
        started.push(`${key}:${seq}`);
        await new Promise((r) => setTimeout(r, Math.random() * 8));
        concurrent--;
        running.set(key, running.get(key)! - 1);
        return captured;
      },
    }, async (peer, topic) => {
      const keys = ["a", "b", "c", "d"];
      const sends: Promise<string>[] = [];
      for (let seq = 0; seq < 25; seq++) {
        for (const key of keys) sends.push(peer.publish(topic, { key, seq }, {}, key));
      }
      await Promise.all(sends);
      await until(() => started.length === 100, `100 deliveries, saw ${started.length}`);
      for (const key of keys) {
        const order = started.filter((s) => s.startsWith(`${key}:`)).map((s) => Number(s.slice(2)));
        assert.deepEqual(order, Array.from({ length: 25 }, (_, i) => i), `key ${key}`);
      }
    });
    assert.equal(overlaps, 0, "two messages of one key never ran at once");
    assert.ok(maxConcurrent > 1, "different keys ran side by side");
  });
}

Deno.test({
  name: "pubsub consumer: stopping hands a held (on-complete) message back at once",
  ignore: externalEmulator(),
}, async () => {
  let delivered = 0;
  await withConsumer({
    ackMode: "on-complete",
    // Settled, but the deferral is never answered: the instance is still running.
    deliver: () => {
      delivered++;
      return Promise.resolve({ kind: "settled", instances: [] });
    },
  }, async (peer, topic, subscription, stop) => {
    await peer.publish(topic, "held");
    await until(() => delivered === 1, "delivered");
    assert.equal(peer.stats(subscription).outstanding, 1);
    await stop();
    const stats = peer.stats(subscription);
    assert.deepEqual([stats.pending, stats.outstanding, stats.acked], [1, 0, 0]);
  });
});
