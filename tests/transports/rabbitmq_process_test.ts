/**
 * The rabbitmq transport with engines as real child processes (tier 2):
 * an engine killed with SIGKILL in the middle of 1,000 messages and
 * restarted applies each message exactly once and leaves nothing
 * unacknowledged; two engines on one database share a `singleton: true`
 * channel with one consumer at a time, and the survivor takes over when the
 * holder is killed.
 */
import assert from "node:assert/strict";
import { bootEngine, until } from "../runtime/support.ts";
import { type EngineChild, spawnEngine } from "../support/engine_process.ts";
import {
  Broker,
  consumersOf,
  fixtureQueues,
  rabbitPackage,
  rabbitTest,
  uniquePrefix,
} from "../support/rabbitmq.ts";
import { type ServerSchema, withServerDatabase } from "../support/test_database.ts";
import type { Database } from "../../engine/persistence/mod.ts";

/** Deploys the fixture into `target` with a short-lived in-process engine (nothing queued yet). */
async function deploy(
  target: ServerSchema,
  url: string,
  q: string,
  singleton: boolean,
): Promise<void> {
  const engine = await bootEngine({
    url: target.url,
    schema: target.schema,
    env: { SUTRA_TEST_RABBITMQ_URL: url },
  });
  try {
    await engine.deployments.deploy(await rabbitPackage({ prefix: q, singleton }));
  } finally {
    await engine.stop();
  }
}

function child(target: ServerSchema, url: string, cwd: string): EngineChild {
  return spawnEngine({
    cwd,
    env: {
      SUTRA_DATASOURCE_URL: target.url,
      SUTRA_DATASOURCE_SCHEMA: target.schema,
      SUTRA_TEST_RABBITMQ_URL: url,
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

rabbitTest(
  "rabbitmq: an engine killed mid-stream applies every message exactly once after restart",
  async (url) => {
    const q = uniquePrefix("sigkill");
    const broker = await Broker.open(url);
    const cwd = await Deno.makeTempDir({ prefix: "sutra-rq-" });
    try {
      for (const name of fixtureQueues(q)) await broker.queue(name);
      await withServerDatabase(async (db, target) => {
        await deploy(target, url, q, false);
        const orders = Array.from({ length: 1000 }, (_, i) => ({ orderId: `o${i}` }));
        await broker.sendMany(`${q}.orders`, orders, "m-");
        const first = child(target, url, cwd);
        await first.started;
        await until(async () => await instances(db) >= 200, 30_000);
        await stopChild(first, "SIGKILL");
        const killedAt = await instances(db);
        assert.ok(killedAt < 1000, `the kill came after all ${killedAt} messages`);
        const second = child(target, url, cwd);
        const confirmedIds = new Set<string>();
        const confirmedOrders = new Set<string>();
        try {
          await second.started;
          await until(async () => await instances(db) >= 1000, 90_000);
          await until(async () => await broker.ready(`${q}.orders`) === 0, 30_000);
          // Every order is confirmed; a copy re-sent after the kill carries the same message-id.
          await until(async () => {
            for (const m of await broker.take(`${q}.confirmed`)) {
              confirmedIds.add(String(m.properties.messageId));
              confirmedOrders.add(JSON.parse(m.body).orderId);
            }
            return confirmedIds.size >= 1000;
          }, 90_000);
        } finally {
          await stopChild(second);
        }
        assert.equal(await instances(db), 1000);
        const { rows } = await db.query<{ n: number }>(
          "select count(distinct instance_id)::int as n from instances",
        );
        assert.equal(rows[0].n, 1000);
        // Nothing was left unacknowledged: the stopped engine's connection returned nothing.
        assert.equal(await broker.ready(`${q}.orders`), 0);
        assert.equal(await broker.ready(`${q}.orders.dlq`), 0);
        assert.equal(confirmedIds.size, 1000);
        assert.equal(confirmedOrders.size, 1000);
      });
    } finally {
      await broker.close(fixtureQueues(q));
      await Deno.remove(cwd, { recursive: true }).catch(() => {});
    }
  },
);

rabbitTest(
  "rabbitmq singleton: one consumer across two engines; the survivor takes over",
  async (url) => {
    const q = uniquePrefix("singleton");
    const broker = await Broker.open(url);
    const cwd = await Deno.makeTempDir({ prefix: "sutra-rq-" });
    const engines: EngineChild[] = [];
    try {
      for (const name of fixtureQueues(q)) await broker.queue(name);
      await withServerDatabase(async (db, target) => {
        await deploy(target, url, q, true);
        engines.push(child(target, url, cwd), child(target, url, cwd));
        await Promise.all(engines.map((e) => e.started));
        const holderOf = () =>
          engines.findIndex((e) =>
            e.records.some((r) => String(r.message).startsWith("singleton lease taken"))
          );
        await until(() => Promise.resolve(holderOf() >= 0), 30_000);
        const holder = holderOf();
        // The lease is logged as taken just before the consumer registers with the broker, and a
        // killed holder's consumer disappears once the broker notices the dead connection.
        await until(async () => (await consumersOf(`${q}.orders`)).length === 1, 30_000);
        await broker.send(`${q}.orders`, { orderId: "before" }, { messageId: "m-before" });
        await broker.await(`${q}.confirmed`, 1);
        await stopChild(engines[holder], "SIGKILL");
        const survivor = engines[1 - holder];
        await until(() =>
          Promise.resolve(
            survivor.records.some((r) => String(r.message).startsWith("singleton lease taken")),
          ), 30_000);
        // The lease is logged as taken just before the consumer registers with the broker, and a
        // killed holder's consumer disappears once the broker notices the dead connection.
        await until(async () => (await consumersOf(`${q}.orders`)).length === 1, 30_000);
        await broker.send(`${q}.orders`, { orderId: "after" }, { messageId: "m-after" });
        // The holder may have died between sending the first confirmation and marking it sent:
        // the survivor then sends that one again too (same message id). Nothing else comes.
        const seen: string[] = [];
        await until(async () => {
          seen.push(
            ...(await broker.take(`${q}.confirmed`)).map((m) => JSON.parse(m.body).orderId),
          );
          return seen.includes("after");
        }, 30_000);
        assert.ok(seen.every((o) => o === "before" || o === "after"), seen.join(", "));
        assert.equal(await instances(db), 2);
        await stopChild(survivor);
      });
    } finally {
      for (const e of engines) await stopChild(e).catch(() => {});
      await broker.close(fixtureQueues(q));
      await Deno.remove(cwd, { recursive: true }).catch(() => {});
    }
  },
);
