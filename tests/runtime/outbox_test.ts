/**
 * The outbox worker against a real loopback HTTP receiver: delivered rows
 * leave the table, transient failures are retried with the same
 * idempotency key, permanent refusals and exhausted attempts poison the row
 * with an incident, and a row claimed by a replica that died is sent again
 * once its claim expires.
 */
import assert from "node:assert/strict";
import "../../io/transports/mod.ts";
import { createLogger } from "../../engine/core/mod.ts";
import { collectSinks } from "../../engine/core/transport.ts";
import { type Database, ENGINE_MIGRATIONS, migrate } from "../../engine/persistence/mod.ts";
import { OutboxWorker } from "../../engine/runtime/outbox/worker.ts";
import { eachDatabase } from "../support/test_database.ts";

const quiet = createLogger("outbox", { filter: "error", write: () => {} });

async function withReceiver(
  answer: (attempt: number, request: Request) => number,
  fn: (url: string, seen: { key: string | null; body: string }[]) => Promise<void>,
): Promise<void> {
  const seen: { key: string | null; body: string }[] = [];
  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen: () => {} }, async (r) => {
    seen.push({ key: r.headers.get("idempotency-key"), body: await r.text() });
    return new Response(null, { status: answer(seen.length, r) });
  });
  try {
    await fn(`http://127.0.0.1:${server.addr.port}/hook`, seen);
  } finally {
    await server.shutdown();
  }
}

async function enqueue(
  db: Database,
  id: string,
  destination: string,
): Promise<void> {
  await db.query(
    `insert into outbox (outbox_id, destination, headers, body, content_type, idempotency_key)
     values ($1, $2, '{"x-kind":"test"}', $3, 'application/json', $4)`,
    [id, destination, new TextEncoder().encode(`{"id":"${id}"}`), `key-${id}`],
  );
}

function worker(db: Database, maxAttempts?: number) {
  return new OutboxWorker({
    db,
    sinks: collectSinks(),
    logger: quiet,
    owner: "replica-test",
    pollMs: 10,
    maxAttempts,
  });
}

eachDatabase("outbox: delivered rows leave; retries keep the idempotency key", async (db) => {
  await migrate(db, ENGINE_MIGRATIONS);
  await withReceiver((n) => n === 1 ? 503 : 200, async (url, seen) => {
    await enqueue(db, "o-1", `POST ${url}`);
    const w = worker(db);
    assert.equal(await w.drainOnce(), 1);
    const { rows } = await db.query<{ attempts: number; last_error: string }>(
      "select attempts, last_error from outbox",
    );
    assert.deepEqual(rows.map((r) => r.attempts), [1]);
    assert.match(rows[0].last_error, /HTTP 503/);
    // Not due yet: the backoff holds it back.
    assert.equal(await w.drainOnce(), 0);
    await db.query("update outbox set next_attempt_at = now()");
    assert.equal(await w.drainOnce(), 1);
    assert.equal((await db.query("select 1 from outbox")).rowCount, 0);
    assert.deepEqual(seen.map((s) => s.key), ["key-o-1", "key-o-1"]);
    assert.equal(seen[1].body, '{"id":"o-1"}');
  });
});

eachDatabase(
  "outbox: a refusal or the attempt ceiling poisons the row with an incident",
  async (db) => {
    await migrate(db, ENGINE_MIGRATIONS);
    await withReceiver(
      (_n, r) => new URL(r.url).searchParams.has("bad") ? 400 : 500,
      async (url) => {
        await enqueue(db, "o-bad", `${url}?bad`);
        await enqueue(db, "o-flaky", url);
        const w = worker(db, 2);
        await w.drainOnce();
        await db.query("update outbox set next_attempt_at = now()");
        await w.drainOnce();
        const { rows } = await db.query<
          { outbox_id: string; poisoned: boolean; last_error: string }
        >(
          "select outbox_id, poisoned_at is not null as poisoned, last_error from outbox order by outbox_id",
        );
        assert.deepEqual(rows.map((r) => [r.outbox_id, r.poisoned]), [["o-bad", true], [
          "o-flaky",
          true,
        ]]);
        assert.match(rows[0].last_error, /^SUTRA\.OUTBOUND\.DELIVERY_REFUSED/);
        assert.match(rows[1].last_error, /^SUTRA\.OUTBOUND\.DELIVERY_ATTEMPTS_EXHAUSTED/);
        const { rows: incidents } = await db.query<{ code: string }>(
          "select code from incidents order by code",
        );
        assert.deepEqual(incidents.map((i) => i.code), [
          "SUTRA.OUTBOUND.DELIVERY_ATTEMPTS_EXHAUSTED",
          "SUTRA.OUTBOUND.DELIVERY_REFUSED",
        ]);
      },
    );
  },
);

eachDatabase(
  "outbox: a row claimed by a dead replica is sent once its claim expires",
  async (db) => {
    await migrate(db, ENGINE_MIGRATIONS);
    await withReceiver(() => 204, async (url, seen) => {
      await enqueue(db, "o-stale", url);
      await db.query(
        "update outbox set claimed_by = 'dead', claimed_until = now() + interval '1 hour', attempts = 1",
      );
      const w = worker(db);
      assert.equal(await w.drainOnce(), 0);
      await db.query("update outbox set claimed_until = now() - interval '1 second'");
      assert.equal(await w.drainOnce(), 1);
      assert.deepEqual(seen.map((s) => s.key), ["key-o-stale"]);
    });
  },
);

eachDatabase(
  "outbox: an answer that comes after another replica took the row over leaves it alone",
  async (db) => {
    await migrate(db, ENGINE_MIGRATIONS);
    for (const [status, maxAttempts] of [[503, undefined], [400, undefined], [503, 1]] as const) {
      await db.query("delete from outbox");
      // The receiver answers only once the row has been claimed by someone else.
      let takeOver!: () => void;
      const takenOver = new Promise<void>((resolve) => takeOver = resolve);
      let arrived!: () => void;
      const sending = new Promise<void>((resolve) => arrived = resolve);
      const server = Deno.serve(
        { port: 0, hostname: "127.0.0.1", onListen: () => {} },
        async () => {
          arrived();
          await takenOver;
          return new Response(null, { status });
        },
      );
      try {
        await enqueue(db, "o-late", `POST http://127.0.0.1:${server.addr.port}/hook`);
        const slow = new OutboxWorker({
          db,
          sinks: collectSinks(),
          logger: quiet,
          owner: "replica-slow",
          pollMs: 10,
          maxAttempts,
        });
        const sent = slow.drainOnce();
        await sending;
        await db.query("update outbox set claimed_by = 'replica-other'");
        takeOver();
        await sent;
      } finally {
        await server.shutdown();
      }
      const { rows } = await db.query<{ claimed_by: string; poisoned: boolean }>(
        "select claimed_by, poisoned_at is not null as poisoned from outbox",
      );
      assert.deepEqual(rows, [{ claimed_by: "replica-other", poisoned: false }], `HTTP ${status}`);
      assert.equal((await db.query("select 1 from incidents")).rowCount, 0);
    }
  },
);
