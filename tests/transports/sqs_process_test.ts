/**
 * The sqs transport with the engine as a real child process, against the
 * fauxqs emulator: an engine killed with SIGKILL in the middle of 1,000
 * messages and restarted applies each message exactly once and leaves
 * nothing undeleted. The messages the killed engine held come back when
 * their visibility timeout runs out; inbox dedup answers the ones whose
 * step had committed.
 */
import assert from "node:assert/strict";
import { bootEngine, until } from "../runtime/support.ts";
import { type EngineChild, spawnEngine } from "../support/engine_process.ts";
import {
  fileFauxqs,
  fixtureQueues,
  ordersQueue,
  sqsEnv,
  sqsPackage,
  SqsQueues,
  sqsTest,
  uniquePrefix,
} from "../support/sqs.ts";
import { type ServerSchema, withServerDatabase } from "../support/test_database.ts";
import type { Database } from "../../engine/persistence/mod.ts";

const sqs = await fileFauxqs();
const COUNT = 1000;

function child(target: ServerSchema, env: Record<string, string>, cwd: string): EngineChild {
  return spawnEngine({
    cwd,
    env: {
      ...env,
      SUTRA_DATASOURCE_URL: target.url,
      SUTRA_DATASOURCE_SCHEMA: target.schema,
      SUTRA_ADMIN_OIDC_DEV_DISABLED: "true",
      SUTRA_LOG: "info",
      // Captures the killed engine made but never ran are run again soon.
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

sqsTest(
  "sqs: an engine killed mid-stream applies every message exactly once after restart",
  sqs,
  async (sqs) => {
    const prefix = uniquePrefix("sigkill");
    const layout = { prefix, visibility: "PT5S", prefetch: 32 } as const;
    const queues = new SqsQueues(sqs.endpoint);
    const names = fixtureQueues(layout);
    const orders = ordersQueue(layout);
    const env = sqsEnv(sqs);
    const cwd = await Deno.makeTempDir({ prefix: "sutra-sqs-" });
    try {
      await queues.create(...names);
      await withServerDatabase(async (db, target) => {
        // Deployed by a short-lived in-process engine before anything is queued.
        const deployer = await bootEngine({ url: target.url, schema: target.schema, env });
        try {
          await deployer.deployments.deploy(await sqsPackage(layout));
        } finally {
          await deployer.stop();
        }
        await queues.sendMany(
          orders,
          Array.from({ length: COUNT }, (_, i) => ({ body: { orderId: `o${i}` } })),
        );
        const first = child(target, env, cwd);
        await first.started;
        await until(async () => await instances(db) >= 200, 60_000);
        await stopChild(first, "SIGKILL");
        const killedAt = await instances(db);
        assert.ok(killedAt < COUNT, `the kill came after all ${killedAt} messages`);
        const second = child(target, env, cwd);
        const confirmedKeys = new Set<string>();
        const confirmedOrders = new Set<string>();
        try {
          await second.started;
          await until(async () => await instances(db) >= COUNT, 120_000);
          // Every order is deleted: none left visible, none held.
          await until(async () => {
            const depth = await queues.depth(orders);
            return depth.visible === 0 && depth.inFlight === 0;
          }, 60_000);
          // Every order is confirmed; a copy re-sent after the kill carries the same key.
          await until(async () => {
            for (const m of await queues.take(`${prefix}-confirmed`)) {
              confirmedKeys.add(m.attributes["idempotency-key"]);
              confirmedOrders.add(JSON.parse(m.body).orderId);
            }
            return confirmedKeys.size >= COUNT;
          }, 60_000);
        } finally {
          await stopChild(second);
        }
        assert.equal(await instances(db), COUNT);
        const { rows } = await db.query<{ n: number }>(
          "select count(distinct instance_id)::int as n from instances",
        );
        assert.equal(rows[0].n, COUNT);
        assert.deepEqual(await queues.take(orders), []);
        assert.deepEqual(await queues.take(`${prefix}-orders-dlq`), []);
        assert.equal(confirmedKeys.size, COUNT);
        assert.equal(confirmedOrders.size, COUNT);
      });
    } finally {
      await queues.close(names);
      await Deno.remove(cwd, { recursive: true }).catch(() => {});
    }
  },
);
