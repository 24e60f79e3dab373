/**
 * The amqp10 transport with the engine as a real child process (tier 2,
 * RabbitMQ's AMQP 1.0 plugin): an engine killed with SIGKILL in the middle
 * of 1,000 messages and restarted applies each message exactly once and
 * leaves nothing unsettled on the queue.
 */
import assert from "node:assert/strict";
import { until } from "../runtime/support.ts";
import { killMidStream } from "../support/broker_kill.ts";
import {
  Amqp10Client,
  amqp10Package,
  amqp10Test,
  Broker,
  jsonMessage,
  packageQueues,
  textOf,
  uniquePrefix,
  URL_VARIABLE,
} from "../support/amqp10.ts";

/** Sends `orders` to `address`, a window at a time, each accepted by the broker. */
async function sendAll(client: Amqp10Client, address: string, orders: readonly string[]) {
  for (let from = 0; from < orders.length; from += 100) {
    await Promise.all(
      orders.slice(from, from + 100).map((orderId) =>
        client.send(address, jsonMessage({ orderId }, { message_id: `m-${orderId}` }))
      ),
    );
  }
}

amqp10Test(
  "amqp10: an engine killed mid-stream applies every message exactly once after restart",
  async (url) => {
    const q = uniquePrefix("a10-sigkill");
    const broker = await Broker.open(url);
    const client = await Amqp10Client.open(url);
    try {
      for (const name of packageQueues(q)) await broker.queue(name);
      await killMidStream({
        env: { [URL_VARIABLE]: url },
        package: () => amqp10Package({ prefix: q }),
        send: (ids) => sendAll(client, `/queue/${q}.orders`, ids),
        settle: async () => {
          await until(async () => await broker.ready(`${q}.orders`) === 0, 30_000);
          await until(async () => (await broker.ready(`${q}.confirmed`)) >= 1000, 90_000);
        },
        verify: async () => {
          // Nothing was left unsettled: the stopped engine's link gave nothing back to the queue.
          assert.equal(await broker.ready(`${q}.orders`), 0);
          assert.equal(await broker.ready(`${q}.dlq`), 0);
          // Every order is confirmed; a send the killed engine made but had not marked sent goes
          // out again, under the same message id.
          const confirmed = await client.take(
            `/queue/${q}.confirmed`,
            await broker.ready(`${q}.confirmed`),
          );
          const ids = new Set(confirmed.map((m) => String(m.message_id)));
          const confirmedOrders = new Set(confirmed.map((m) => JSON.parse(textOf(m)).orderId));
          assert.equal(ids.size, 1000);
          assert.equal(confirmedOrders.size, 1000);
        },
      });
    } finally {
      await client.close();
      await broker.close(packageQueues(q));
    }
  },
);
