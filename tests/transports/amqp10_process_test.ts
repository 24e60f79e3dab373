/**
 * The amqp10 transport with the engine as a real child process (tier 2,
 * RabbitMQ's AMQP 1.0 plugin): an engine killed with SIGKILL in the middle
 * of 1,000 messages and restarted applies each message exactly once and
 * leaves nothing unsettled on the queue.
 */
import assert from "node:assert/strict";
import { bootEngine, until } from "../runtime/support.ts";
import { type EngineChild, spawnEngine } from "../support/engine_process.ts";
import {
  Amqp10Client,
  amqp10Package,
  amqp10Test,
  Broker,
  jsonMessage,
  packageQueues,
  textOf,
  uniquePrefix,
  URL_VARIABLE,
} from "../support/amqp10.ts";
import { type ServerSchema, withServerDatabase } from "../support/test_database.ts";
import type { Database } from "../../engine/persistence/mod.ts";

/** Deploys the package into `target` with a short-lived in-process engine (nothing queued yet). */
async function deploy(target: ServerSchema, url: string, q: string): Promise<void> {
  const engine = await bootEngine({
    url: target.url,
    schema: target.schema,
    env: { [URL_VARIABLE]: url },
  });
  try {
    await engine.deployments.deploy(await amqp10Package({ prefix: q }));
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
      [URL_VARIABLE]: url,
      SUTRA_ADMIN_OIDC_DEV_DISABLED: "true",
      SUTRA_LOG: "info",
      // Captures the killed engine settled but never ran are run again soon.
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

/** Sends `orders` to `address`, a window at a time, each accepted by the broker. */
async function sendAll(client: Amqp10Client, address: string, orders: readonly string[]) {
  for (let from = 0; from < orders.length; from += 100) {
    await Promise.all(
      orders.slice(from, from + 100).map((orderId) =>
        client.send(address, jsonMessage({ orderId }, { message_id: `m-${orderId}` }))
      ),
    );
  }
}

amqp10Test(
  "amqp10: an engine killed mid-stream applies every message exactly once after restart",
  async (url) => {
    const q = uniquePrefix("a10-sigkill");
    const broker = await Broker.open(url);
    const client = await Amqp10Client.open(url);
    const cwd = await Deno.makeTempDir({ prefix: "sutra-a10-" });
    try {
      for (const name of packageQueues(q)) await broker.queue(name);
      await withServerDatabase(async (db, target) => {
        await deploy(target, url, q);
        const orders = Array.from({ length: 1000 }, (_, i) => `o${i}`);
        await sendAll(client, `/queue/${q}.orders`, orders);
        const first = child(target, url, cwd);
        await first.started;
        await until(async () => await instances(db) >= 200, 30_000);
        await stopChild(first, "SIGKILL");
        const killedAt = await instances(db);
        assert.ok(killedAt < 1000, `the kill came after all ${killedAt} messages`);
        const second = child(target, url, cwd);
        try {
          await second.started;
          await until(async () => await instances(db) >= 1000, 90_000);
          await until(async () => await broker.ready(`${q}.orders`) === 0, 30_000);
          await until(async () => (await broker.ready(`${q}.confirmed`)) >= 1000, 90_000);
        } finally {
          await stopChild(second);
        }
        assert.equal(await instances(db), 1000);
        const { rows } = await db.query<{ n: number }>(
          "select count(distinct instance_id)::int as n from instances",
        );
        assert.equal(rows[0].n, 1000);
        // Nothing was left unsettled: the stopped engine's link gave nothing back to the queue.
        assert.equal(await broker.ready(`${q}.orders`), 0);
        assert.equal(await broker.ready(`${q}.dlq`), 0);
        // Every order is confirmed; a send the killed engine made but had not marked sent goes
        // out again, under the same message id.
        const confirmed = await client.take(
          `/queue/${q}.confirmed`,
          await broker.ready(`${q}.confirmed`),
        );
        const ids = new Set(confirmed.map((m) => String(m.message_id)));
        const confirmedOrders = new Set(confirmed.map((m) => JSON.parse(textOf(m)).orderId));
        assert.equal(ids.size, 1000);
        assert.equal(confirmedOrders.size, 1000);
      });
    } finally {
      await client.close();
      await broker.close(packageQueues(q));
      await Deno.remove(cwd, { recursive: true }).catch(() => {});
    }
  },
);
