/**
 * The kafka transport through real kafkajs, against the Kafka test double
 * (or the cluster `SUTRA_TEST_KAFKA_BROKERS` names): both ack modes with
 * the offset committed only after the commit / the instance's end, the
 * keyed, acks=all `q:send`, poison records on the dead-letter topic with
 * their diagnostic, per-key order, and contiguous offset commits.
 */
import assert from "node:assert/strict";
import type { RunningEngine } from "../../engine/runtime/mod.ts";
import { instanceStatuses, post, until } from "../runtime/support.ts";
import { withDeployedServerEngine } from "../support/broker_kill.ts";
import {
  fixtureTopics,
  type KafkaClient,
  kafkaPackage,
  type KafkaPackageOptions,
  kafkaTest,
  ORDERS_GROUP,
  uniqueTopic,
} from "./kafka_support.ts";

/** Boots an engine with the fixture deployed for a fresh topic prefix, runs `run`, stops it. */
async function withKafka(
  brokers: string,
  client: KafkaClient,
  label: string,
  options: Omit<KafkaPackageOptions, "prefix">,
  run: (ctx: { engine: RunningEngine; t: string }) => Promise<void>,
): Promise<void> {
  const t = uniqueTopic(label);
  await client.topics(fixtureTopics(t));
  const sealed = await kafkaPackage({ prefix: t, ...options });
  await withDeployedServerEngine(
    { SUTRA_TEST_KAFKA_BROKERS: brokers },
    sealed,
    (engine) => run({ engine, t }),
  );
}

kafkaTest(
  "kafka on-persist: each record runs once, its keyed q:send is published, offsets committed",
  async ({ brokers, client }) => {
    await withKafka(brokers, client, "persist", {}, async ({ engine, t }) => {
      await client.send(`${t}.orders`, [
        { value: { orderId: "a" }, key: "a" },
        { value: { orderId: "b" }, key: "b", headers: { "sutra-idempotency-key": "order-b" } },
        { value: { orderId: "c" }, key: "c" },
        // The same idempotency key again: inbox dedup absorbs it.
        { value: { orderId: "b" }, key: "b", headers: { "sutra-idempotency-key": "order-b" } },
      ]);
      const confirmed = await client.read(`${t}.confirmed`, 3);
      assert.deepEqual(confirmed.map((r) => JSON.parse(r.value).orderId).sort(), ["a", "b", "c"]);
      // The key comes from the q:header FEEL expression; CloudEvents headers use the ce_ prefix.
      for (const r of confirmed) {
        assert.equal(r.key, JSON.parse(r.value).orderId);
        assert.equal(r.headers["ce_type"], "order.confirmed");
        assert.match(r.headers["content-type"], /application\/json/);
        assert.ok(r.headers["sutra-idempotency-key"]);
        assert.equal(r.headers["kafka-key"], undefined);
      }
      await until(async () => (await instanceStatuses(engine)).length === 3);
      await until(async () => (await client.committed(ORDERS_GROUP, `${t}.orders`))[0] === 4);
    });
  },
);

kafkaTest(
  "kafka on-complete: the offset waits for the instance; a failed one is dead-lettered",
  async ({ brokers, client }) => {
    await withKafka(
      brokers,
      client,
      "complete",
      { ackMode: "on-complete" },
      async ({ engine, t }) => {
        await client.send(
          `${t}.orders`,
          ["ok", "fail"].map((id) => ({ value: { orderId: id, hold: true }, key: id })),
        );
        await client.read(`${t}.confirmed`, 2);
        await until(async () => (await instanceStatuses(engine)).length === 2);
        // Both instances are parked: nothing is committed yet.
        assert.deepEqual(await client.committed(ORDERS_GROUP, `${t}.orders`), [-1]);
        await client.send(`${t}.decisions`, [{ value: { orderId: "ok", ok: true } }]);
        await until(async () => (await instanceStatuses(engine)).includes("COMPLETED"));
        // "ok" (offset 0) ended, "fail" (offset 1) is still open: the commit stops before it.
        await until(async () => (await client.committed(ORDERS_GROUP, `${t}.orders`))[0] === 1);
        await client.send(`${t}.decisions`, [{ value: { orderId: "fail", ok: false } }]);
        const [dead] = await client.read(`${t}.orders.dlt`, 1);
        assert.equal(JSON.parse(dead.value).orderId, "fail");
        assert.equal(dead.key, "fail");
        assert.equal(dead.headers["sutra-diagnostic-code"], "SUTRA.ACK.DEFERRED_NACKED");
        assert.equal(dead.headers["sutra-diagnostic-channel"], "kf-orders");
        assert.equal(dead.headers["sutra-source-offset"], "1");
        await until(async () => (await client.committed(ORDERS_GROUP, `${t}.orders`))[0] === 2);
      },
    );
  },
);

kafkaTest(
  "kafka poison: a malformed record goes to the dead-letter topic with its diagnostic",
  async ({ brokers, client }) => {
    await withKafka(brokers, client, "poison", {}, async ({ t }) => {
      await client.send(`${t}.orders`, [{ value: "{not json", key: "bad" }]);
      const [dead] = await client.read(`${t}.orders.dlt`, 1);
      assert.equal(dead.value, "{not json");
      assert.equal(dead.headers["sutra-diagnostic-code"], "SUTRA.PARSE.JSON.MALFORMED");
      assert.equal(dead.headers["sutra-source-topic"], `${t}.orders`);
      assert.equal(dead.headers["content-type"], "application/json");
      // Settled for good: the offset moves past it.
      await until(async () => (await client.committed(ORDERS_GROUP, `${t}.orders`))[0] === 1);
    });
  },
);

kafkaTest(
  "kafka redelivery budget: a relay that never correlates is dead-lettered after the budget",
  async ({ brokers, client }) => {
    await withKafka(brokers, client, "budget", {}, async ({ t }) => {
      await client.send(`${t}.decisions`, [{ value: { orderId: "nobody", ok: true } }]);
      const [dead] = await client.read(`${t}.decisions.dlt`, 1);
      assert.equal(dead.headers["sutra-diagnostic-code"], "SUTRA.BROKER.REDELIVERY_EXHAUSTED");
      assert.match(dead.headers["sutra-diagnostic-message"], /delivered 2 time/);
    });
  },
);

kafkaTest(
  "kafka ordering: a key's next record waits for the one before it; other keys go on",
  async ({ brokers, client }) => {
    await withKafka(brokers, client, "order", { ackMode: "on-complete" }, async ({ engine, t }) => {
      // One partition: k1 (parked), k2, k1 again, then k3.
      await client.send(`${t}.orders`, [
        { value: { orderId: "k1-first", seq: 1, hold: true }, key: "k1" },
        { value: { orderId: "k2-only", seq: 1 }, key: "k2" },
        { value: { orderId: "k1-second", seq: 2 }, key: "k1" },
        { value: { orderId: "k3-only", seq: 1 }, key: "k3" },
      ]);
      await until(async () =>
        (await instanceStatuses(engine)).filter((s) => s === "COMPLETED").length === 2
      );
      const early = await client.read(`${t}.confirmed`, 3);
      assert.deepEqual(
        early.map((r) => JSON.parse(r.value).orderId).sort(),
        ["k1-first", "k2-only", "k3-only"],
      );
      // k1's second record has not started while its first is parked.
      assert.equal((await instanceStatuses(engine)).length, 3);
      // The commit stops at the parked record, though the two after it are done.
      assert.deepEqual(await client.committed(ORDERS_GROUP, `${t}.orders`), [-1]);
      await client.send(`${t}.decisions`, [{ value: { orderId: "k1-first", ok: true } }]);
      await until(async () =>
        (await instanceStatuses(engine)).filter((s) => s === "COMPLETED").length === 4
      );
      const all = await client.read(`${t}.confirmed`, 4);
      const k1 = all.filter((r) => r.key === "k1-first" || r.key === "k1-second");
      assert.equal(k1.length, 2);
      await until(async () => (await client.committed(ORDERS_GROUP, `${t}.orders`))[0] === 4);
    });
  },
);

for (const ackMode of ["on-complete", "on-persist"] as const) {
  kafkaTest(
    `kafka reply-to (${ackMode}): the q:reply goes to the reply topic with the correlation id`,
    async ({ brokers, client }) => {
      await withKafka(brokers, client, "reply", { ackMode }, async ({ t }) => {
        await client.send(`${t}.orders`, [{
          value: { orderId: "r1" },
          key: "r1",
          headers: { "reply-to": `${t}.replies`, "correlation-id": "corr-1" },
        }]);
        const [reply] = await client.read(`${t}.replies`, 1);
        assert.deepEqual(JSON.parse(reply.value), { orderId: "r1", accepted: true });
        assert.equal(reply.headers["correlation-id"], "corr-1");
        assert.equal(reply.key, "r1");
        assert.match(reply.headers["content-type"], /application\/json/);
      });
    },
  );
}

kafkaTest(
  "kafka CloudEvents: a structured event is unwrapped; one without specversion is poison",
  async ({ brokers, client }) => {
    await withKafka(brokers, client, "cloudevents", {}, async ({ t }) => {
      const event = {
        specversion: "1.0",
        id: "e-1",
        type: "order",
        source: "/t",
        data: { orderId: "ce1" },
      };
      const structured = { "content-type": "application/cloudevents+json" };
      await client.send(`${t}.orders`, [{ value: event, key: "ce1", headers: structured }]);
      const [confirmed] = await client.read(`${t}.confirmed`, 1);
      assert.equal(JSON.parse(confirmed.value).orderId, "ce1");
      await client.send(`${t}.orders`, [{ value: { data: {} }, key: "ce2", headers: structured }]);
      const [dead] = await client.read(`${t}.orders.dlt`, 1);
      assert.equal(dead.headers["sutra-diagnostic-code"], "SUTRA.INBOUND.CLOUDEVENT.INVALID");
    });
  },
);

kafkaTest(
  "kafka q:send to an outbound-only channel: a binary CloudEvent in the ce_ headers, keyed",
  async ({ brokers, client }) => {
    await withKafka(brokers, client, "events", {}, async ({ engine, t }) => {
      assert.equal((await post(engine, "/channels/kf-http", { orderId: "e1" })).status, 200);
      const [event] = await client.read(`${t}.events`, 1);
      assert.deepEqual(JSON.parse(event.value), { orderId: "e1" });
      assert.equal(event.key, "e1");
      assert.equal(event.headers["ce_type"], "order.published");
      assert.equal(event.headers["ce_specversion"], "1.0");
      assert.ok(event.headers["ce_id"]);
      assert.ok(event.headers["ce_source"]);
    });
  },
);
