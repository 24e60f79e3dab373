import assert from "node:assert/strict";
import { replayDdl, statements } from "./_ddl.ts";

const replay = (...texts: string[]) =>
  replayDdl(texts.map((text, i) => ({ file: `V${i + 1}__x.sql`, text })));

function table(r: ReturnType<typeof replayDdl>, name: string) {
  assert.ok(r.ok, JSON.stringify(r));
  const t = r.tables.get(name);
  assert.ok(t, `no table ${name}`);
  return t;
}

Deno.test("statements split at semicolons and GO lines, not inside quotes or bodies", () => {
  const split = statements(
    "-- a; comment\nINSERT INTO t VALUES ('a;b');\n/* x; */CREATE TABLE \"t;\" (a INT)\nGO\n" +
      "DO $$ BEGIN PERFORM 1; END $$;",
  );
  assert.deepEqual(split.map((s) => [s.line, s.text]), [
    [2, "INSERT INTO t VALUES ('a;b')"],
    [3, 'CREATE TABLE "t;" (a INT)'],
    [5, "DO $$ BEGIN PERFORM 1; END $$"],
  ]);
});

Deno.test("MySQL spellings: backticks, table options, MODIFY and CHANGE", () => {
  const r = replay(
    "CREATE TABLE `accounts` (`store_key` VARCHAR(512) NOT NULL, balance DECIMAL(18,2) " +
      "UNSIGNED NOT NULL DEFAULT 0, note VARCHAR(10) CHARACTER SET utf8mb4, " +
      "flag TINYINT(1), PRIMARY KEY (`store_key`)) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;",
    "ALTER TABLE accounts MODIFY COLUMN note VARCHAR(140) NULL, CHANGE flag active BOOLEAN NOT NULL;",
  );
  const t = table(r, "accounts");
  assert.deepEqual(t.primaryKey, ["store_key"]);
  assert.deepEqual(
    [...t.columns.values()].map((c) => [c.name, c.type, c.args, c.nullable, c.hasDefault]),
    [
      ["store_key", "VARCHAR", ["512"], false, false],
      ["balance", "DECIMAL", ["18", "2"], false, true],
      ["note", "VARCHAR", ["140"], true, false],
      ["active", "BOOLEAN", [], false, false],
    ],
  );
  assert.equal(t.columns.get("active")!.file, "V2__x.sql");
});

Deno.test("SQL Server spellings: brackets, NVARCHAR(MAX), a named clustered key, ALTER COLUMN", () => {
  const r = replay(
    "CREATE TABLE [dbo].[accounts] ([store_key] NVARCHAR(512) NOT NULL, [note] NVARCHAR(MAX), " +
      "[at] DATETIMEOFFSET NOT NULL, CONSTRAINT [pk_accounts] PRIMARY KEY CLUSTERED ([store_key] ASC))\nGO\n" +
      "ALTER TABLE [accounts] ALTER COLUMN [note] NVARCHAR(140) NOT NULL",
  );
  const t = table(r, "accounts");
  assert.deepEqual(t.primaryKey, ["store_key"]);
  assert.deepEqual(
    [t.columns.get("note")!.type, t.columns.get("note")!.args, t.columns.get("note")!.nullable],
    ["NVARCHAR", ["140"], false],
  );
});

Deno.test("PostgreSQL: TYPE changes keep nullability; drops, renames and DROP TABLE apply", () => {
  const r = replay(
    'CREATE TABLE IF NOT EXISTS public.accounts (store_key TEXT PRIMARY KEY, "Odd" INT, ' +
      "x TIMESTAMP(6) WITH TIME ZONE NOT NULL, gone INT);",
    "ALTER TABLE accounts ALTER COLUMN x TYPE TIMESTAMPTZ, DROP COLUMN IF EXISTS gone, " +
      'RENAME COLUMN "Odd" TO odd; CREATE TABLE tmp (a INT); DROP TABLE IF EXISTS tmp;',
    "CREATE TABLE IF NOT EXISTS accounts (other INT);",
  );
  assert.ok(r.ok);
  assert.deepEqual([...r.tables.keys()], ["accounts"]);
  const t = table(r, "accounts");
  assert.deepEqual([...t.columns.keys()], ["store_key", "x", "odd"]);
  assert.deepEqual([t.columns.get("x")!.type, t.columns.get("x")!.nullable], [
    "TIMESTAMPTZ",
    false,
  ]);
});

Deno.test("anything outside the subset stops the replay with where and why", () => {
  const guard = replay("IF OBJECT_ID(N'accounts', N'U') IS NULL\nCREATE TABLE accounts (a INT)");
  assert.deepEqual(guard, {
    ok: false,
    file: "V1__x.sql",
    line: 1,
    reason: "the statement IF OBJECT_ID ( N … is outside the parsed subset",
  });
  const using = replay(
    "CREATE TABLE a (x TEXT)",
    "ALTER TABLE a ALTER COLUMN x TYPE INT USING x::int",
  );
  assert.equal(using.ok, false);
  assert.match((using as { reason: string }).reason, /USING is outside the parsed subset/);
  const unknown = replay("ALTER TABLE nowhere ADD COLUMN a INT");
  assert.match((unknown as { reason: string }).reason, /a table the scripts never create/);
});
