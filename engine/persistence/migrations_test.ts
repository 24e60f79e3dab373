import assert from "node:assert/strict";
import { DiagnosticError } from "../core/diagnostic.ts";
import { eachDatabase, tier2Test, withServerDatabase } from "../../tests/support/test_database.ts";
import {
  checksum,
  type Database,
  ENGINE_MIGRATIONS,
  migrate,
  type Migration,
  migrationStatus,
  openDatabase,
  verifyMigrations,
} from "./mod.ts";

const V1: Migration = { version: 1, name: "first", sql: "create table one (k int);" };
const V2: Migration = {
  version: 2,
  name: "second",
  sql: "create table two (k int); insert into two values (2);",
};
const V3: Migration = { version: 3, name: "third", sql: "create table three (k int);" };

async function ledger(db: Database): Promise<{ version: number; name: string; tenant: string }[]> {
  const { rows } = await db.query<{ version: number; name: string; tenant: string }>(
    "select version, name, tenant from sutra_schema_history order by version",
  );
  return rows;
}

async function tableExists(db: Database, name: string): Promise<boolean> {
  const { rows } = await db.query<{ present: boolean }>(
    "select to_regclass($1) is not null as present",
    [name],
  );
  return rows[0].present;
}

function codesOf(error: unknown): string[] {
  assert.ok(error instanceof DiagnosticError, `expected a DiagnosticError, got ${error}`);
  return error.diagnostics.map((d) => d.code);
}

Deno.test("checksum is the sha256 hex of the script", async () => {
  assert.equal(
    await checksum(""),
    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
  );
  assert.equal((await checksum(V1.sql)).length, 64);
});

eachDatabase("the engine's migrations apply once and create the leases table", async (db) => {
  const first = await migrate(db, ENGINE_MIGRATIONS);
  assert.deepEqual(first.map((m) => m.version), ENGINE_MIGRATIONS.map((m) => m.version));
  const again = await migrate(db, ENGINE_MIGRATIONS);
  assert.deepEqual(again, []);

  assert.deepEqual(
    await ledger(db),
    ENGINE_MIGRATIONS.map((m) => ({ version: m.version, name: m.name, tenant: "default" })),
  );
  const { rows: recorded } = await db.query<{ checksum: string; applied_at: Date }>(
    "select checksum, applied_at from sutra_schema_history",
  );
  assert.equal(recorded[0].checksum, await checksum(ENGINE_MIGRATIONS[0].sql));
  assert.ok(recorded[0].applied_at instanceof Date);

  const { rows: columns } = await db.query<{ column_name: string }>(
    `select column_name from information_schema.columns
      where table_name = 'leases' and table_schema = current_schema() order by ordinal_position`,
  );
  assert.deepEqual(columns.map((c) => c.column_name), [
    "tenant",
    "role",
    "owner",
    "expires_at",
    "acquired_at",
  ]);
  await db.query(
    "insert into leases (role, owner, expires_at) values ('timers', 'engine-a', now())",
  );
  await assert.rejects(
    db.query("insert into leases (role, owner, expires_at) values ('timers', 'engine-b', now())"),
    /duplicate key/,
  );
});

eachDatabase("migrations apply in version order whatever the list order", async (db) => {
  const result = await migrate(db, [V3, V1, V2]);
  assert.deepEqual(result.map((m) => m.version), [1, 2, 3]);
  assert.deepEqual((await ledger(db)).map((r) => r.name), ["first", "second", "third"]);
  assert.deepEqual((await db.query("select k from two")).rows, [{ k: 2 }]);
});

eachDatabase("a changed script is refused with both checksums named", async (db) => {
  await migrate(db, [V1, V2]);
  const edited = { ...V2, sql: V2.sql + " insert into two values (3);" };
  const error = await migrate(db, [V1, edited, V3]).catch((e) => e);
  assert.deepEqual(codesOf(error), ["SUTRA.DB.MIGRATION.CHECKSUM_MISMATCH"]);
  const [d] = (error as DiagnosticError).diagnostics;
  assert.equal(d.attributes?.version, 2);
  assert.equal(d.attributes?.expected, await checksum(edited.sql));
  assert.equal(d.attributes?.recorded, await checksum(V2.sql));
  assert.match(d.message, new RegExp(await checksum(V2.sql)));
  assert.match(d.message, new RegExp(await checksum(edited.sql)));
  // Nothing was applied past the refusal.
  assert.equal(await tableExists(db, "three"), false);
});

eachDatabase("a ledger from a newer engine is refused, every problem reported", async (db) => {
  await migrate(db, [V1, V2, V3]);
  const error = await migrate(db, [{ ...V1, sql: "-- edited\n" + V1.sql }]).catch((e) => e);
  assert.deepEqual(codesOf(error), [
    "SUTRA.DB.MIGRATION.CHECKSUM_MISMATCH",
    "SUTRA.DB.MIGRATION.UNKNOWN_VERSION",
    "SUTRA.DB.MIGRATION.UNKNOWN_VERSION",
  ]);
  assert.deepEqual(
    (error as DiagnosticError).diagnostics.slice(1).map((d) => d.attributes?.version),
    [2, 3],
  );
});

eachDatabase("a failing script rolls back with its ledger row, earlier ones stay", async (db) => {
  const broken: Migration = {
    version: 2,
    name: "broken",
    sql: "create table half (k int); insert into missing_table values (1);",
  };
  const error = await migrate(db, [V1, broken, V3]).catch((e) => e);
  assert.deepEqual(codesOf(error), ["SUTRA.DB.MIGRATION.FAILED"]);
  const [d] = (error as DiagnosticError).diagnostics;
  assert.equal(d.attributes?.version, 2);
  assert.equal(d.attributes?.sqlstate, "42P01");
  assert.match(d.message, /migration 2 \(broken\) failed and was rolled back: .*missing_table/);
  assert.deepEqual((await ledger(db)).map((r) => r.version), [1]);
  assert.equal(await tableExists(db, "one"), true);
  assert.equal(await tableExists(db, "half"), false);
  assert.equal(await tableExists(db, "three"), false);
});

eachDatabase("status, verify and dry runs read without writing", async (db) => {
  assert.deepEqual(
    (await migrationStatus(db, [V1, V2])).map((e) => [e.version, e.state]),
    [[1, "pending"], [2, "pending"]],
  );
  const dry = await migrate(db, [V1, V2], { dryRun: true });
  assert.deepEqual(dry.map((m) => m.version), [1, 2]);
  assert.equal(await tableExists(db, "sutra_schema_history"), false);
  assert.equal(await tableExists(db, "one"), false);

  await migrate(db, [V1, V2, V3]);
  await db.exec("delete from sutra_schema_history where version = 1");
  const drifted: Migration[] = [V1, { ...V2, sql: "select 1;" }, {
    version: 4,
    name: "fourth",
    sql: "select 4;",
  }];
  const status = await migrationStatus(db, drifted);
  assert.deepEqual(status.map((e) => [e.version, e.name, e.state]), [
    [1, "first", "pending"],
    [2, "second", "mismatch"],
    [3, "third", "unknown"],
    [4, "fourth", "pending"],
  ]);
  assert.equal(status[1].checksum, await checksum("select 1;"));
  assert.equal(status[1].recordedChecksum, await checksum(V2.sql));
  assert.ok(status[2].appliedAt instanceof Date);
  assert.equal(status[0].appliedAt, undefined);

  const diagnostics = await verifyMigrations(db, drifted);
  assert.deepEqual(diagnostics.map((d) => [d.code, d.attributes?.version]), [
    ["SUTRA.DB.MIGRATION.PENDING", 1],
    ["SUTRA.DB.MIGRATION.CHECKSUM_MISMATCH", 2],
    ["SUTRA.DB.MIGRATION.UNKNOWN_VERSION", 3],
    ["SUTRA.DB.MIGRATION.PENDING", 4],
  ]);
  await assert.rejects(migrate(db, drifted, { dryRun: true }), DiagnosticError);
  // The ledger now holds exactly versions 2 and 3 as shipped.
  assert.deepEqual(await verifyMigrations(db, [V2, V3]), []);
});

eachDatabase("a malformed migration list is a programming error", async (db) => {
  await assert.rejects(migrate(db, [V1, { ...V2, version: 1 }]), /listed twice/);
  await assert.rejects(migrate(db, [{ ...V1, version: 0 }]), /positive integer/);
  assert.equal(await tableExists(db, "sutra_schema_history"), false);
});

tier2Test("two engines migrating one schema at once apply each migration once", async () => {
  await withServerDatabase(async (_db, target) => {
    const slow: Migration[] = [
      {
        version: 1,
        name: "counter",
        sql: "create table counter (n int); insert into counter values (0);",
      },
      { version: 2, name: "slow", sql: "select pg_sleep(0.3); update counter set n = n + 1;" },
      { version: 3, name: "again", sql: "create table not_idempotent (k int);" },
    ];
    const a = await openDatabase(target.url, { schema: target.schema, maxConnections: 2 });
    const b = await openDatabase(target.url, { schema: target.schema, maxConnections: 2 });
    try {
      const [ra, rb] = await Promise.all([migrate(a, slow), migrate(b, slow)]);
      const versions = [...ra, ...rb].map((m) => m.version).sort();
      assert.deepEqual(versions, [1, 2, 3]);
      assert.deepEqual((await a.query("select n from counter")).rows, [{ n: 1 }]);
      assert.deepEqual((await ledger(b)).map((r) => r.version), [1, 2, 3]);
    } finally {
      await a.close();
      await b.close();
    }
  });
});
