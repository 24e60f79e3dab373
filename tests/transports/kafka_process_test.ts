/**
 * The kafka transport with the engine as a real child process: killed with
 * SIGKILL in the middle of 1,000 records and restarted, it applies every
 * record exactly once (one instance, one confirmation each) and commits the
 * partition's offset to its end. The broker (the test double, in this
 * process, or a real cluster) is reached by the child over TCP.
 */
import assert from "node:assert/strict";
import { bootEngine, until } from "../runtime/support.ts";
import { type EngineChild, spawnEngine } from "../support/engine_process.ts";
import { type ServerSchema, withServerDatabase } from "../support/test_database.ts";
import type { Database } from "../../engine/persistence/mod.ts";
import {
  fixtureTopics,
  kafkaPackage,
  kafkaTest,
  ORDERS_GROUP,
  uniqueTopic,
} from "./kafka_support.ts";

/** Deploys the fixture into `target` with a short-lived in-process engine. */
async function deploy(target: ServerSchema, brokers: string, t: string): Promise<void> {
  const engine = await bootEngine({
    url: target.url,
    schema: target.schema,
    env: { SUTRA_TEST_KAFKA_BROKERS: brokers },
  });
  try {
    await engine.deployments.deploy(await kafkaPackage({ prefix: t }));
  } finally {
    await engine.stop();
  }
}

function child(target: ServerSchema, brokers: string, cwd: string): EngineChild {
  return spawnEngine({
    cwd,
    env: {
      SUTRA_DATASOURCE_URL: target.url,
      SUTRA_DATASOURCE_SCHEMA: target.schema,
      SUTRA_TEST_KAFKA_BROKERS: brokers,
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

kafkaTest(
  "kafka: an engine killed mid-stream applies every record exactly once after restart",
  async ({ brokers, client }) => {
    const t = uniqueTopic("sigkill");
    await client.topics(fixtureTopics(t), 2);
    const cwd = await Deno.makeTempDir({ prefix: "sutra-kafka-" });
    try {
      await withServerDatabase(async (db, target) => {
        await deploy(target, brokers, t);
        const orders = Array.from({ length: 1000 }, (_, i) => ({
          value: { orderId: `o${i}` },
          key: `o${i}`,
        }));
        for (let i = 0; i < orders.length; i += 250) {
          await client.send(`${t}.orders`, orders.slice(i, i + 250));
        }
        const first = child(target, brokers, cwd);
        await first.started;
        await until(async () => await instances(db) >= 200, 60_000);
        await stopChild(first, "SIGKILL");
        const killedAt = await instances(db);
        assert.ok(killedAt < 1000, `the kill came after all ${killedAt} records`);
        const second = child(target, brokers, cwd);
        try {
          await second.started;
          await until(async () => await instances(db) >= 1000, 120_000);
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
        } finally {
          await stopChild(second);
        }
        const { rows } = await db.query<{ n: number }>(
          "select count(distinct instance_id)::int as n from instances",
        );
        assert.equal(rows[0].n, 1000);
        assert.equal(await instances(db), 1000);
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
      });
    } finally {
      await Deno.remove(cwd, { recursive: true }).catch(() => {});
    }
  },
);
