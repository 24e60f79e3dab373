/**
 * The kafka transport with the engine as a real child process: killed with
 * SIGKILL in the middle of 1,000 records and restarted, it applies every
 * record exactly once (one instance, one confirmation each) and commits the
 * partition's offset to its end. The broker (the test double, in this
 * process, or a real cluster) is reached by the child over TCP.
 */
import assert from "node:assert/strict";
import { until } from "../runtime/support.ts";
import { killMidStream } from "../support/broker_kill.ts";
import {
  fixtureTopics,
  kafkaPackage,
  kafkaTest,
  ORDERS_GROUP,
  uniqueTopic,
} from "./kafka_support.ts";

kafkaTest(
  "kafka: an engine killed mid-stream applies every record exactly once after restart",
  async ({ brokers, client }) => {
    const t = uniqueTopic("sigkill");
    await client.topics(fixtureTopics(t), 2);
    await killMidStream({
      env: { SUTRA_TEST_KAFKA_BROKERS: brokers },
      package: () => kafkaPackage({ prefix: t }),
      send: async (ids) => {
        const orders = ids.map((orderId) => ({ value: { orderId }, key: orderId }));
        for (let i = 0; i < orders.length; i += 250) {
          await client.send(`${t}.orders`, orders.slice(i, i + 250));
        }
      },
      settle: async (db) => {
        // Both partitions committed to their ends: nothing is left to read again.
        await until(async () => {
          const committed = await client.committed(ORDERS_GROUP, `${t}.orders`);
          return committed.reduce((a, b) => a + Math.max(0, b), 0) === 1000;
        }, 60_000);
        // Every confirmation left the outbox (accepted by the broker).
        await until(async () => {
          const { rows } = await db.query<{ n: number }>("select count(*)::int as n from outbox");
          return rows[0].n === 0;
        }, 60_000);
      },
      verify: async () => {
        // Every order is confirmed; a copy re-sent after the kill carries the same idempotency key.
        const ids = new Set<string>();
        const confirmedOrders = new Set<string>();
        const confirmed = await client.read(`${t}.confirmed`, (got) => {
          for (const r of got) {
            ids.add(r.headers["sutra-idempotency-key"]);
            confirmedOrders.add(JSON.parse(r.value).orderId);
          }
          return ids.size >= 1000;
        }, 60_000);
        assert.ok(confirmed.length >= 1000);
        assert.equal(ids.size, 1000);
        assert.equal(confirmedOrders.size, 1000);
        assert.equal((await client.read(`${t}.orders.dlt`, () => true, 300)).length, 0);
      },
    });
  },
);
