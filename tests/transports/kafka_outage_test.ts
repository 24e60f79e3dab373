/**
 * The kafka sink through a broker outage (the test double is stopped and
 * restarted on the same port): a `q:send` made while the broker is down
 * stays in the outbox, retried, and is marked sent only once the broker
 * accepted the record; the channel consumers reconnect by themselves.
 */
import assert from "node:assert/strict";
import { bootEngine, instanceStatuses, post, until } from "../runtime/support.ts";
import { withServerDatabase } from "../support/test_database.ts";
import { fixtureTopics, kafkaPackage, kafkaTest, uniqueTopic } from "./kafka_support.ts";

kafkaTest("kafka outage: the outbox retries a q:send until the broker is back", async (ctx) => {
  const { brokers, client } = ctx;
  const double = ctx.double!;
  const t = uniqueTopic("outage");
  await client.topics(fixtureTopics(t));
  await withServerDatabase(async (db, target) => {
    const engine = await bootEngine({
      url: target.url,
      schema: target.schema,
      env: { SUTRA_TEST_KAFKA_BROKERS: brokers, SUTRA_OUTBOX_POLL_INTERVAL: "PT0.2S" },
    });
    const outbox = async () =>
      (await db.query<{ attempts: number; last_error: string | null }>(
        "select attempts, last_error from outbox",
      )).rows;
    try {
      await engine.deployments.deploy(await kafkaPackage({ prefix: t }));
      await double.stop();
      const answer = await post(engine, "/channels/kf-http", { orderId: "during-outage" });
      assert.equal(answer.status, 200);
      // Attempted, refused by the dead broker, kept for another try.
      await until(async () => (await outbox()).some((r) => r.attempts >= 2), 20_000);
      const [row] = await outbox();
      assert.match(String(row.last_error), /SUTRA\.BROKER\.PUBLISH_FAILED/);
      double.restart();
      const [record] = await client.read(`${t}.confirmed`, 1, 30_000);
      assert.deepEqual(JSON.parse(record.value), { orderId: "during-outage", published: true });
      assert.equal(record.key, "during-outage");
      await until(async () => (await outbox()).length === 0, 10_000);
      // The consumers came back too: an order sent now runs.
      await client.send(`${t}.orders`, [{ value: { orderId: "after" }, key: "after" }]);
      await until(async () => (await instanceStatuses(engine)).length === 2, 20_000);
      const confirmed = await client.read(`${t}.confirmed`, 2);
      assert.deepEqual(confirmed.map((r) => JSON.parse(r.value).orderId), [
        "during-outage",
        "after",
      ]);
    } finally {
      await engine.stop();
    }
  });
}, { doubleOnly: true });
