/**
 * The engine killed between its own commit and its data store's: the
 * step's store writes are replayed by the next engine, exactly once. The
 * money-transfer example runs as a real engine process with its `accounts`
 * store on a fresh database of the tier-2 PostgreSQL server; a deferred
 * trigger the test installs there holds each store COMMIT until the test
 * lets it go, so the kill lands in that window every time:
 *
 * - the store's transaction then dies with the process (the test ends its
 *   session, as the server does for a vanished client): the next engine
 *   replays the transfer — at boot on the embedded database, after
 *   `sutra.datastore.redo-after` on the server;
 * - the store's transaction commits after all (the test lets it go): the
 *   next engine finds the step's mark there and replays nothing.
 */
import assert from "node:assert/strict";
import { type Database, openDatabase } from "../../engine/persistence/mod.ts";
import { spawnEngine } from "../support/engine_process.ts";
import { serverDatabaseUrl, tier2Test, withServerDatabase } from "../support/test_database.ts";
import { sealDir } from "../runtime/support.ts";

const KEY = { "x-api-key": "transfer-demo-key", "content-type": "application/json" };
const GATE = 4242;

const FAST = {
  SUTRA_ADMIN_OIDC_DEV_DISABLED: "true",
  SUTRA_ENGINE_SWEEP_INTERVAL: "PT0.2S",
  SUTRA_DATASTORE_REDO_AFTER: "PT0.5S",
};

async function until(what: string, test: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 300; i++) {
    if (await test()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting until ${what}`);
}

/** A fresh database on the tier-2 server for the store; dropped afterwards. */
async function withStoreDatabase(fn: (url: string, db: Database) => Promise<void>) {
  const server = serverDatabaseUrl()!;
  const name = `sutra_redo_${crypto.randomUUID().replaceAll("-", "").slice(0, 16)}`;
  const admin = await openDatabase(server, { maxConnections: 1 });
  await admin.exec(`create database ${name}`);
  const url = Object.assign(new URL(server), { pathname: `/${name}` }).href;
  const db = await openDatabase(url, { maxConnections: 1 });
  try {
    await fn(url, db);
  } finally {
    await db.close();
    await admin.exec(`drop database if exists ${name} with (force)`);
    await admin.close();
  }
}

async function boot(cwd: string, env: Record<string, string>) {
  const child = spawnEngine({ cwd, env: { ...FAST, ...env } });
  const port = await child.started;
  return { child, url: `http://127.0.0.1:${port}` };
}

async function transfer(url: string, amount: string): Promise<number> {
  const r = await fetch(`${url}/channels/transfer-request`, {
    method: "POST",
    headers: KEY,
    body: JSON.stringify({
      TransferRequest: { FromAccount: "alice", ToAccount: "bob", Amount: amount },
    }),
  }).catch(() => undefined);
  await r?.body?.cancel();
  return r?.status ?? 0;
}

async function balances(store: Database): Promise<number[]> {
  const { rows } = await store.query<{ key: string; value: string }>(
    `select store_key as key, value from sutra_datastore
      where store_name = 'accounts' and store_key in ('alice', 'bob') order by store_key`,
  );
  return rows.map((r) => Number(JSON.parse(r.value).balance));
}

/**
 * Every later store commit waits for the test's lock on {@link GATE}: a
 * deferred trigger takes it (shared) at COMMIT, after the engine's own
 * commit went through.
 */
async function installGate(store: Database): Promise<void> {
  await store.exec(`
    create function sutra_test_gate() returns trigger language plpgsql as $$
    begin perform pg_advisory_xact_lock_shared(${GATE}); return null; end $$;
    create constraint trigger sutra_test_gate after insert or update on sutra_datastore
      deferrable initially deferred for each row execute function sutra_test_gate();
  `);
}

/** Resolves once a session of the store database is held at the gate. */
async function heldAtGate(store: Database): Promise<number> {
  let pid = 0;
  await until("a store commit waits at the gate", async () => {
    const { rows } = await store.query<{ pid: number }>(
      `select pid from pg_stat_activity
        where datname = current_database() and wait_event = 'advisory' and pid <> pg_backend_pid()`,
    );
    pid = rows[0]?.pid ?? 0;
    return pid !== 0;
  });
  return pid;
}

/**
 * Runs one transfer of 7.00 into the window between the engine's commit
 * and the store's, kills the engine there, then either ends the store's
 * session (`lost`) or lets its commit go; resolves to the second engine.
 */
async function crashBetweenCommits(
  cwd: string,
  env: Record<string, string>,
  store: Database,
  storeUrl: string,
  lost: boolean,
  afterCrash?: () => Promise<void>,
) {
  const first = await boot(cwd, { ...env, ACCOUNTS_DB_URL: storeUrl });
  try {
    const deployed = await fetch(`${first.url}/admin/deployments`, {
      method: "POST",
      body: (await sealDir("examples/money-transfer/package")).slice(),
    });
    assert.equal(deployed.status, 200, await deployed.text());
    // The store is opened, migrated and seeded by the first transfer.
    const seeded = await fetch(`${first.url}/channels/transfer-request`, {
      method: "POST",
      headers: KEY,
      body: JSON.stringify({
        TransferRequest: { FromAccount: "alice", ToAccount: "bob", Amount: "1.00" },
      }),
    });
    const answer = await seeded.text();
    assert.equal(seeded.status, 200, answer);
    assert.equal(JSON.parse(answer).status, "ACCEPTED", answer);
    assert.deepEqual(await balances(store), [999, 501], answer);
    await installGate(store);
    const gate = await openDatabase(storeUrl, { maxConnections: 1 });
    try {
      await gate.query("select pg_advisory_lock($1)", [GATE]);
      const answer = transfer(first.url, "7.00");
      const held = await heldAtGate(store);
      first.child.kill("SIGKILL");
      await first.child.exited;
      assert.equal(await answer, 0, "the kill came before any answer");
      if (lost) await store.query("select pg_terminate_backend($1)", [held]);
    } finally {
      await gate.close(); // releases the gate: a commit still waiting there goes through
    }
    await store.exec(`drop trigger sutra_test_gate on sutra_datastore;
      drop function sutra_test_gate();`);
    await until("the held session ended", async () => {
      const { rows } = await store.query<{ n: number }>(
        `select count(*)::int as n from pg_stat_activity
          where datname = current_database() and pid <> pg_backend_pid() and state <> 'idle'`,
      );
      return rows[0].n === 0;
    });
    assert.deepEqual(await balances(store), lost ? [999, 501] : [992, 508]);
    await afterCrash?.();
  } catch (error) {
    first.child.kill("SIGKILL");
    await first.child.exited;
    throw error;
  }
  return await boot(cwd, { ...env, ACCOUNTS_DB_URL: storeUrl });
}

async function incidents(url: string): Promise<unknown[]> {
  const r = await fetch(`${url}/admin/incidents?kind=store-write`);
  assert.equal(r.status, 200);
  return (await r.json()).incidents;
}

for (const lost of [true, false]) {
  const what = lost ? "lost with the process: replayed" : "committed after all: left alone";
  tier2Test(
    `crash between the commits, embedded engine, store writes ${what}`,
    () =>
      withStoreDatabase(async (storeUrl, store) => {
        const cwd = await Deno.makeTempDir({ prefix: "sutra-redo-" });
        try {
          const second = await crashBetweenCommits(cwd, {}, store, storeUrl, lost);
          try {
            // The embedded engine replays at boot, before it takes any message.
            assert.deepEqual(await balances(store), [992, 508]);
            const replayed = second.child.records.filter((r) =>
              r.code === "SUTRA.RUNTIME.DATASTORE.REDONE"
            );
            assert.equal(replayed.length, lost ? 1 : 0, JSON.stringify(replayed));
            assert.deepEqual(await incidents(second.url), []);
            // And the next transfer finds the ledger as the last one left it.
            assert.equal(await transfer(second.url, "2.00"), 200);
            assert.deepEqual(await balances(store), [990, 510]);
          } finally {
            second.child.kill("SIGTERM");
            await second.child.exited;
          }
        } finally {
          await Deno.remove(cwd, { recursive: true });
        }
      }),
  );
}

tier2Test(
  "crash between the commits, server engine: a replica replays after redo-after",
  () =>
    withStoreDatabase((storeUrl, store) =>
      withServerDatabase(async (db, target) => {
        const cwd = await Deno.makeTempDir({ prefix: "sutra-redo-" });
        const env = { SUTRA_DATASOURCE_URL: target.url, SUTRA_DATASOURCE_SCHEMA: target.schema };
        try {
          const second = await crashBetweenCommits(cwd, env, store, storeUrl, true);
          try {
            await until("the transfer is replayed", async () => {
              const { rows } = await db.query<{ n: number }>(
                "select count(*)::int as n from store_redo",
              );
              return rows[0].n === 0;
            });
            assert.deepEqual(await balances(store), [992, 508]);
            assert.deepEqual(await incidents(second.url), []);
          } finally {
            second.child.kill("SIGTERM");
            await second.child.exited;
          }
        } finally {
          await Deno.remove(cwd, { recursive: true });
        }
      })
    ),
);

tier2Test(
  "a key written between the crash and the replay: nothing replayed, an incident",
  () =>
    withStoreDatabase(async (storeUrl, store) => {
      const cwd = await Deno.makeTempDir({ prefix: "sutra-redo-" });
      // Someone else moves alice's balance while no engine runs.
      const meddle = () =>
        store.exec(`update sutra_datastore set value = '{"balance":500,"frozen":false}',
        rev = rev + 1 where store_name = 'accounts' and store_key = 'alice'`);
      try {
        const second = await crashBetweenCommits(cwd, {}, store, storeUrl, true, meddle);
        try {
          assert.deepEqual(await balances(store), [500, 501], "bob's half is not replayed alone");
          const [incident] = await incidents(second.url) as Record<string, string>[];
          assert.equal(incident.code, "SUTRA.RUNTIME.DATASTORE.REDO_DIVERGED");
          assert.match(incident.message, /^data store 'accounts': key 'alice' is no longer at/);
          assert.ok(incident.instanceId);
          // Settled by hand, the operator resolves it: it is gone, and a second resolve is a 404.
          const resolve = () =>
            fetch(`${second.url}/admin/incidents/store-write/${incident.id}`, { method: "DELETE" });
          const resolved = await resolve();
          assert.deepEqual(await resolved.json(), { resolved: incident.id });
          assert.deepEqual(await incidents(second.url), []);
          const again = await resolve();
          assert.equal(again.status, 404);
          assert.equal((await again.json()).diagnostics[0].code, "SUTRA.ADMIN.INCIDENT.UNKNOWN");
        } finally {
          second.child.kill("SIGTERM");
          await second.child.exited;
        }
      } finally {
        await Deno.remove(cwd, { recursive: true });
      }
    }),
);
