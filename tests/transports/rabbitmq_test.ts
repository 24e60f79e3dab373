/**
 * The rabbitmq transport against the real broker (tier 2): both ack modes,
 * request/reply, the publisher-confirmed sink, poison messages and the
 * redelivery budget, and a connection closed under the consumer.
 */
import assert from "node:assert/strict";
import type { RunningEngine } from "../../engine/runtime/mod.ts";
import { instanceStatuses, until } from "../runtime/support.ts";
import { withDeployedServerEngine } from "../support/broker_kill.ts";
import { createLogger } from "../../engine/core/mod.ts";
import type { BoundChannel } from "../../engine/core/transport.ts";
import { ChannelConsumer } from "../../io/transports/rabbitmq/consumer.ts";
import { readRabbitOptions } from "../../io/transports/rabbitmq/options.ts";
import {
  Broker,
  closeConnections,
  consumersOf,
  fixtureQueues,
  rabbitPackage,
  type RabbitPackageOptions,
  rabbitTest,
  uniquePrefix,
} from "../support/rabbitmq.ts";

/** Boots an engine with the fixture deployed for `prefix`, runs `run`, stops it and cleans up. */
async function withRabbit(
  url: string,
  label: string,
  options: Omit<RabbitPackageOptions, "prefix">,
  run: (ctx: { engine: RunningEngine; broker: Broker; q: string }) => Promise<void>,
): Promise<void> {
  const q = uniquePrefix(label);
  const broker = await Broker.open(url);
  for (const name of fixtureQueues(q)) await broker.queue(name);
  try {
    const sealed = await rabbitPackage({ prefix: q, ...options });
    await withDeployedServerEngine(
      { SUTRA_TEST_RABBITMQ_URL: url },
      sealed,
      (engine) => run({ engine, broker, q }),
    );
  } finally {
    await broker.close(fixtureQueues(q));
  }
}

rabbitTest(
  "rabbitmq on-persist: each message runs once, its q:send is confirmed, all acked",
  async (url) => {
    await withRabbit(url, "persist", { ackMode: "on-persist" }, async ({ engine, broker, q }) => {
      for (const id of ["a", "b", "c"]) {
        await broker.send(`${q}.orders`, { orderId: id }, { messageId: `m-${id}` });
      }
      // The same message id again: inbox dedup absorbs it.
      await broker.send(`${q}.orders`, { orderId: "a" }, { messageId: "m-a" });
      const confirmed = await broker.await(`${q}.confirmed`, 3);
      assert.deepEqual(confirmed.map((m) => JSON.parse(m.body).orderId).sort(), ["a", "b", "c"]);
      // The sink sends the outbox row's idempotency key as the AMQP message-id.
      assert.ok(confirmed.every((m) => typeof m.properties.messageId === "string"));
      await until(async () => (await instanceStatuses(engine)).length === 3);
      await engine.stop();
      // Nothing unacknowledged came back when the engine's connection closed.
      assert.equal(await broker.ready(`${q}.orders`), 0);
      assert.deepEqual(await broker.take(`${q}.confirmed`), []);
    });
  },
);

rabbitTest(
  "rabbitmq on-complete: the ack waits for the instance; a failed one is dead-lettered",
  async (url) => {
    await withRabbit(url, "complete", { ackMode: "on-complete" }, async ({ engine, broker, q }) => {
      for (const id of ["held", "ok", "fail"]) {
        await broker.send(`${q}.orders`, { orderId: id, hold: true }, { messageId: `m-${id}` });
      }
      await broker.await(`${q}.confirmed`, 3);
      await broker.send(`${q}.decisions`, { orderId: "ok", ok: true }, { messageId: "d-ok" });
      await broker.send(`${q}.decisions`, { orderId: "fail", ok: false }, { messageId: "d-fail" });
      const [dead] = await broker.await(`${q}.orders.dlq`, 1);
      assert.equal(JSON.parse(dead.body).orderId, "fail");
      assert.equal(dead.headers["sutra-diagnostic-code"], "SUTRA.ACK.DEFERRED_NACKED");
      assert.equal(dead.headers["sutra-diagnostic-channel"], "rq-orders");
      await until(async () => (await instanceStatuses(engine)).includes("COMPLETED"));
      await engine.stop();
      // Only the order whose instance is still parked was not acknowledged: it is back on the queue.
      const back = await broker.take(`${q}.orders`);
      assert.deepEqual(back.map((m) => JSON.parse(m.body).orderId), ["held"]);
    });
  },
);

for (const ackMode of ["on-complete", "on-persist"] as const) {
  rabbitTest(
    `rabbitmq reply-to (${ackMode}): the q:reply goes to the reply queue with the correlation id`,
    async (url) => {
      await withRabbit(url, "reply", { ackMode }, async ({ broker, q }) => {
        const replies = `${q}.replies`;
        await broker.queue(replies);
        try {
          await broker.send(`${q}.orders`, { orderId: "r1" }, {
            messageId: "m-r1",
            replyTo: replies,
            correlationId: "corr-1",
          });
          const [reply] = await broker.await(replies, 1);
          assert.deepEqual(JSON.parse(reply.body), { orderId: "r1", accepted: true });
          assert.equal(reply.properties.correlationId, "corr-1");
          assert.match(String(reply.properties.contentType), /application\/json/);
        } finally {
          await broker.channel.deleteQueue(replies).catch(() => {});
        }
      });
    },
  );
}

rabbitTest(
  "rabbitmq poison: a malformed message is dead-lettered with its diagnostic, not retried",
  async (url) => {
    await withRabbit(url, "poison", {}, async ({ broker, q }) => {
      await broker.send(`${q}.orders`, "{not json", { messageId: "bad-1" });
      const [dead] = await broker.await(`${q}.orders.dlq`, 1);
      assert.equal(dead.body, "{not json");
      assert.equal(dead.headers["sutra-diagnostic-code"], "SUTRA.PARSE.JSON.MALFORMED");
      assert.equal(dead.properties.messageId, "bad-1");
      assert.equal(await broker.ready(`${q}.orders`), 0);
    });
  },
);

rabbitTest(
  "rabbitmq redelivery budget: a relay that never correlates is dead-lettered after the budget",
  async (url) => {
    await withRabbit(url, "budget", {}, async ({ broker, q }) => {
      await broker.send(`${q}.decisions`, { orderId: "nobody", ok: true }, { messageId: "d-x" });
      const [dead] = await broker.await(`${q}.decisions.dlq`, 1);
      assert.equal(dead.headers["sutra-diagnostic-code"], "SUTRA.BROKER.REDELIVERY_EXHAUSTED");
      assert.match(String(dead.headers["sutra-diagnostic-message"]), /delivered 2 time/);
      assert.equal(await broker.ready(`${q}.decisions`), 0);
    });
  },
);

rabbitTest(
  "rabbitmq reconnect: a connection closed under the consumer comes back; nothing lost or doubled",
  async (url) => {
    await withRabbit(url, "reconnect", {}, async ({ engine, broker, q }) => {
      for (let i = 0; i < 20; i++) {
        await broker.send(`${q}.orders`, { orderId: `o${i}` }, { messageId: `m-${i}` });
      }
      await broker.await(`${q}.confirmed`, 20);
      assert.ok(await closeConnections("sutra/rabbitmq/rq-orders") >= 1);
      for (let i = 20; i < 40; i++) {
        await broker.send(`${q}.orders`, { orderId: `o${i}` }, { messageId: `m-${i}` });
      }
      const more = await broker.await(`${q}.confirmed`, 20, 30_000);
      assert.equal(new Set(more.map((m) => JSON.parse(m.body).orderId)).size, 20);
      await until(async () => (await instanceStatuses(engine)).length === 40);
      assert.deepEqual(await broker.take(`${q}.confirmed`), []);
    });
  },
);

rabbitTest(
  "rabbitmq CloudEvents: a structured event is unwrapped, its attributes become ce-* headers",
  async (url) => {
    await withRabbit(url, "cloudevents", {}, async ({ broker, q }) => {
      const event = {
        specversion: "1.0",
        id: "e-1",
        type: "order",
        source: "/t",
        data: { orderId: "ce1" },
      };
      await broker.send(`${q}.orders`, event, {
        messageId: "ce-msg-1",
        contentType: "application/cloudevents+json",
      });
      const [confirmed] = await broker.await(`${q}.confirmed`, 1);
      assert.equal(JSON.parse(confirmed.body).orderId, "ce1");
      // A structured event without specversion is poison.
      await broker.send(`${q}.orders`, { data: {} }, {
        messageId: "ce-msg-2",
        contentType: "application/cloudevents+json",
      });
      const [dead] = await broker.await(`${q}.orders.dlq`, 1);
      assert.equal(dead.headers["sutra-diagnostic-code"], "SUTRA.INBOUND.CLOUDEVENT.INVALID");
    });
  },
);

rabbitTest(
  "rabbitmq stop: a consumer stopped while it connects leaves no connection open",
  async (url) => {
    const q = uniquePrefix("stop");
    const channel: BoundChannel = {
      tenant: "default",
      deploymentId: "d",
      ackMode: "on-persist",
      declaration: { name: "stop", transport: "rabbitmq", options: { url, queue: q } },
    };
    const logger = createLogger("test", { filter: "error", write: () => {} });
    const consumer = new ChannelConsumer({
      context: {
        channels: () => [channel],
        deliver: () => Promise.resolve({ kind: "captured", receiptId: "r" }),
        http: { add: () => {} },
        logger,
        resolveSecret: (reference) => Promise.resolve(reference),
        payloadCapBytes: 1_000_000,
        ackHoldMs: 1000,
      },
      channel,
      options: readRabbitOptions(channel).options,
      logger,
    });
    // Stopped before the connection is open: the test sanitizers fail the test on the
    // socket or heartbeat timer of a connection the consumer leaves behind.
    consumer.start();
    await consumer.stop();
    const broker = await Broker.open(url);
    await broker.close([q, `${q}.dlq`]);
  },
);

rabbitTest(
  "rabbitmq send-only: a consume: false channel gets no consumer; the others do",
  async (url) => {
    await withRabbit(url, "sendonly", { sendOnlyDecisions: true }, async ({ broker, q }) => {
      await broker.send(`${q}.orders`, { orderId: "a" }, { messageId: "m-a" });
      // The round trip outlasts the connecting of every consumer the deploy started.
      await broker.await(`${q}.confirmed`, 1);
      assert.deepEqual(await consumersOf(`${q}.decisions`), []);
      assert.equal((await consumersOf(`${q}.orders`)).length, 1);
    });
  },
);
