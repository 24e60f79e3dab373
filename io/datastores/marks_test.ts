import assert from "node:assert/strict";
import type { DataStoreConnection } from "../../engine/core/datastore.ts";
import { defaultResolveContext } from "../../engine/core/secrets.ts";
import { openDatabase } from "../../engine/persistence/mod.ts";
import { sqlProvider } from "./sql.ts";

// A store on an embedded database in `dir`, so the marks can be read back afterwards.
function openOn(dir: string, name: string, table: string): Promise<DataStoreConnection> {
  return sqlProvider.open(
    { name, type: "sql", settings: { "url-ref": `pglite:${dir}`, "kv-table": table } },
    { resolve: defaultResolveContext({}) },
  );
}

Deno.test("marks go to sutra_store_marks whatever the store's kv-table", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const store = await openOn(dir, "ledger", "custom_kv");
    try {
      const tx = await store.begin();
      assert.equal(await tx.mark({ redoId: "r-1", at: 1_767_225_600_000 }), true);
      await tx.put("k", 1);
      await tx.commit();
    } finally {
      await store.close();
    }
    const db = await openDatabase(`file://${dir}`);
    try {
      const { rows } = await db.query(
        `SELECT CAST("at" AS TEXT) AS at, redo_id, store_name FROM sutra_store_marks`,
      );
      assert.deepEqual(rows, [{ at: "1767225600000", redo_id: "r-1", store_name: "ledger" }]);
      const key = await db.query(
        "SELECT a.attname FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid " +
          "AND a.attnum = ANY(i.indkey) WHERE i.indrelid = 'sutra_store_marks'::regclass " +
          "AND i.indisprimary ORDER BY array_position(i.indkey, a.attnum)",
      );
      assert.deepEqual(key.rows.map((r) => r.attname), ["at", "redo_id", "store_name"]);
    } finally {
      await db.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a mark or a purge bound that the table cannot hold is refused", async () => {
  const store = await sqlProvider.open(
    { name: "ledger", type: "sql", settings: { "url-ref": "pglite:memory://" } },
    { resolve: defaultResolveContext({}) },
  );
  try {
    const tx = await store.begin();
    try {
      await assert.rejects(
        () => tx.mark({ redoId: "x".repeat(65), at: 1 }),
        RangeError,
        "data store 'ledger': a redo id is 1 to 64 characters",
      );
      await assert.rejects(() => tx.mark({ redoId: "", at: 1 }), RangeError);
      await assert.rejects(
        () => tx.mark({ redoId: "r", at: 1.5 }),
        /data store 'ledger': mark 'r' needs an epoch-ms integer, not 1.5/,
      );
      // Nothing reached the database, so the transaction is still usable.
      assert.equal(await tx.mark({ redoId: "x".repeat(64), at: 1 }), true);
    } finally {
      await tx.rollback();
    }
    await assert.rejects(
      () => store.purgeMarks(Number.NaN),
      /data store 'ledger': marks are purged before an epoch-ms integer, not NaN/,
    );
    assert.equal(await store.purgeMarks(Number.MAX_SAFE_INTEGER), 0);
  } finally {
    await store.close();
  }
});
