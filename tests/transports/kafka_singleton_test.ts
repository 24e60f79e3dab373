/**
 * A `singleton: true` kafka channel on two engines sharing one database:
 * only the engine holding the channel's lease is a member of its consumer
 * group; when it stops, the other takes the lease and consumes.
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

kafkaTest(
  "kafka singleton: one group member across two engines; the other takes over",
  async (ctx) => {
    const { brokers, client, double } = ctx;
    const t = uniqueTopic("singleton");
    await client.topics(fixtureTopics(t), 2);
    await withServerDatabase(async (_db, target) => {
      const env = { SUTRA_TEST_KAFKA_BROKERS: brokers };
      const first = await bootEngine({
        url: target.url,
        schema: target.schema,
        env,
        replicaId: "a",
      });
      await first.deployments.deploy(await kafkaPackage({ prefix: t, singleton: true }));
      const second = await bootEngine({
        url: target.url,
        schema: target.schema,
        env,
        replicaId: "b",
      });
      let most = 0;
      let watching = true;
      const watch = (async () => {
        while (watching) {
          most = Math.max(most, await client.members(ORDERS_GROUP, double));
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      })();
      let stopped = false;
      try {
        await until(async () => await client.members(ORDERS_GROUP, double) === 1, 20_000);
        await client.send(`${t}.orders`, [{ value: { orderId: "before" }, key: "before" }]);
        await until(async () => (await instanceStatuses(first)).length === 1, 20_000);
        // Whichever engine holds the lease, stopping the first one leaves the second consuming.
        await first.stop();
        stopped = true;
        await client.send(`${t}.orders`, [{ value: { orderId: "after" }, key: "after" }]);
        await until(async () => (await instanceStatuses(second)).length === 2, 30_000);
        const confirmed = await client.read(`${t}.confirmed`, 2);
        assert.deepEqual(confirmed.map((r) => JSON.parse(r.value).orderId).sort(), [
          "after",
          "before",
        ]);
      } finally {
        watching = false;
        await watch;
        if (!stopped) await first.stop();
        await second.stop();
      }
      assert.equal(most, 1, "two members of a singleton channel's group at once");
    });
  },
);
