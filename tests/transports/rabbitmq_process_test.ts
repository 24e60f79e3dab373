/**
 * The rabbitmq transport with engines as real child processes (tier 2):
 * an engine killed with SIGKILL in the middle of 1,000 messages and
 * restarted applies each message exactly once and leaves nothing
 * unacknowledged; two engines on one database share a `singleton: true`
 * channel with one consumer at a time, and the survivor takes over when the
 * holder is killed.
 */
import assert from "node:assert/strict";
import { until } from "../runtime/support.ts";
import { killMidStream, singletonTakeover } from "../support/broker_kill.ts";
import {
  Broker,
  consumersOf,
  fixtureQueues,
  rabbitPackage,
  rabbitTest,
  uniquePrefix,
} from "../support/rabbitmq.ts";

rabbitTest(
  "rabbitmq: an engine killed mid-stream applies every message exactly once after restart",
  async (url) => {
    const q = uniquePrefix("sigkill");
    const broker = await Broker.open(url);
    const confirmedIds = new Set<string>();
    const confirmedOrders = new Set<string>();
    try {
      for (const name of fixtureQueues(q)) await broker.queue(name);
      await killMidStream({
        env: { SUTRA_TEST_RABBITMQ_URL: url },
        package: () => rabbitPackage({ prefix: q, singleton: false }),
        send: (ids) => broker.sendMany(`${q}.orders`, ids.map((orderId) => ({ orderId })), "m-"),
        settle: async () => {
          await until(async () => await broker.ready(`${q}.orders`) === 0, 30_000);
          // Every order is confirmed; a copy re-sent after the kill carries the same message-id.
          await until(async () => {
            for (const m of await broker.take(`${q}.confirmed`)) {
              confirmedIds.add(String(m.properties.messageId));
              confirmedOrders.add(JSON.parse(m.body).orderId);
            }
            return confirmedIds.size >= 1000;
          }, 90_000);
        },
        verify: async () => {
          // Nothing was left unacknowledged: the stopped engine's connection returned nothing.
          assert.equal(await broker.ready(`${q}.orders`), 0);
          assert.equal(await broker.ready(`${q}.orders.dlq`), 0);
          assert.equal(confirmedIds.size, 1000);
          assert.equal(confirmedOrders.size, 1000);
        },
      });
    } finally {
      await broker.close(fixtureQueues(q));
    }
  },
);

rabbitTest(
  "rabbitmq singleton: one consumer across two engines; the survivor takes over",
  async (url) => {
    const q = uniquePrefix("singleton");
    const broker = await Broker.open(url);
    try {
      for (const name of fixtureQueues(q)) await broker.queue(name);
      await singletonTakeover({
        env: { SUTRA_TEST_RABBITMQ_URL: url },
        package: () => rabbitPackage({ prefix: q, singleton: true }),
        send: (orderId) => broker.send(`${q}.orders`, { orderId }, { messageId: `m-${orderId}` }),
        confirmed: async () =>
          (await broker.take(`${q}.confirmed`)).map((m) => JSON.parse(m.body).orderId),
        consumers: async () => (await consumersOf(`${q}.orders`)).length,
      });
    } finally {
      await broker.close(fixtureQueues(q));
    }
  },
);
