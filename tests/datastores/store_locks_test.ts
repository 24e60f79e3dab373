/**
 * Data-store lock waits and deadlocks, against a real engine over HTTP with
 * the money-transfer example, its `accounts` store on its own database of
 * the tier-2 PostgreSQL server (row-lock contention is only real on a
 * server) and the engine in a schema of the same server:
 *
 * - a transfer blocked on a row lock the test holds does not hold the one
 *   execution lane: another tenant's deployment is answered meanwhile;
 * - transfers in both directions between the same two accounts run
 *   together without a FAILED instance (the flow locks in key order);
 * - a deadlock the test forces on a transfer is retried and the transfer
 *   completes; a lock wait that times out on every attempt is refused and
 *   says nothing was written.
 */
import "../../io/datastores/mod.ts";
import assert from "node:assert/strict";
import { configKeys, createLogger, loadConfig } from "../../engine/core/mod.ts";
import { openDatabase } from "../../engine/persistence/mod.ts";
import { type RunningEngine, startEngine } from "../../engine/runtime/mod.ts";
import { serverDatabaseUrl, tier2Test, withServerDatabase } from "../support/test_database.ts";
import { type Answer, codeOf, post, sealDir } from "../runtime/support.ts";

const KEY = { "x-api-key": "transfer-demo-key" };

/** Runs `fn` with the URL of a fresh database on the tier-2 server, dropped afterwards. */
async function withStoreDatabase(
  settings: Record<string, string>,
  fn: (url: string) => Promise<void>,
): Promise<void> {
  const server = serverDatabaseUrl()!;
  const name = `sutra_locks_${crypto.randomUUID().replaceAll("-", "").slice(0, 16)}`;
  const admin = await openDatabase(server, { maxConnections: 1 });
  try {
    await admin.exec(`create database ${name}`);
    for (const [key, value] of Object.entries(settings)) {
      await admin.exec(`alter database ${name} set ${key} = '${value}'`);
    }
    await fn(Object.assign(new URL(server), { pathname: `/${name}` }).href);
  } finally {
    await admin.exec(`drop database if exists ${name} with (force)`);
    await admin.close();
  }
}

/**
 * An engine on the server with money-transfer (and `also`) deployed, its
 * store at `storeUrl` (a database with the session `settings` given).
 */
function withTransfers(
  options: { env?: Record<string, string>; also?: string[]; settings?: Record<string, string> },
  fn: (engine: RunningEngine, storeUrl: string, log: string[]) => Promise<void>,
): Promise<void> {
  return withStoreDatabase(
    options.settings ?? {},
    (storeUrl) =>
      withServerDatabase(async (_db, target) => {
        const env: Record<string, string> = {
          SUTRA_HTTP_PORT: "0",
          SUTRA_HTTP_HOST: "127.0.0.1",
          SUTRA_DATASOURCE_URL: target.url,
          SUTRA_DATASOURCE_SCHEMA: target.schema,
          SUTRA_ADMIN_OIDC_DEV_DISABLED: "true",
          ACCOUNTS_DB_URL: storeUrl,
          ...options.env,
        };
        const config = await loadConfig({
          env,
          cwd: "/nonexistent-sutra-dir",
          registry: configKeys,
        });
        // The engine's error lines, where a 500's detail goes.
        const log: string[] = [];
        const logger = createLogger("engine", { filter: "error", write: (line) => log.push(line) });
        const engine = await startEngine({ config, logger, env });
        try {
          await engine.deployments.deploy(await sealDir("examples/money-transfer/package"));
          for (const dir of options.also ?? []) await engine.deployments.deploy(await sealDir(dir));
          await fn(engine, storeUrl, log);
        } finally {
          await engine.stop();
        }
      }),
  );
}

function transfer(engine: RunningEngine, from: string, to: string, amount: string) {
  return post(engine, "/channels/transfer-request", {
    TransferRequest: { FromAccount: from, ToAccount: to, Amount: amount },
  }, KEY);
}

async function balanceOf(engine: RunningEngine, account: string): Promise<number> {
  const answer = await post(engine, "/channels/balance-query", {
    BalanceQuery: { Account: account },
  }, KEY);
  assert.equal(answer.status, 200, JSON.stringify(answer.body));
  return Number(answer.body.balance);
}

async function failedInstances(engine: RunningEngine): Promise<number> {
  const { rows } = await engine.database.query<{ n: number }>(
    "select count(*)::int as n from instances where status = 'FAILED'",
  );
  return rows[0].n;
}

/**
 * A transaction of the test's own on the store database, left open until
 * {@link HeldTransaction.end}: what it locks stays locked meanwhile.
 */
interface HeldTransaction {
  /** Runs a statement inside the open transaction. */
  query(sql: string, params?: unknown[]): Promise<unknown>;
  /** Rolls the transaction back (releasing its locks) and closes its connection. */
  end(): Promise<void>;
}

async function holdTransaction(storeUrl: string, setup: string[] = []): Promise<HeldTransaction> {
  const db = await openDatabase(storeUrl, { maxConnections: 1 });
  let query!: (sql: string, params?: unknown[]) => Promise<unknown>;
  let finish!: () => void;
  const ended = new Promise<void>((resolve) => finish = resolve);
  const opened = Promise.withResolvers<void>();
  const done = db.transaction(async (tx) => {
    for (const sql of setup) await tx.exec(sql);
    query = (sql, params = []) => tx.query(sql, params);
    opened.resolve();
    await ended;
    throw new Error("rolled back by the test");
  }).catch(() => {});
  await opened.promise;
  return {
    query: (sql, params) => query(sql, params),
    async end() {
      finish();
      await done;
      await db.close();
    },
  };
}

const LOCK_ROW = "select value from sutra_datastore where store_name = 'accounts' " +
  "and store_key = $1 for update";

/** Resolves once `n` sessions on the store database wait for a row lock. */
async function lockWaiters(storeUrl: string, n: number): Promise<void> {
  const db = await openDatabase(storeUrl, { maxConnections: 1 });
  try {
    for (;;) {
      const { rows } = await db.query<{ n: number }>(
        "select count(*)::int as n from pg_stat_activity " +
          "where datname = current_database() and wait_event_type = 'Lock'",
      );
      if (rows[0].n >= n) return;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  } finally {
    await db.close();
  }
}

tier2Test("a step waiting on a store row lock leaves the lane to other work", () =>
  withTransfers(
    { env: { SUTRA_ENGINE_SHARDS: "1" }, also: ["examples/quote-reply/package"] },
    async (engine, storeUrl) => {
      // The store is opened (and migrated) before anything is locked.
      assert.equal(await balanceOf(engine, "alice"), 1000);
      const holder = await holdTransaction(storeUrl);
      await holder.query(LOCK_ROW, ["alice"]);
      const events: string[] = [];
      const blocked = transfer(engine, "alice", "bob", "5.00").then((a) => {
        events.push("transfer answered");
        return a;
      });
      try {
        await lockWaiters(storeUrl, 1);
        // Another tenant's deployment, on the same (only) lane.
        const quote = post(engine, "/channels/quote-request", {
          item: "widget",
          quantity: 3,
          unitPrice: 2.5,
        }).then((a) => {
          events.push("quote answered");
          return a;
        });
        // A safety net, not a threshold: without an answer, release the lock
        // after a while so the test ends (and fails on the order below).
        let timer: ReturnType<typeof setTimeout> | undefined;
        const answered = await Promise.race([
          quote.then(() => true),
          new Promise<false>((resolve) => timer = setTimeout(() => resolve(false), 10_000)),
        ]);
        clearTimeout(timer);
        events.push("lock released");
        await holder.end();
        assert.equal(answered, true, "the quote was not answered while the row lock was held");
        assert.equal((await quote).status, 200);
      } finally {
        await holder.end().catch(() => {});
      }
      const moved = await blocked;
      assert.deepEqual(events, ["quote answered", "lock released", "transfer answered"]);
      assert.equal(moved.body.status, "ACCEPTED", JSON.stringify(moved.body));
      assert.equal(await balanceOf(engine, "alice"), 995);
    },
  ));

tier2Test(
  "transfers in both directions between two accounts never deadlock into FAILED",
  () =>
    withTransfers({ env: { SUTRA_ENGINE_SHARDS: "8" } }, async (engine) => {
      const pairs = 50;
      const answers: Answer[] = await Promise.all(
        Array.from({ length: pairs }, () => [
          transfer(engine, "alice", "bob", "1.00"),
          transfer(engine, "bob", "alice", "1.00"),
        ]).flat(),
      );
      assert.deepEqual(
        answers.filter((a) => a.status !== 200 || a.body.status !== "ACCEPTED").map((a) => a.body),
        [],
      );
      assert.equal(await failedInstances(engine), 0);
      assert.deepEqual([await balanceOf(engine, "alice"), await balanceOf(engine, "bob")], [
        1000,
        500,
      ]);
    }),
);

/**
 * Forces a deadlock on one transfer from alice to bob: the test locks
 * bob, waits until the transfer (holding alice, the lower key) waits for
 * bob, then asks for alice itself. The test's session waits longer before
 * checking for deadlocks, so the database aborts the transfer's transaction.
 */
async function deadlockOnce(storeUrl: string): Promise<HeldTransaction> {
  const holder = await holdTransaction(storeUrl, ["set local deadlock_timeout = '30s'"]);
  await holder.query(LOCK_ROW, ["bob"]);
  return holder;
}

tier2Test(
  "a store deadlock is retried and the transfer completes",
  () =>
    withTransfers({}, async (engine, storeUrl) => {
      assert.equal(await balanceOf(engine, "alice"), 1000);
      const holder = await deadlockOnce(storeUrl);
      const answer = transfer(engine, "alice", "bob", "7.00");
      try {
        await lockWaiters(storeUrl, 1);
        // Waits for alice (locked by the transfer) until the transfer is aborted.
        await holder.query(LOCK_ROW, ["alice"]);
      } finally {
        await holder.end();
      }
      const settled = await answer;
      assert.equal(settled.status, 200, JSON.stringify(settled.body));
      assert.equal(settled.body.status, "ACCEPTED");
      assert.equal(await failedInstances(engine), 0);
      assert.deepEqual([await balanceOf(engine, "alice"), await balanceOf(engine, "bob")], [
        993,
        507,
      ]);
    }),
);

tier2Test("a lock wait that times out on every attempt is refused: nothing written", () =>
  // Every session of the store's database gives up a lock wait after 100 ms.
  withTransfers({ settings: { lock_timeout: "100ms" } }, async (engine, storeUrl) => {
    assert.equal(await balanceOf(engine, "alice"), 1000);
    const holder = await holdTransaction(storeUrl, ["set local lock_timeout = 0"]);
    let refused: Answer;
    try {
      await holder.query(LOCK_ROW, ["alice"]);
      refused = await transfer(engine, "alice", "bob", "7.00");
    } finally {
      await holder.end();
    }
    // Contention is a lost race: 409 with Retry-After, never a FAILED instance.
    assert.equal(refused.status, 409, JSON.stringify(refused.body));
    assert.equal(refused.headers.get("retry-after"), "1");
    assert.equal(codeOf(refused), "SUTRA.RUNTIME.DATASTORE.CONTENDED");
    const message = (refused.body.diagnostics as { message: string }[])[0].message;
    assert.match(message, /nothing was written/);
    assert.match(message, /lock timeout/);
    assert.equal(await failedInstances(engine), 0);
    assert.deepEqual([await balanceOf(engine, "alice"), await balanceOf(engine, "bob")], [
      1000,
      500,
    ]);
  }));

tier2Test("a read that fails for good says the step wrote nothing to its stores", () =>
  // A statement timeout is no contention: the read fails the task (and the
  // instance), and the aborted store transaction cannot commit after it.
  withTransfers({ settings: { statement_timeout: "100ms" } }, async (engine, storeUrl, log) => {
    assert.equal(await balanceOf(engine, "alice"), 1000);
    const holder = await holdTransaction(storeUrl, ["set local statement_timeout = 0"]);
    let answer: Answer;
    try {
      await holder.query(LOCK_ROW, ["alice"]);
      answer = await transfer(engine, "alice", "bob", "7.00");
    } finally {
      await holder.end();
    }
    assert.equal(answer.status, 500);
    assert.equal(codeOf(answer), "SUTRA.RUNTIME.DATASTORE.COMMIT_FAILED", JSON.stringify(answer));
    const detail = log.find((line) => line.includes("SUTRA.RUNTIME.DATASTORE.COMMIT_FAILED"));
    assert.match(detail ?? "", /it wrote nothing to its data stores, so nothing there is missing/);
    assert.doesNotMatch(detail!, /writes were not/);
    assert.equal(await failedInstances(engine), 1);
    assert.equal(await balanceOf(engine, "alice"), 1000);
  }));
