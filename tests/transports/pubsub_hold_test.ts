/**
 * The pubsub transport when the service takes a lease back (tier 2, the
 * Pub/Sub test double only: it is told to let the lease run out): a message
 * held by a long on-complete flow is delivered a second time while its
 * instance still runs, and inbox dedup ties the copy to that instance — one
 * instance, one confirmation, and the message acknowledged once it ends.
 * And ordering keys on an on-complete channel: a key's next message starts
 * only after the instance of the one before it ended, while keys overlap.
 */
import assert from "node:assert/strict";
import { instanceStatuses, until } from "../runtime/support.ts";
import { tier2Test } from "../support/test_database.ts";
import { withPubSubEngine } from "../support/pubsub_server/fixture.ts";
import { externalEmulator, TEST_PROJECT } from "../support/pubsub_server/mod.ts";

const test = externalEmulator() ? Deno.test.ignore : tier2Test;

tier2Test(
  "pubsub ordering keys on an on-complete channel: one instance per key at a time, in order",
  async () => {
    await withPubSubEngine(
      "ordered",
      { ackMode: "on-complete" },
      async ({ engine, peer, topics }) => {
        const keys = ["a", "b", "c"];
        const sends: Promise<string>[] = [];
        for (let seq = 0; seq < 6; seq++) {
          for (const key of keys) {
            sends.push(peer.publish(topics.orders, { orderId: `${key}-${seq}`, key }, {}, key));
          }
        }
        await Promise.all(sends);
        await peer.take(topics.read.confirmed, 18);
        await until(async () =>
          (await instanceStatuses(engine)).filter((s) => s === "COMPLETED").length === 18
        );
        const { rows } = await engine.database.query<
          { value: string; created_at: Date; ended_at: Date }
        >(
          `select a.value, i.created_at, i.ended_at from aliases a
         join instances i on i.instance_id = a.instance_id
        where a.name = 'orderId' order by i.created_at`,
        );
        assert.equal(rows.length, 18);
        for (const key of keys) {
          const ofKey = rows.filter((r) => r.value.startsWith(`${key}-`));
          assert.deepEqual(ofKey.map((r) => r.value), [0, 1, 2, 3, 4, 5].map((n) => `${key}-${n}`));
          for (let i = 1; i < ofKey.length; i++) {
            assert.ok(ofKey[i - 1].ended_at <= ofKey[i].created_at, `${ofKey[i].value} waited`);
          }
        }
      },
    );
  },
);

test("pubsub ack-deadline expiry during an on-complete flow: redelivered, not run twice", async () => {
  await withPubSubEngine("expiry", { ackMode: "on-complete" }, async (ctx) => {
    const { engine, peer, topics } = ctx;
    const double = ctx.target.double!;
    await peer.publish(topics.orders, { orderId: "long", hold: true });
    await peer.take(topics.read.confirmed, 1);
    // The lease runs out in the middle of the flow: the service hands the message out again.
    const subscription = `projects/${TEST_PROJECT}/subscriptions/${topics.ordersSub}`;
    assert.equal(double.state.expire(subscription), 1);
    await until(() => Promise.resolve(peer.stats(topics.ordersSub).delivered === 2));
    // The copy joined the running instance; nothing is acknowledged while it runs.
    await until(() => Promise.resolve(peer.stats(topics.ordersSub).outstanding === 1));
    assert.equal(peer.stats(topics.ordersSub).acked, 0);
    await peer.publish(topics.decisions, { orderId: "long", ok: true });
    await until(async () => (await instanceStatuses(engine)).includes("COMPLETED"));
    await until(() => Promise.resolve(peer.stats(topics.ordersSub).acked === 1));
    assert.deepEqual(await instanceStatuses(engine), ["COMPLETED"]);
    const stats = peer.stats(topics.ordersSub);
    assert.equal(stats.pending + stats.outstanding, 0);
    assert.deepEqual(peer.waiting(topics.read.confirmed), []);
    assert.equal(peer.stats(topics.read.confirmed).delivered, 1);
  });
});
