/**
 * A rebalance in the middle of long on-complete flows: a second engine
 * joins the orders channel's consumer group while every record's instance
 * is parked, takes a partition over and reads its uncommitted records
 * again. Inbox dedup answers them with the instances already running, so
 * no effect happens twice, and the offsets are committed once the
 * instances end.
 */
import assert from "node:assert/strict";
import { bootEngine, instanceStatuses, until } from "../runtime/support.ts";
import { withServerDatabase } from "../support/test_database.ts";
import {
  fixtureTopics,
  kafkaPackage,
  kafkaTest,
  ORDERS_GROUP,
  uniqueTopic,
} from "./kafka_support.ts";

kafkaTest("kafka rebalance: a partition moving mid-flow doubles no effect", async (ctx) => {
  const { brokers, client, double } = ctx;
  const t = uniqueTopic("rebalance");
  await client.topics(fixtureTopics(t), 2);
  await withServerDatabase(async (_db, target) => {
    const env = {
      SUTRA_TEST_KAFKA_BROKERS: brokers,
      // The engine that did not run an instance hears of its end when its hold times out.
      SUTRA_ACK_DEFERRED_TIMEOUT: "PT3S",
      SUTRA_ACK_DEFERRED_SWEEP_INTERVAL: "PT0.2S",
    };
    const first = await bootEngine({ url: target.url, schema: target.schema, env, replicaId: "a" });
    let second: Awaited<ReturnType<typeof bootEngine>> | undefined;
    try {
      await first.deployments.deploy(await kafkaPackage({ prefix: t, ackMode: "on-complete" }));
      const ids = ["p0-a", "p0-b", "p1-a", "p1-b"];
      await client.send(
        `${t}.orders`,
        ids.map((id) => ({
          value: { orderId: id, hold: true },
          key: id,
          partition: id[1] === "0" ? 0 : 1,
        })),
      );
      await until(async () => (await instanceStatuses(first)).length === 4, 20_000);
      await until(async () => await client.members(ORDERS_GROUP, double) === 1, 20_000);
      second = await bootEngine({ url: target.url, schema: target.schema, env, replicaId: "b" });
      await until(async () => await client.members(ORDERS_GROUP, double) === 2, 20_000);
      // Nothing ended yet: nothing may be committed, whoever owns the partitions now.
      assert.deepEqual(await client.committed(ORDERS_GROUP, `${t}.orders`), [-1, -1]);
      await client.send(`${t}.decisions`, ids.map((id) => ({ value: { orderId: id, ok: true } })));
      await until(
        async () => (await instanceStatuses(first)).filter((s) => s === "COMPLETED").length === 4,
        20_000,
      );
      await until(async () => {
        const committed = await client.committed(ORDERS_GROUP, `${t}.orders`);
        return committed[0] === 2 && committed[1] === 2;
      }, 30_000);
      // Each order ran once: four instances, four confirmations, one per order.
      assert.equal((await instanceStatuses(first)).length, 4);
      const confirmed = await client.read(`${t}.confirmed`, 4);
      assert.deepEqual(confirmed.map((r) => JSON.parse(r.value).orderId).sort(), ids);
      // No dead letters: the redelivered copies were answered by dedup, not refused.
      assert.equal((await client.read(`${t}.orders.dlt`, () => true, 500)).length, 0);
      if (double) assert.ok(double.groups.describe(ORDERS_GROUP).generation >= 2);
    } finally {
      await second?.stop();
      await first.stop();
    }
  });
});
