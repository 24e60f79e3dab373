import assert from "node:assert/strict";
import { DATASTORE_CONFLICT, type DataStoreDeclaration } from "../../engine/core/datastore.ts";
import { defaultResolveContext } from "../../engine/core/secrets.ts";
import { DiagnosticError } from "../../engine/core/diagnostic.ts";
import { openDataStores, StepStores, TransientStoreError } from "../../engine/datastore/mod.ts";
import { eachProvider } from "./_providers.ts";

function codes(error: unknown): string[] {
  return error instanceof DiagnosticError ? error.diagnostics.map((d) => d.code) : [String(error)];
}

const options = { resolve: defaultResolveContext({}), baseDir: "." };

eachProvider("the executor's store port commits a step's writes together", async (kit) => {
  const decl = (name: string): DataStoreDeclaration => ({
    name,
    type: "sql",
    settings: { "url-ref": kit.url, "kv-table": kit.table },
  });
  const stores = await openDataStores([decl("accounts"), decl("audit")], options);
  try {
    assert.deepEqual(stores.names(), ["accounts", "audit"]);
    await stores.get("accounts")!.put("A", { balance: 100, frozen: false });

    const step = new StepStores(stores);
    const read = await step.read({ store: "accounts", key: "A", forUpdate: true });
    assert.deepEqual(read, { value: { balance: 100, frozen: false }, rev: 1 });
    assert.equal(await step.read({ store: "accounts", key: "B", forUpdate: false }), undefined);
    await step.apply([
      { store: "accounts", key: "A", field: "balance", value: 60, expectRev: 1 },
      { store: "accounts", key: "B", value: { balance: 40 } },
      { store: "audit", key: "t1", value: "moved 40" },
    ]);
    await step.commit();
    assert.deepEqual(await stores.get("accounts")!.get("A"), {
      value: { balance: 60, frozen: false },
      rev: 2,
    });
    assert.deepEqual(await stores.get("audit")!.get("t1"), { value: "moved 40", rev: 1 });

    // A stale compare-and-set fails the apply; the rollback undoes the earlier write.
    const stale = new StepStores(stores);
    const failure = await stale.apply([
      { store: "accounts", key: "B", value: { balance: 0 } },
      { store: "accounts", key: "A", value: { balance: 0 }, expectRev: 1 },
    ]).catch((e) => e);
    await stale.rollback();
    assert.deepEqual(codes(failure), [DATASTORE_CONFLICT]);
    assert.deepEqual(await stores.get("accounts")!.get("B"), { value: { balance: 40 }, rev: 1 });

    const unknown = new StepStores(stores);
    await assert.rejects(
      () => Promise.resolve(unknown.read({ store: "nope", key: "x", forUpdate: false })),
      /data store 'nope' is not declared \(declared: accounts, audit\)/,
    );
    await unknown.rollback();
  } finally {
    await stores.close();
  }
});

Deno.test("declarations are refused before anything connects", async () => {
  const failure = await openDataStores([
    { name: "a", type: "sql", settings: { "url-ref": "pglite:memory://" } },
    { name: "a", type: "sql", settings: { "url-ref": "pglite:memory://" } },
    { name: "b", type: "ledger-file", settings: {} },
  ], options).catch((e) => e);
  assert.deepEqual(codes(failure), [
    "SUTRA.CONFIG.DATASTORE.DUPLICATE",
    "SUTRA.CONFIG.DATASTORE.INVALID",
  ]);
  assert.match(failure.message, /type 'ledger-file', which no linked provider serves/);
});

Deno.test("a store without its own connection fails closed", async () => {
  const missing = await openDataStores([
    { name: "accounts", type: "sql", settings: { migrations: "migrations/accounts" } },
  ], options).catch((e) => e);
  assert.deepEqual(codes(missing), ["SUTRA.CONFIG.DATASTORE.URL_REF_MISSING"]);
  assert.match(missing.message, /never borrows the engine's database/);

  const unset = await openDataStores([
    { name: "accounts", type: "sql", settings: { "url-ref": "env:SUTRA_TEST_NO_SUCH_VAR" } },
  ], options).catch((e) => e);
  assert.deepEqual(codes(unset), ["SUTRA.SECRET.UNRESOLVED"]);
});

Deno.test("an embedded store in a directory keeps its rows across reopening", async () => {
  const dir = await Deno.makeTempDir();
  const decl = { name: "ledger", type: "sql", settings: { "url-ref": `pglite:${dir}/db` } };
  try {
    const first = await openDataStores([decl], options);
    try {
      await first.get("ledger")!.put("a", { balance: "12.30" });
    } finally {
      await first.close();
    }
    const second = await openDataStores([decl], options);
    try {
      assert.deepEqual(await second.get("ledger")!.get("a"), {
        value: { balance: "12.30" },
        rev: 1,
      });
    } finally {
      await second.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("an unusable URL or table name is a configuration error", async () => {
  const scheme = await openDataStores([
    { name: "s", type: "sql", settings: { "url-ref": "oracle://u:secret@db/x" } },
  ], options).catch((e) => e);
  assert.deepEqual(codes(scheme), ["SUTRA.CONFIG.DATASTORE.INVALID"]);
  assert.doesNotMatch(scheme.message, /secret/);

  const table = await openDataStores([
    {
      name: "s",
      type: "sql",
      settings: { "url-ref": "pglite:memory://", "kv-table": "Robert'); DROP" },
    },
  ], options).catch((e) => e);
  assert.deepEqual(codes(table), ["SUTRA.CONFIG.DATASTORE.INVALID"]);
});

Deno.test("an unreachable server is reported without its password", async () => {
  const failure = await openDataStores([
    {
      name: "s",
      type: "sql",
      settings: { "url-ref": "mysql://root:hunter2@127.0.0.1:1/test" },
    },
  ], options).catch((e) => e);
  assert.deepEqual(codes(failure), ["SUTRA.RUNTIME.DATASTORE.UNREACHABLE"]);
  assert.doesNotMatch(failure.message, /hunter2/);

  const mssql = await openDataStores([
    {
      name: "s",
      type: "sql",
      settings: { "url-ref": "sqlserver://sa:hunter2@127.0.0.1:1/ledger?encrypt=false" },
    },
  ], options).catch((e) => e);
  assert.deepEqual(codes(mssql), ["SUTRA.RUNTIME.DATASTORE.UNREACHABLE"]);
  assert.match(mssql.message, /cannot connect to sqlserver:\/\/127\.0\.0\.1:1\/ledger/);
  assert.doesNotMatch(mssql.message, /hunter2/);
});

Deno.test("a badly named migration refuses the store", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.mkdir(`${dir}/m`);
    await Deno.writeTextFile(`${dir}/m/V1__a.sql`, "SELECT 1;");
    await Deno.writeTextFile(`${dir}/m/V01__b.sql`, "SELECT 1;");
    await Deno.writeTextFile(`${dir}/m/create.sql`, "SELECT 1;");
    const failure = await openDataStores([
      { name: "s", type: "sql", settings: { "url-ref": "pglite:memory://", migrations: "m" } },
    ], { ...options, baseDir: dir }).catch((e) => e);
    assert.deepEqual(codes(failure), [
      "SUTRA.CONFIG.DATASTORE.MIGRATION_INVALID",
      "SUTRA.CONFIG.DATASTORE.MIGRATION_INVALID",
    ]);
    assert.match(failure.message, /'create.sql' is not named V<n>__<description>.sql/);
    assert.match(failure.message, /repeats version 1/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a failing migration is reported and the connection closed", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.mkdir(`${dir}/m`);
    await Deno.writeTextFile(`${dir}/m/V1__broken.sql`, "CREATE TABLE (;");
    const failure = await openDataStores([
      { name: "s", type: "sql", settings: { "url-ref": "pglite:memory://", migrations: "m" } },
    ], { ...options, baseDir: dir }).catch((e) => e);
    assert.deepEqual(codes(failure), ["SUTRA.RUNTIME.DATASTORE.MIGRATION_FAILED"]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

eachProvider(
  "two steps deadlocking: the database's victim remembers a contention abort",
  async (kit) => {
    const stores = await openDataStores([
      { name: "accounts", type: "sql", settings: { "url-ref": kit.url, "kv-table": kit.table } },
    ], options);
    try {
      await stores.get("accounts")!.put("A", 1);
      await stores.get("accounts")!.put("B", 1);
      const one = new StepStores(stores);
      const two = new StepStores(stores);
      const lock = (step: StepStores, key: string) =>
        step.read({ store: "accounts", key, forUpdate: true });
      await lock(one, "A");
      await lock(two, "B");
      // Each now waits for the other's row: the database aborts one of them.
      const results = await Promise.allSettled([lock(one, "B"), lock(two, "A")]);
      const victims = [one, two].filter((_, i) => results[i].status === "rejected");
      assert.equal(victims.length, 1, JSON.stringify(results));
      const abort = (results.find((r) => r.status === "rejected") as PromiseRejectedResult).reason;
      assert.ok(abort instanceof TransientStoreError, String(abort));
      assert.equal(abort.reason, "deadlock");
      assert.equal(abort.store, "accounts");
      assert.equal(victims[0].transient, abort);
      assert.equal((victims[0] === one ? two : one).transient, undefined);
      await one.rollback();
      await two.rollback();
    } finally {
      await stores.close();
    }
  },
  { serversOnly: true },
);
