/**
 * The projected shape of the `sql` store on every configured database: the
 * record's fields on the package's own typed columns, the control columns
 * kept by the engine, the lexical round trip, and the three runtime
 * refusals (undeclared field, a value that is not a record, a live table
 * that cannot hold the projection).
 */
import assert from "node:assert/strict";
import type { DataStore, StoreProjection } from "../../engine/core/datastore.ts";
import { DiagnosticError } from "../../engine/core/diagnostic.ts";
import { eachProvider, type StoreKit } from "./_providers.ts";

const PROJECTION = (table: string): StoreProjection => ({
  table,
  type: "AccountRecord",
  columns: [
    { field: "accountId", column: "account_id", type: "string", optional: false },
    { field: "balance", column: "balance", type: "decimal", optional: false },
    { field: "openedAt", column: "opened_at", type: "date", optional: false },
    { field: "active", column: "active", type: "boolean", optional: false },
    { field: "visits", column: "visits", type: "integer", optional: true },
    { field: "note", column: "note", type: "string", optional: true },
    { field: "lastSeen", column: "last_seen", type: "dateTime", optional: true },
  ],
});

// The table as a package migration would create it, in the kit's dialect.
function accountsDdl(kit: StoreKit, table: string): string {
  const mysql = kit.url.startsWith("mysql:") || kit.url.startsWith("mariadb:");
  return `CREATE TABLE IF NOT EXISTS ${table} (
  store_key   VARCHAR(512)  NOT NULL,
  account_id  VARCHAR(35)   NOT NULL,
  balance     NUMERIC(18,2) NOT NULL DEFAULT 0,
  opened_at   DATE          NOT NULL,
  active      BOOLEAN       NOT NULL DEFAULT TRUE,
  visits      BIGINT,
  note        VARCHAR(140),
  last_seen   ${mysql ? "DATETIME(6)" : "TIMESTAMPTZ"},
  rev         BIGINT        NOT NULL DEFAULT 1,
  updated_at  ${
    mysql
      ? "TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6)"
      : "TIMESTAMPTZ NOT NULL DEFAULT CURRENT_TIMESTAMP"
  },
  PRIMARY KEY (store_key)
);`;
}

async function withMigrations<T>(
  scripts: Record<string, string>,
  fn: (dir: string) => Promise<T>,
): Promise<T> {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.mkdir(`${dir}/migrations`);
    for (const [name, sql] of Object.entries(scripts)) {
      await Deno.writeTextFile(`${dir}/migrations/${name}`, sql);
    }
    return await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/**
 * Opens store `accounts` projected onto `table`, on a package folder whose
 * one migration `script` (file name and SQL) creates it, and runs `fn`.
 */
function withAccounts(
  kit: StoreKit,
  table: string,
  script: readonly [name: string, sql: string],
  fn: (ds: DataStore) => Promise<void>,
): Promise<void> {
  kit.dropAfter(table);
  return withMigrations({ [script[0]]: script[1] }, async (dir) => {
    const ds = await kit.open("accounts", {
      settings: { migrations: "migrations" },
      baseDir: dir,
      projection: PROJECTION(table),
    });
    await fn(ds);
  });
}

function diagnosticOf(error: unknown): { code: string; message: string } {
  assert.ok(error instanceof DiagnosticError, String(error));
  return error.diagnostics[0];
}

eachProvider("a projected store keeps records on typed columns", async (kit) => {
  const table = `p_${kit.table}`;
  await withAccounts(kit, table, ["V1__accounts.sql", accountsDdl(kit, table)], async (ds) => {
    const record = {
      accountId: "A-1",
      balance: "12.30",
      openedAt: "2026-01-15",
      active: true,
      visits: 3,
      note: null,
      lastSeen: "2026-08-04T10:00:00.000-05:00",
    };
    assert.equal(await ds.put("A-1", record), 1);
    const read = await ds.get("A-1");
    assert.equal(read?.rev, 1);
    const value = read!.value as Record<string, unknown>;
    // The column's scale decides the decimal; null and absent read back the same: absent.
    assert.deepEqual({ ...value, lastSeen: undefined }, {
      accountId: "A-1",
      balance: 12.3,
      openedAt: "2026-01-15",
      active: true,
      visits: 3,
      lastSeen: undefined,
    });
    assert.equal(Object.hasOwn(value, "note"), false);
    // A dateTime comes back as the stored instant, in ISO-8601 with an explicit offset.
    assert.match(String(value.lastSeen), /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}[+-]\d{2}:\d{2}$/);
    assert.equal(
      Temporal.Instant.compare(
        Temporal.Instant.from(String(value.lastSeen)),
        Temporal.Instant.from("2026-08-04T15:00:00Z"),
      ),
      0,
    );

    // A value a double cannot hold exactly comes back as its text, every digit kept.
    await ds.put("A-2", { ...record, accountId: "A-2", balance: "1234567890123456.70" });
    assert.equal(
      ((await ds.get("A-2"))!.value as Record<string, unknown>).balance,
      "1234567890123456.70",
    );

    // Revisions behave exactly as for a key/value store.
    assert.equal(await ds.put("A-1", { ...record, active: false, note: "closed" }), 2);
    assert.deepEqual(
      (await ds.get("A-1"))!.value,
      { ...value, active: false, note: "closed" },
    );
    const conflict = await ds.put("A-1", record, { expectRev: 1 }).catch((e) => e);
    assert.equal(diagnosticOf(conflict).code, "SUTRA.RUNTIME.DATASTORE.CONFLICT");
    assert.equal(await ds.put("A-1", record, { expectRev: 2 }), 3);
    assert.equal(await ds.putField("A-1", { field: "balance", value: 99 }), 4);
    assert.equal(((await ds.get("A-1"))!.value as Record<string, unknown>).balance, 99);
    assert.equal(await ds.delete("A-1", { expectRev: 4 }), true);
    assert.equal(await ds.get("A-1"), undefined);
  });
});

eachProvider("a projected store refuses what its record cannot hold", async (kit) => {
  const table = `p_${kit.table}`;
  await withAccounts(kit, table, ["V1__accounts.sql", accountsDdl(kit, table)], async (ds) => {
    const base = { accountId: "A", balance: 1, openedAt: "2026-01-01", active: true };

    const undeclared = diagnosticOf(
      await ds.put("A", { ...base, owner: "x", tier: 2 }).catch((e) => e),
    );
    assert.equal(undeclared.code, "SUTRA.RUNTIME.DATASTORE.UNDECLARED_FIELD");
    assert.equal(
      undeclared.message,
      "data store 'accounts', key 'A': type 'AccountRecord' does not declare 'owner', 'tier'; " +
        "nothing was written",
    );

    for (const [value, what] of [[5, "a number"], [null, "null"], [["a"], "a list"]] as const) {
      const refused = diagnosticOf(await ds.put("A", value).catch((e) => e));
      assert.equal(refused.code, "SUTRA.RUNTIME.DATASTORE.VALUE_NOT_A_RECORD");
      assert.equal(
        refused.message,
        "data store 'accounts', key 'A': a projected store holds records of type " +
          `'AccountRecord', and the value written is ${what}`,
      );
    }
    const nested = diagnosticOf(await ds.put("A", { ...base, note: { a: 1 } }).catch((e) => e));
    assert.equal(nested.code, "SUTRA.RUNTIME.DATASTORE.VALUE_NOT_A_RECORD");
    assert.match(nested.message, /field 'note' holds a nested value/);
    assert.equal(await ds.get("A"), undefined);
  });
});

eachProvider(
  "a live table that cannot hold the projection is refused, every column named",
  async (kit) => {
    const table = `p_${kit.table}`;
    const drifted = `CREATE TABLE IF NOT EXISTS ${table} (
  store_key  VARCHAR(512) NOT NULL PRIMARY KEY,
  account_id VARCHAR(35)  NOT NULL,
  balance    NUMERIC(18,2) NOT NULL,
  branch     VARCHAR(10)  NOT NULL,
  rev        BIGINT       NOT NULL DEFAULT 1
);`;
    await withAccounts(kit, table, ["V1__drifted.sql", drifted], async (ds) => {
      for (const attempt of [() => ds.get("A"), () => ds.put("A", {})]) {
        const refused = diagnosticOf(await attempt().catch((e) => e));
        assert.equal(refused.code, "SUTRA.RUNTIME.DATASTORE.PROJECTION_UNSATISFIABLE");
        assert.match(
          refused.message,
          new RegExp(
            `^data store 'accounts': table '${table}' on .* cannot hold type 'AccountRecord': ` +
              "control column 'updated_at' is missing; " +
              "column 'opened_at' \\(field 'openedAt'\\) is missing; " +
              "column 'active' \\(field 'active'\\) is missing; " +
              "column 'visits' \\(field 'visits'\\) is missing; " +
              "column 'note' \\(field 'note'\\) is missing; " +
              "column 'last_seen' \\(field 'lastSeen'\\) is missing; " +
              "column 'branch' is NOT NULL without a default, and no declared field fills it$",
          ),
        );
      }
    });
    const missing = await kit.open("ghosts", { projection: PROJECTION(`none_${kit.table}`) });
    const refused = diagnosticOf(await missing.get("x").catch((e) => e));
    assert.match(refused.message, /cannot hold type 'AccountRecord': the table does not exist$/);
  },
);
