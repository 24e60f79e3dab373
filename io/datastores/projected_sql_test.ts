import assert from "node:assert/strict";
import type { StoreProjection } from "../../engine/core/datastore.ts";
import {
  fromColumnText,
  isoInstant,
  type LiveColumn,
  projectedSql,
  unsatisfied,
} from "./_projected.ts";

const P: StoreProjection = {
  table: "accounts",
  type: "AccountRecord",
  columns: [
    { field: "balance", column: "balance", type: "decimal", optional: false },
    { field: "note", column: "note", type: "string", optional: true },
  ],
};
const live = (...cols: [string, string, boolean, boolean][]): Map<string, LiveColumn> =>
  new Map(
    cols.map(([name, type, nullable, hasDefault]) => [name, { name, type, nullable, hasDefault }]),
  );
const LIVE = live(
  ["store_key", "character varying", false, false],
  ["balance", "numeric", false, true],
  ["note", "character varying", true, false],
  ["rev", "bigint", false, true],
  ["updated_at", "timestamp with time zone", false, true],
);

Deno.test("postgresql: writes cast text to the live column type, reads render text", () => {
  const sql = projectedSql("postgresql");
  assert.equal(
    sql.select(P, true),
    'SELECT CAST("balance" AS TEXT) AS "balance", CAST("note" AS TEXT) AS "note", rev ' +
      'FROM "accounts" WHERE store_key = $1 FOR UPDATE',
  );
  assert.deepEqual(sql.upsert(P, LIVE), [
    'INSERT INTO "accounts" AS t (store_key, "balance", "note", rev, updated_at) VALUES ($1, ' +
    "CAST($2 AS numeric), CAST($3 AS character varying), 1, now()) ON CONFLICT (store_key) DO " +
    'UPDATE SET "balance" = EXCLUDED."balance", "note" = EXCLUDED."note", rev = t.rev + 1, ' +
    "updated_at = now() RETURNING rev",
  ]);
  assert.equal(
    sql.update(P, LIVE),
    'UPDATE "accounts" SET "balance" = CAST($1 AS numeric), "note" = CAST($2 AS character ' +
      "varying), rev = rev + 1, updated_at = now() WHERE store_key = $3 AND rev = $4",
  );
});

Deno.test("sqlserver: the projected statements bind @p parameters and lock with UPDLOCK", () => {
  const sql = projectedSql("sqlserver");
  assert.equal(
    sql.select(P, true),
    "SELECT CAST([balance] AS NVARCHAR(MAX)) AS [balance], CAST([note] AS NVARCHAR(MAX)) AS " +
      "[note], rev FROM [accounts] WITH (UPDLOCK, ROWLOCK) WHERE store_key = @p1",
  );
  assert.match(
    sql.select(
      { ...P, columns: [{ field: "at", column: "at", type: "dateTime", optional: true }] },
      false,
    ),
    /^SELECT CONVERT\(NVARCHAR\(MAX\), \[at\], 126\) AS \[at\], rev FROM \[accounts\] WHERE/,
  );
  const [upsert] = sql.upsert(P, LIVE);
  assert.match(
    upsert,
    /^UPDATE \[accounts\] WITH \(UPDLOCK, HOLDLOCK\) SET \[balance\] = @p2, \[note\] = @p3/,
  );
  assert.match(upsert, /IF @@ROWCOUNT = 0\nINSERT INTO \[accounts\] .* VALUES \(@p1, @p2, @p3, 1,/);
  assert.equal(
    sql.update(P, LIVE),
    "UPDATE [accounts] SET [balance] = @p1, [note] = @p2, rev = rev + 1, updated_at = " +
      "SYSUTCDATETIME() WHERE store_key = @p3 AND rev = @p4",
  );
  assert.equal(sql.delete(P, true), "DELETE FROM [accounts] WHERE store_key = @p1 AND rev = @p2");
});

Deno.test("column text comes back typed by the declared built-in", () => {
  const col = (type: string) => ({ field: "f", column: "f", type, optional: false });
  assert.equal(fromColumnText(col("decimal"), "12.30"), 12.3);
  assert.equal(fromColumnText(col("decimal"), "12345678901234567.89"), "12345678901234567.89");
  assert.equal(fromColumnText(col("integer"), "42"), 42);
  assert.equal(fromColumnText(col("long"), "9007199254740993"), "9007199254740993");
  assert.equal(fromColumnText(col("boolean"), "1"), true);
  assert.equal(fromColumnText(col("boolean"), "false"), false);
  assert.equal(fromColumnText(col("date"), "2026-01-15"), "2026-01-15");
  assert.equal(
    fromColumnText(col("dateTime"), "2026-08-04 15:00:00+00"),
    "2026-08-04T15:00:00+00:00",
  );
});

Deno.test("instants render as ISO-8601 with an explicit offset", () => {
  assert.equal(isoInstant("2026-08-04 15:00:00.250+05:30"), "2026-08-04T15:00:00.25+05:30");
  assert.equal(isoInstant("2026-08-04 15:00:00.000000"), "2026-08-04T15:00:00+00:00");
  assert.equal(isoInstant("2026-08-04T15:00:00.0000000+00:00"), "2026-08-04T15:00:00+00:00");
  assert.equal(isoInstant("10:00:00-0500"), "10:00:00-05:00");
  assert.equal(isoInstant("not a time"), "not a time");
});

Deno.test("a live table is unsatisfiable for every missing or unfillable column", () => {
  assert.deepEqual(unsatisfied(P, LIVE), []);
  assert.deepEqual(unsatisfied(P, new Map()), ["the table does not exist"]);
  const drifted = live(
    ["store_key", "text", false, false],
    ["balance", "numeric", false, false],
    ["branch", "text", false, false],
  );
  assert.deepEqual(unsatisfied(P, drifted), [
    "control column 'rev' is missing",
    "control column 'updated_at' is missing",
    "column 'note' (field 'note') is missing",
    "column 'branch' is NOT NULL without a default, and no declared field fills it",
  ]);
});
