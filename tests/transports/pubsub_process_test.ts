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
import { bootEngine, until } from "../runtime/support.ts";
import { type EngineChild, spawnEngine } from "../support/engine_process.ts";
import { type ServerSchema, tier2Test, withServerDatabase } from "../support/test_database.ts";
import type { Database } from "../../engine/persistence/mod.ts";
import {
  fixtureTopics,
  prepareTopics,
  pubsubEnv,
  pubsubPackage,
} from "../support/pubsub_server/fixture.ts";
import {
  openPubSub,
  PubSubPeer,
  type PubSubTarget,
  uniqueName,
} from "../support/pubsub_server/mod.ts";

/** Deploys the fixture into `db` with a short-lived in-process engine (nothing published yet). */
async function deploy(db: ServerSchema, target: PubSubTarget, prefix: string): Promise<void> {
  const engine = await bootEngine({ url: db.url, schema: db.schema, env: pubsubEnv(target) });
  try {
    await engine.deployments.deploy(await pubsubPackage({ prefix }));
  } finally {
    await engine.stop();
  }
}

function child(db: ServerSchema, target: PubSubTarget, cwd: string): EngineChild {
  return spawnEngine({
    cwd,
    env: {
      ...pubsubEnv(target),
      SUTRA_DATASOURCE_URL: db.url,
      SUTRA_DATASOURCE_SCHEMA: db.schema,
      SUTRA_ADMIN_OIDC_DEV_DISABLED: "true",
      SUTRA_LOG: "info",
      // Captures the killed engine acknowledged but never ran are run again soon.
      SUTRA_INBOX_REDRIVE_AFTER: "PT1S",
      SUTRA_ENGINE_SWEEP_INTERVAL: "PT0.5S",
      // Sends the killed engine had claimed are taken over soon, not after the default minute.
      SUTRA_OUTBOX_CLAIM_TIMEOUT: "PT2S",
    },
  });
}

async function instances(db: Database): Promise<number> {
  const { rows } = await db.query<{ n: number }>("select count(*)::int as n from instances");
  return rows[0].n;
}

async function stopChild(engine: EngineChild, signal: Deno.Signal = "SIGTERM"): Promise<void> {
  try {
    engine.kill(signal);
  } catch {
    // already gone
  }
  await engine.exited;
}

tier2Test(
  "pubsub: an engine killed mid-stream applies every message exactly once after restart",
  async () => {
    const prefix = uniqueName("sigkill");
    const topics = fixtureTopics(prefix);
    const target = await openPubSub();
    const peer = new PubSubPeer(target);
    const cwd = await Deno.makeTempDir({ prefix: "sutra-ps-" });
    try {
      await prepareTopics(peer, prefix);
      await withServerDatabase(async (db, schema) => {
        await deploy(schema, target, prefix);
        const orders = Array.from({ length: 1000 }, (_, i) => ({ orderId: `o${i}` }));
        await peer.publishMany(topics.orders, orders);
        const first = child(schema, target, cwd);
        await first.started;
        await until(async () => await instances(db) >= 200, 30_000);
        await stopChild(first, "SIGKILL");
        const killedAt = await instances(db);
        assert.ok(killedAt < 1000, `the kill came after all ${killedAt} messages`);
        const second = child(schema, target, cwd);
        const keys = new Set<string>();
        const confirmedOrders = new Set<string>();
        try {
          await second.started;
          await until(async () => await instances(db) >= 1000, 90_000);
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
        } finally {
          await stopChild(second);
        }
        assert.equal(await instances(db), 1000);
        const { rows } = await db.query<{ n: number }>(
          "select count(distinct value)::int as n from aliases where name = 'orderId'",
        );
        assert.equal(rows[0].n, 1000);
        assert.equal(keys.size, 1000);
        assert.equal(confirmedOrders.size, 1000);
        if (target.double) assert.equal(peer.stats(topics.ordersSub).deadLettered, 0);
      });
    } finally {
      await peer.close();
      await target.close();
      await Deno.remove(cwd, { recursive: true }).catch(() => {});
    }
  },
);
