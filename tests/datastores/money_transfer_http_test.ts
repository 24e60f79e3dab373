/**
 * The book's money-transfer scenario, in order, against a real engine over
 * HTTP with the example package (examples/money-transfer/package): once
 * with the `accounts` store on embedded PGlite, once on its own database
 * on the tier-2 PostgreSQL server (the engine's own database is separate
 * in both cases).
 *
 * Durability (a new engine sees what an earlier one committed),
 * cross-instance reads (balance-query), insufficient funds, frozen and
 * unknown accounts and a negative amount rejected with no row touched, atomicity (a write failing after
 * the debit leaves both balances unchanged) and isolation (100 concurrent
 * transfers between the same accounts: every one applied, no lost update).
 */
import "../../io/datastores/mod.ts";
import assert from "node:assert/strict";
import { transports } from "../../engine/core/transport.ts";
import { defaultResolveContext } from "../../engine/core/secrets.ts";
import { openDataStores } from "../../engine/datastore/mod.ts";
import { openDatabase } from "../../engine/persistence/mod.ts";
import { readPackageDir, sealPackage } from "../../engine/package/mod.ts";
import type { RunningEngine } from "../../engine/runtime/mod.ts";
import { serverDatabaseUrl, tier2Test } from "../support/test_database.ts";
import { type Answer, bootEngine, codeOf, post } from "../runtime/support.ts";

const KEY = { "x-api-key": "transfer-demo-key" };
const PACKAGE = new URL("../../examples/money-transfer/package", import.meta.url).pathname;

// A test-only migration: account 'capped' may never hold more than 1000.
// A transfer into it that would pass the cap fails on the second of the
// transfer's two writes, after the debit was written.
const CAP_MIGRATION = `
INSERT INTO sutra_datastore (store_name, store_key, value)
  VALUES ('accounts', 'capped', '{"balance":990.00,"frozen":false}')
  ON CONFLICT (store_name, store_key) DO NOTHING;
ALTER TABLE sutra_datastore DROP CONSTRAINT IF EXISTS capped_limit;
ALTER TABLE sutra_datastore ADD CONSTRAINT capped_limit CHECK (
  store_key <> 'capped' OR (value::jsonb ->> 'balance')::numeric <= 1000
);
`;

async function sealExample(): Promise<Uint8Array> {
  const read = await readPackageDir(PACKAGE);
  assert.ok(read.files, read.diagnostics.map((d) => d.message).join("\n"));
  const files = new Map(read.files);
  files.set(
    "migrations/accounts/V002__capped_account.sql",
    new TextEncoder().encode(CAP_MIGRATION),
  );
  const sealed = await sealPackage(files, { transports });
  assert.ok(sealed.archive, sealed.diagnostics.map((d) => `${d.code} ${d.message}`).join("\n"));
  return sealed.archive.bytes;
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
  assert.equal(answer.body.found, true, `account ${account} not found`);
  return Number(answer.body.balance);
}

async function balances(engine: RunningEngine): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const a of ["alice", "bob", "carol", "capped"]) out[a] = await balanceOf(engine, a);
  return out;
}

// Retries what the engine asked to be retried (a full lane), never a decided answer.
async function settledTransfer(
  engine: RunningEngine,
  from: string,
  to: string,
  amount: string,
): Promise<Answer> {
  for (;;) {
    const answer = await transfer(engine, from, to, amount);
    if (answer.status !== 503) return answer;
  }
}

/** Every account's revision, read straight from the store's database once no engine uses it. */
async function revisions(storeUrl: string): Promise<Record<string, number>> {
  const stores = await openDataStores([
    { name: "accounts", type: "sql", settings: { "url-ref": storeUrl } },
  ], { resolve: defaultResolveContext({}) });
  try {
    const out: Record<string, number> = {};
    for (const a of ["alice", "bob", "carol", "capped"]) {
      out[a] = (await stores.get("accounts")!.get(a))!.rev;
    }
    return out;
  } finally {
    await stores.close();
  }
}

async function withEngine<T>(
  options: { storeUrl: string; engineUrl?: string; schema?: string },
  fn: (engine: RunningEngine) => Promise<T>,
): Promise<T> {
  const engine = await bootEngine({
    url: options.engineUrl,
    schema: options.schema,
    env: { ACCOUNTS_DB_URL: options.storeUrl, SUTRA_ENGINE_SHARDS: "8" },
  });
  try {
    await engine.deployments.deploy(await sealExample());
    return await fn(engine);
  } finally {
    await engine.stop();
  }
}

async function scenario(
  options: { storeUrl: string; engineUrl?: string; schema?: string },
): Promise<void> {
  // 1. Durability and cross-instance reads: a transfer commits both balances,
  //    a separate balance-query instance reads them.
  await withEngine(options, async (engine) => {
    assert.deepEqual(await balances(engine), { alice: 1000, bob: 500, carol: 250, capped: 990 });
    const accepted = await transfer(engine, "alice", "bob", "25.00");
    assert.equal(accepted.status, 200, JSON.stringify(accepted.body));
    assert.equal(accepted.body.status, "ACCEPTED");
    assert.equal(await balanceOf(engine, "alice"), 975);
    assert.equal(await balanceOf(engine, "bob"), 525);
  });
  // ... and a new engine (the migration re-run, idempotently) still sees them.
  assert.deepEqual(await revisions(options.storeUrl), { alice: 2, bob: 2, carol: 1, capped: 1 });
  await withEngine(options, async (engine) => {
    assert.deepEqual(await balances(engine), { alice: 975, bob: 525, carol: 250, capped: 990 });

    // 2. Insufficient funds and frozen accounts: rejected by the flow, no row touched.
    const poor = await transfer(engine, "bob", "alice", "10000.00");
    assert.equal(poor.status, 200, JSON.stringify(poor.body));
    assert.deepEqual([poor.body.status, poor.body.reason], ["REJECTED", "INSUFFICIENT_FUNDS"]);
    const frozenFrom = await transfer(engine, "carol", "bob", "5.00");
    assert.deepEqual([frozenFrom.body.status, frozenFrom.body.reason], [
      "REJECTED",
      "ACCOUNT_FROZEN",
    ]);
    const frozenTo = await transfer(engine, "alice", "carol", "5.00");
    assert.deepEqual([frozenTo.body.status, frozenTo.body.reason], [
      "REJECTED",
      "ACCOUNT_FROZEN",
    ]);
    const negative = await transfer(engine, "alice", "bob", "-5.00");
    assert.equal(negative.status, 422, JSON.stringify(negative.body));
    assert.equal(codeOf(negative), "SUTRA.INBOUND.VALIDATION_REJECTED");
    const unknown = await transfer(engine, "alice", "nobody", "5.00");
    assert.deepEqual([unknown.body.status, unknown.body.reason], [
      "REJECTED",
      "UNKNOWN_ACCOUNT",
    ]);

    // 3. Atomicity: the debit is written, the credit breaks the cap; the whole
    //    step is refused and neither balance moves.
    const broken = await transfer(engine, "alice", "capped", "20.00");
    assert.equal(broken.status >= 400, true, JSON.stringify(broken.body));
    assert.equal(codeOf(broken), "SUTRA.RUNTIME.DATASTORE.WRITE_FAILED");
    assert.deepEqual(await balances(engine), { alice: 975, bob: 525, carol: 250, capped: 990 });

    // 4. Isolation: 100 concurrent transfers over the same two rows; each
    //    one's read-modify-write holds the row locks, so none is lost.
    const answers = await Promise.all(
      Array.from({ length: 100 }, () => settledTransfer(engine, "alice", "bob", "1.00")),
    );
    assert.deepEqual(
      answers.filter((a) => a.status !== 200 || a.body.status !== "ACCEPTED").map((a) => a.body),
      [],
    );
    assert.deepEqual(await balances(engine), { alice: 875, bob: 625, carol: 250, capped: 990 });
  });
  // Rejections and the failed step wrote nothing: only the 101 transfers moved revisions.
  assert.deepEqual(await revisions(options.storeUrl), {
    alice: 102,
    bob: 102,
    carol: 1,
    capped: 1,
  });
}

Deno.test("money-transfer over HTTP, accounts on embedded PGlite", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await scenario({ storeUrl: `pglite:${dir}/accounts` });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

tier2Test("money-transfer over HTTP, accounts and engine on PostgreSQL", async () => {
  const server = serverDatabaseUrl()!;
  const name = `sutra_accounts_${crypto.randomUUID().replaceAll("-", "").slice(0, 16)}`;
  const admin = await openDatabase(server, { maxConnections: 1 });
  try {
    await admin.exec(`create database ${name}`);
    const storeUrl = Object.assign(new URL(server), { pathname: `/${name}` }).href;
    const schema = `sutra_test_${crypto.randomUUID().replaceAll("-", "").slice(0, 20)}`;
    try {
      await scenario({ storeUrl, engineUrl: server, schema });
    } finally {
      await admin.exec(`drop schema if exists "${schema}" cascade`);
    }
  } finally {
    await admin.exec(`drop database if exists ${name} with (force)`);
    await admin.close();
  }
});
