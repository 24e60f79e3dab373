/**
 * The pubsub transport with the real `@google-cloud/pubsub` client against
 * the Pub/Sub test double (or `SUTRA_TEST_PUBSUB_EMULATOR_HOST`), the
 * engine on the tier-2 PostgreSQL server: both ack modes, the outbound
 * `q:send` with its ordering key, poison messages and the redelivery budget
 * on the dead-letter topic with their diagnostic, CloudEvents in binary and
 * structured mode.
 */
import assert from "node:assert/strict";
import { instanceStatuses, post, until } from "../runtime/support.ts";
import { tier2Test } from "../support/test_database.ts";
import { withPubSubEngine } from "../support/pubsub_server/fixture.ts";

tier2Test(
  "pubsub on-persist: each message runs once, its q:send carries key and ordering key",
  async () => {
    await withPubSubEngine("persist", { ackMode: "on-persist" }, async (ctx) => {
      const { engine, peer, topics } = ctx;
      for (const id of ["a", "b", "c"]) {
        await peer.publish(topics.orders, { orderId: id, key: `k-${id}` });
      }
      const confirmed = await peer.take(topics.read.confirmed, 3);
      assert.deepEqual(confirmed.map((m) => JSON.parse(m.body).orderId).sort(), ["a", "b", "c"]);
      for (const m of confirmed) {
        // The ordering key came from the FEEL q:header, and is not left as an attribute.
        assert.equal(m.orderingKey, `k-${JSON.parse(m.body).orderId}`);
        assert.equal(m.attributes["pubsub-ordering-key"], undefined);
        assert.equal(typeof m.attributes["sutra-idempotency-key"], "string");
        assert.match(m.attributes["content-type"], /application\/json/);
      }
      await until(async () => (await instanceStatuses(engine)).length === 3);
      if (ctx.target.double) {
        await until(() => Promise.resolve(peer.stats(topics.ordersSub).acked === 3));
      }
      await engine.stop();
      if (ctx.target.double) {
        const stats = peer.stats(topics.ordersSub);
        assert.equal(stats.outstanding + stats.pending, 0);
        assert.equal(stats.delivered, 3);
      }
    });
  },
);

tier2Test(
  "pubsub on-complete: the ack waits for the instance; a failed one is dead-lettered",
  async () => {
    await withPubSubEngine("complete", { ackMode: "on-complete" }, async (ctx) => {
      const { engine, peer, topics } = ctx;
      for (const id of ["held", "ok", "fail"]) {
        await peer.publish(topics.orders, { orderId: id, hold: true });
      }
      await peer.take(topics.read.confirmed, 3);
      if (ctx.target.double) {
        // Parked instances hold their messages: nothing is acked yet.
        assert.equal(peer.stats(topics.ordersSub).acked, 0);
      }
      await peer.publish(topics.decisions, { orderId: "ok", ok: true });
      await peer.publish(topics.decisions, { orderId: "fail", ok: false });
      const [dead] = await peer.take(topics.read.ordersDlq, 1);
      assert.equal(JSON.parse(dead.body).orderId, "fail");
      assert.equal(dead.attributes["sutra-diagnostic-code"], "SUTRA.ACK.DEFERRED_NACKED");
      assert.equal(dead.attributes["sutra-diagnostic-channel"], "ps-orders");
      assert.ok(dead.attributes["sutra-source-message-id"]);
      await until(async () => (await instanceStatuses(engine)).includes("COMPLETED"));
      if (ctx.target.double) {
        await until(() => Promise.resolve(peer.stats(topics.ordersSub).acked === 2));
      }
      await engine.stop();
      if (ctx.target.double) {
        // Only the order whose instance is still parked was not acknowledged: it was handed back.
        const stats = peer.stats(topics.ordersSub);
        assert.equal(stats.acked, 2);
        assert.equal(stats.pending + stats.outstanding, 1);
      }
    });
  },
);

tier2Test(
  "pubsub poison: malformed and never-correlating messages reach the dead-letter topic with their diagnostic",
  async () => {
    await withPubSubEngine("poison", {}, async ({ peer, topics }) => {
      const id = await peer.publish(topics.orders, "{not json");
      const [dead] = await peer.take(topics.read.ordersDlq, 1);
      assert.equal(dead.body, "{not json");
      assert.equal(dead.attributes["sutra-diagnostic-code"], "SUTRA.PARSE.JSON.MALFORMED");
      assert.equal(dead.attributes["sutra-source-message-id"], id);
      // A relay no instance waits for is retried within the budget (2), then dead-lettered.
      await peer.publish(topics.decisions, { orderId: "nobody", ok: true });
      const [exhausted] = await peer.take(topics.read.decisionsDlq, 1);
      assert.equal(
        exhausted.attributes["sutra-diagnostic-code"],
        "SUTRA.BROKER.REDELIVERY_EXHAUSTED",
      );
      assert.match(exhausted.attributes["sutra-diagnostic-message"], /delivered 2 time/);
    });
  },
);

tier2Test(
  "pubsub CloudEvents: binary and structured in, binary out; a broken structured event is poison",
  async () => {
    await withPubSubEngine("cloudevents", {}, async ({ engine, peer, topics }) => {
      await peer.publish(topics.orders, { orderId: "bin1" }, {
        "ce-specversion": "1.0",
        "ce-id": "e-1",
        "ce-type": "order",
        "ce-source": "/t",
        "content-type": "application/json",
      });
      await peer.publish(
        topics.orders,
        { specversion: "1.0", id: "e-2", type: "order", source: "/t", data: { orderId: "st1" } },
        { "content-type": "application/cloudevents+json" },
      );
      const confirmed = await peer.take(topics.read.confirmed, 2);
      assert.deepEqual(confirmed.map((m) => JSON.parse(m.body).orderId).sort(), ["bin1", "st1"]);
      // A structured event without specversion is poison.
      await peer.publish(topics.orders, { data: {} }, {
        "content-type": "application/cloudevents+json",
      });
      const [dead] = await peer.take(topics.read.ordersDlq, 1);
      assert.equal(dead.attributes["sutra-diagnostic-code"], "SUTRA.INBOUND.CLOUDEVENT.INVALID");
      // Out: a binary-mode emission carries its attributes as ce- attributes.
      assert.equal((await post(engine, "/channels/ps-http", { orderId: "out1" })).status, 202);
      const [out] = await peer.take(topics.read.confirmed, 1);
      assert.equal(JSON.parse(out.body).orderId, "out1");
      assert.equal(out.attributes["ce-specversion"], "1.0");
      assert.equal(out.attributes["ce-type"], "forward.Forward");
      assert.equal(out.attributes["ce-id"], out.attributes["sutra-idempotency-key"]);
      assert.match(out.attributes["content-type"], /application\/json/);
    });
  },
);
