/**
 * A `singleton: true` amqp10 channel served by two engines on one database
 * (tier 2): one consumer at a time, and the other engine takes over when
 * the holder stops.
 */
import assert from "node:assert/strict";
import type { RunningEngine } from "../../engine/runtime/mod.ts";
import { bootEngine, until } from "../runtime/support.ts";
import { withServerDatabase } from "../support/test_database.ts";
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

amqp10Test(
  "amqp10 singleton: one consumer across two engines; the other takes over",
  async (url) => {
    const q = uniquePrefix("a10-single");
    const broker = await Broker.open(url);
    for (const name of packageQueues(q)) await broker.queue(name);
    const client = await Amqp10Client.open(url);
    const consumers = async () => (await broker.channel.checkQueue(`${q}.orders`)).consumerCount;
    const order = async (orderId: string) => {
      await client.send(
        `/queue/${q}.orders`,
        jsonMessage({ orderId }, { message_id: `m-${orderId}` }),
      );
      const [confirmed] = await client.take(`/queue/${q}.confirmed`, 1);
      assert.equal(JSON.parse(textOf(confirmed)).orderId, orderId);
    };
    try {
      await withServerDatabase(async (_db, target) => {
        const engines: RunningEngine[] = [];
        const boot = async (replicaId: string) => {
          const engine = await bootEngine({
            url: target.url,
            schema: target.schema,
            replicaId,
            env: { [URL_VARIABLE]: url, SUTRA_OUTBOX_POLL_INTERVAL: "PT0.05S" },
          });
          engines.push(engine);
          return engine;
        };
        try {
          const first = await boot("replica-a");
          await first.deployments.deploy(await amqp10Package({ prefix: q, singleton: true }));
          await until(async () => await consumers() === 1, 15_000);
          await boot("replica-b");
          await order("before");
          // The second engine serves the deployment too, but does not consume the singleton.
          assert.equal(await consumers(), 1);
          await engines.shift()!.stop();
          await until(async () => await consumers() === 1, 15_000);
          await order("after");
          assert.equal(await consumers(), 1);
        } finally {
          for (const e of engines) await e.stop();
        }
      });
    } finally {
      await client.close();
      await broker.close(packageQueues(q));
    }
  },
);
