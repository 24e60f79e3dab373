/**
 * A store's `dataClass` over HTTP, with the money-transfer example (its
 * `accounts` store is `dataClass: financial`) on in-memory PGlite: the
 * variables a transfer reads from the store are masked in the admin
 * instance view and absent from the operate view, while the flow computed
 * with the real balances.
 */
import "../../io/datastores/mod.ts";
import assert from "node:assert/strict";
import { MASK } from "../../engine/core/redactor.ts";
import { defaultResolveContext } from "../../engine/core/secrets.ts";
import { openDataStores, StepStores } from "../../engine/datastore/mod.ts";
import type { RunningEngine } from "../../engine/runtime/mod.ts";
import { bootEngine, get, post, sealDir } from "../runtime/support.ts";

const KEY = { "x-api-key": "transfer-demo-key" };

async function withExample(run: (engine: RunningEngine) => Promise<void>): Promise<void> {
  const engine = await bootEngine({ env: { ACCOUNTS_DB_URL: "pglite:memory://" } });
  try {
    await engine.deployments.deploy(await sealDir("examples/money-transfer/package"));
    await run(engine);
  } finally {
    await engine.stop();
  }
}

/** The one instance of `process`. */
async function onlyInstance(engine: RunningEngine, process: string): Promise<string> {
  const { rows } = await engine.database.query<{ instance_id: string }>(
    "select instance_id from instances where process_id = $1",
    [process],
  );
  assert.equal(rows.length, 1);
  return rows[0].instance_id;
}

Deno.test("dataClass: the store port reports a classified store's class with its records", async () => {
  const settings = { "url-ref": "pglite:memory://" };
  const stores = await openDataStores([
    { name: "ledger", type: "sql", settings, dataClass: "financial" },
    { name: "notes", type: "sql", settings, dataClass: "none" },
    { name: "plain", type: "sql", settings },
  ], { resolve: defaultResolveContext({}) });
  try {
    for (const name of stores.names()) await stores.get(name)!.put("k", { n: 1 });
    const step = new StepStores(stores);
    try {
      const read = (store: string) => step.read({ store, key: "k", forUpdate: false });
      assert.deepEqual(await read("ledger"), { value: { n: 1 }, rev: 1, dataClass: "financial" });
      assert.deepEqual(await read("notes"), { value: { n: 1 }, rev: 1 });
      assert.deepEqual(await read("plain"), { value: { n: 1 }, rev: 1 });
      assert.equal(
        await step.read({ store: "ledger", key: "absent", forUpdate: false }),
        undefined,
      );
      assert.equal(await step.dataClass("ledger"), "financial");
      assert.equal(await step.dataClass("plain"), undefined);
    } finally {
      await step.rollback();
    }
  } finally {
    await stores.close();
  }
});

Deno.test("dataClass: values read from a financial store are masked in the admin view; the flow used them", () =>
  withExample(async (engine) => {
    const accepted = await post(engine, "/channels/transfer-request", {
      TransferRequest: { FromAccount: "alice", ToAccount: "bob", Amount: "25.00" },
    }, KEY);
    assert.equal(accepted.status, 200, JSON.stringify(accepted.body));
    assert.equal(accepted.body.status, "ACCEPTED");

    // The flow computed with the real balances: they moved by the amount.
    const balance = await post(engine, "/channels/balance-query", {
      BalanceQuery: { Account: "alice" },
    }, KEY);
    assert.equal(balance.status, 200, JSON.stringify(balance.body));
    assert.equal(Number(balance.body.balance), 975);

    const id = await onlyInstance(engine, "transfer");
    const admin = await get(engine, `/admin/instances/${id}`);
    assert.equal(admin.status, 200, JSON.stringify(admin.body));
    const variables = admin.body.variables as Record<string, string>;
    assert.equal(variables.fromAccount, MASK);
    assert.equal(variables.toAccount, MASK);
    // `firstAccount` is the row the flow locks first (the lower key): read, so masked too.
    assert.deepEqual(admin.body.redacted, {
      firstAccount: "financial",
      fromAccount: "financial",
      toAccount: "financial",
    });
    // What did not come from the store stays visible.
    assert.match(variables.payload, /"alice"/);
    assert.doesNotMatch(JSON.stringify(admin.body), /balance/, "no account record shows");

    const query = await onlyInstance(engine, "balance");
    const queried = await get(engine, `/admin/instances/${query}`);
    assert.equal((queried.body.variables as Record<string, string>).account, MASK);
    assert.deepEqual(queried.body.redacted, { account: "financial" });

    const operate = await get(engine, `/sutra/instances/${id}`);
    assert.equal(operate.status, 200);
    assert.equal(operate.body.variables, undefined);
    assert.doesNotMatch(JSON.stringify(operate.body), /balance/);
  }));

Deno.test("dataClass: a value computed from a masked variable is masked too", () =>
  withExample(async (engine) => {
    const rejected = await post(engine, "/channels/transfer-request", {
      TransferRequest: { FromAccount: "bob", ToAccount: "alice", Amount: "10000.00" },
    }, KEY);
    assert.equal(rejected.status, 200, JSON.stringify(rejected.body));
    assert.deepEqual([rejected.body.status, rejected.body.reason], [
      "REJECTED",
      "INSUFFICIENT_FUNDS",
    ]);
    const id = await onlyInstance(engine, "transfer");
    const admin = await get(engine, `/admin/instances/${id}`);
    const variables = admin.body.variables as Record<string, string>;
    // `reason` is computed from the balances, so it carries their class.
    assert.equal(variables.reason, MASK);
    assert.deepEqual(admin.body.redacted, {
      firstAccount: "financial",
      fromAccount: "financial",
      reason: "financial",
      toAccount: "financial",
    });
  }));
