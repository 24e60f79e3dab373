/**
 * The pubsub transport with the engine as a real child process (tier 2,
 * the Pub/Sub test double in this process or the emulator named by
 * `SUTRA_TEST_PUBSUB_EMULATOR_HOST`): an engine killed with SIGKILL in the
 * middle of 1,000 messages and restarted applies each message exactly once
 * — the messages it held come back when their leases run out and inbox
 * dedup answers the ones it had already captured — and leaves nothing
 * unacknowledged.
 */
import assert from "node:assert/strict";
import { until } from "../runtime/support.ts";
import { killMidStream, singletonTakeover } from "../support/broker_kill.ts";
import { tier2Test } from "../support/test_database.ts";
import {
  fixtureTopics,
  prepareTopics,
  pubsubEnv,
  pubsubPackage,
} from "../support/pubsub_server/fixture.ts";
import { openPubSub, PubSubPeer, uniqueName } from "../support/pubsub_server/mod.ts";

tier2Test(
  "pubsub: an engine killed mid-stream applies every message exactly once after restart",
  async () => {
    const prefix = uniqueName("sigkill");
    const topics = fixtureTopics(prefix);
    const target = await openPubSub();
    const peer = new PubSubPeer(target);
    const keys = new Set<string>();
    const confirmedOrders = new Set<string>();
    try {
      await prepareTopics(peer, prefix);
      await killMidStream({
        env: pubsubEnv(target),
        package: () => pubsubPackage({ prefix }),
        send: (ids) => peer.publishMany(topics.orders, ids.map((orderId) => ({ orderId }))),
        settle: async () => {
          // Every order is confirmed; a copy re-sent after the kill carries the same key.
          await until(() => {
            for (const m of peer.waiting(topics.read.confirmed)) {
              keys.add(m.attributes["sutra-idempotency-key"]);
              confirmedOrders.add(JSON.parse(m.body).orderId);
            }
            return Promise.resolve(keys.size >= 1000);
          }, 90_000);
          if (target.double) {
            // Nothing is left unacknowledged (leases the killed engine held ran out, came back,
            // and were acknowledged).
            await until(() => {
              const s = peer.stats(topics.ordersSub);
              return Promise.resolve(s.pending + s.outstanding === 0);
            }, 60_000);
          }
        },
        verify: async (db) => {
          const { rows } = await db.query<{ n: number }>(
            "select count(distinct value)::int as n from aliases where name = 'orderId'",
          );
          assert.equal(rows[0].n, 1000);
          assert.equal(keys.size, 1000);
          assert.equal(confirmedOrders.size, 1000);
          if (target.double) assert.equal(peer.stats(topics.ordersSub).deadLettered, 0);
        },
      });
    } finally {
      await peer.close();
      await target.close();
    }
  },
);

tier2Test(
  "pubsub singleton: one consumer across two engines; the survivor takes over",
  async () => {
    const prefix = uniqueName("singleton");
    const topics = fixtureTopics(prefix);
    const target = await openPubSub();
    const peer = new PubSubPeer(target);
    try {
      await prepareTopics(peer, prefix);
      await singletonTakeover({
        env: pubsubEnv(target),
        package: () => pubsubPackage({ prefix, singleton: true }),
        send: (orderId) => peer.publish(topics.orders, { orderId }),
        confirmed: () =>
          Promise.resolve(
            peer.waiting(topics.read.confirmed).map((m) => JSON.parse(m.body).orderId),
          ),
      });
    } finally {
      await peer.close();
      await target.close();
    }
  },
);
