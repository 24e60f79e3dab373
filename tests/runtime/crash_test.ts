/**
 * Crash tests on the tier-2 PostgreSQL server with real engine processes
 * killed with SIGKILL: nothing acknowledged is lost, nothing runs twice, and
 * an outbound message interrupted mid-send is sent again with the same
 * idempotency key.
 */
import assert from "node:assert/strict";
import { spawnEngine } from "../support/engine_process.ts";
import { tier2Test, withServerDatabase } from "../support/test_database.ts";
import { sealDir } from "./support.ts";

const FAST = {
  SUTRA_ADMIN_OIDC_DEV_DISABLED: "true",
  SUTRA_ENGINE_SWEEP_INTERVAL: "PT0.2S",
  SUTRA_INBOX_REDRIVE_AFTER: "PT0.5S",
  SUTRA_OUTBOX_CLAIM_TIMEOUT: "PT1S",
  SUTRA_OUTBOX_POLL_INTERVAL: "PT0.1S",
};

async function until(what: string, test: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (await test()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting until ${what}`);
}

async function boot(env: Record<string, string>, dir: string) {
  const child = spawnEngine({ cwd: dir, env: { ...FAST, ...env } });
  const port = await child.started;
  return { child, url: `http://127.0.0.1:${port}` };
}

function send(url: string, channel: string, body: unknown): Promise<number> {
  return fetch(`${url}/channels/${channel}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  }).then(async (r) => {
    await r.body?.cancel();
    return r.status;
  }, () => 0);
}

tier2Test(
  "crash: SIGKILL after acknowledgements loses no message and runs none twice",
  () =>
    withServerDatabase(async (db, target) => {
      const dir = await Deno.makeTempDir({ prefix: "sutra-crash-" });
      const env = { SUTRA_DATASOURCE_URL: target.url, SUTRA_DATASOURCE_SCHEMA: target.schema };
      try {
        const first = await boot(env, dir);
        const deployed = await fetch(`${first.url}/admin/deployments`, {
          method: "POST",
          body: (await sealDir("tests/fixtures/runtime/typed_hold")).slice(),
        });
        assert.equal(deployed.status, 200, await deployed.text());
        const sync = (i: number) => ({
          ref: `S-${i}`,
          amount: 1,
          approved: true,
          tags: [],
          due: "2026-01-01",
        });
        // on-persist and on-complete messages in flight together; the kill lands mid-stream.
        const asyncAnswers = Array.from(
          { length: 20 },
          (_, i) => send(first.url, "typed-async", { ref: `A-${i}` }),
        );
        const syncAnswers = Array.from(
          { length: 20 },
          (_, i) => send(first.url, "typed-request", sync(i)),
        );
        // Killed once a capture was acknowledged: captures and steps commit on separate lines,
        // so an on-complete answer may come first, and a kill then could leave no 202 to check.
        await Promise.race(asyncAnswers);
        first.child.kill("SIGKILL");
        await first.child.exited;
        const asyncStatus = await Promise.all(asyncAnswers);
        const syncStatus = await Promise.all(syncAnswers);

        const second = await boot(env, dir);
        try {
          // Every 202 becomes exactly one instance, whether it ran before the kill or after.
          const acknowledged = asyncStatus.flatMap((s, i) => s === 202 ? [`A-${i}`] : []);
          assert.ok(acknowledged.length > 0);
          await until("every acknowledged capture has run", async () => {
            const { rows } = await db.query<{ n: number }>(
              "select count(*)::int as n from inbox where state = 'pending'",
            );
            return rows[0].n === 0;
          });
          const { rows } = await db.query<{ value: string; n: number }>(
            `select value, count(*)::int as n from aliases where name = 'asyncRef' group by value`,
          );
          const counts = new Map(rows.map((r) => [r.value, r.n]));
          for (const ref of acknowledged) assert.equal(counts.get(ref), 1, ref);
          assert.ok([...counts.values()].every((n) => n === 1));

          // Every 200 was committed; an unanswered request is either absent or was committed
          // with its reply lost — retrying it then meets the unique alias, never a second instance.
          for (let i = 0; i < 20; i++) {
            const { rows: held } = await db.query<{ n: number }>(
              "select count(*)::int as n from aliases where name = 'ref' and value = $1",
              [`S-${i}`],
            );
            if (syncStatus[i] === 200) assert.equal(held[0].n, 1);
            const retried = await send(second.url, "typed-request", sync(i));
            assert.equal(retried, held[0].n === 1 ? 409 : 200, `S-${i}`);
          }
        } finally {
          second.child.kill("SIGTERM");
          await second.child.exited;
        }
      } finally {
        await Deno.remove(dir, { recursive: true });
      }
    }),
);

tier2Test(
  "crash: SIGKILL mid outbox send; the next engine sends it again with the same key",
  () =>
    withServerDatabase(async (db, target) => {
      const dir = await Deno.makeTempDir({ prefix: "sutra-crash-" });
      const env = { SUTRA_DATASOURCE_URL: target.url, SUTRA_DATASOURCE_SCHEMA: target.schema };
      const keys: (string | null)[] = [];
      let hang = true;
      let sending!: () => void;
      const firstAttempt = new Promise<void>((resolve) => sending = resolve);
      const receiver = Deno.serve(
        { port: 0, hostname: "127.0.0.1", onListen: () => {} },
        async (r) => {
          keys.push(r.headers.get("idempotency-key"));
          await r.body?.cancel();
          if (hang) {
            sending();
            // Holds the answer back: the sender is killed while it waits.
            await new Promise((done) => setTimeout(done, 1_500));
          }
          return new Response(null, { status: 204 });
        },
      );
      try {
        const first = await boot(env, dir);
        // What a committed step leaves for the worker: one outbox row.
        await db.query(
          `insert into outbox (outbox_id, destination, headers, body, content_type, idempotency_key)
         values ('o-crash', $1, '{}', $2, 'application/json', 'key-crash')`,
          [`http://127.0.0.1:${receiver.addr.port}/hook`, new TextEncoder().encode("{}")],
        );
        await firstAttempt;
        first.child.kill("SIGKILL");
        await first.child.exited;
        hang = false;
        const second = await boot(env, dir);
        try {
          await until(
            "the row is delivered",
            async () =>
              (await db.query("select 1 from outbox where outbox_id = 'o-crash'")).rowCount === 0,
          );
          assert.ok(keys.length >= 2, JSON.stringify(keys));
          assert.ok(keys.every((k) => k === "key-crash"), JSON.stringify(keys));
        } finally {
          second.child.kill("SIGTERM");
          await second.child.exited;
        }
      } finally {
        await receiver.shutdown();
        await Deno.remove(dir, { recursive: true });
      }
    }),
);
