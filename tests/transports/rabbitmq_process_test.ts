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
import {
  deployInto,
  engineChild,
  instanceCount,
  killMidStream,
  stopChild,
} from "../support/broker_kill.ts";
import type { EngineChild } from "../support/engine_process.ts";
import {
  Broker,
  consumersOf,
  fixtureQueues,
  rabbitPackage,
  rabbitTest,
  uniquePrefix,
} from "../support/rabbitmq.ts";
import { withServerDatabase } from "../support/test_database.ts";

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
    const cwd = await Deno.makeTempDir({ prefix: "sutra-rq-" });
    const engines: EngineChild[] = [];
    try {
      for (const name of fixtureQueues(q)) await broker.queue(name);
      await withServerDatabase(async (db, target) => {
        const env = { SUTRA_TEST_RABBITMQ_URL: url };
        await deployInto(target, env, await rabbitPackage({ prefix: q, singleton: true }));
        engines.push(engineChild(target, env, cwd), engineChild(target, env, cwd));
        await Promise.all(engines.map((e) => e.started));
        const holderOf = () =>
          engines.findIndex((e) =>
            e.records.some((r) => String(r.message).startsWith("singleton lease taken"))
          );
        await until(() => Promise.resolve(holderOf() >= 0), 30_000);
        const holder = holderOf();
        // The lease is logged as taken just before the consumer registers with the broker, and a
        // killed holder's consumer disappears once the broker notices the dead connection.
        await until(async () => (await consumersOf(`${q}.orders`)).length === 1, 30_000);
        await broker.send(`${q}.orders`, { orderId: "before" }, { messageId: "m-before" });
        await broker.await(`${q}.confirmed`, 1);
        await stopChild(engines[holder], "SIGKILL");
        const survivor = engines[1 - holder];
        await until(() =>
          Promise.resolve(
            survivor.records.some((r) => String(r.message).startsWith("singleton lease taken")),
          ), 30_000);
        // The lease is logged as taken just before the consumer registers with the broker, and a
        // killed holder's consumer disappears once the broker notices the dead connection.
        await until(async () => (await consumersOf(`${q}.orders`)).length === 1, 30_000);
        await broker.send(`${q}.orders`, { orderId: "after" }, { messageId: "m-after" });
        // The holder may have died between sending the first confirmation and marking it sent:
        // the survivor then sends that one again too (same message id). Nothing else comes.
        const seen: string[] = [];
        await until(async () => {
          seen.push(
            ...(await broker.take(`${q}.confirmed`)).map((m) => JSON.parse(m.body).orderId),
          );
          return seen.includes("after");
        }, 30_000);
        assert.ok(seen.every((o) => o === "before" || o === "after"), seen.join(", "));
        assert.equal(await instanceCount(db), 2);
        await stopChild(survivor);
      });
    } finally {
      for (const e of engines) await stopChild(e).catch(() => {});
      await broker.close(fixtureQueues(q));
      await Deno.remove(cwd, { recursive: true }).catch(() => {});
    }
  },
);
