import assert from "node:assert/strict";
import { mssqlConfig, mssqlDialect, splitBatches } from "./_mssql.ts";
import { mysqlDialect } from "./_mysql.ts";
import { postgresDialect } from "./_postgres.ts";
import type { SqlDialect } from "./_sql.ts";
import { SqlError } from "../../engine/persistence/mod.ts";

// How many parameters a statement binds, in the dialect's placeholder style.
function placeholders(dialect: SqlDialect, sql: string): number {
  if (dialect === mysqlDialect) return (sql.match(/\?/g) ?? []).length;
  const numbered = [...sql.matchAll(dialect === mssqlDialect ? /@p(\d+)/g : /\$(\d+)/g)];
  return Math.max(0, ...numbered.map((m) => Number(m[1])));
}

for (const dialect of [postgresDialect, mysqlDialect, mssqlDialect]) {
  Deno.test(`${dialect.name}: every statement binds the parameters the store passes`, () => {
    assert.equal(placeholders(dialect, dialect.select("kv", false)), 2);
    assert.equal(placeholders(dialect, dialect.select("kv", true)), 2);
    assert.equal(placeholders(dialect, dialect.upsert("kv")[0]), 3);
    assert.equal(placeholders(dialect, dialect.update("kv")), 4);
    assert.equal(placeholders(dialect, dialect.delete("kv", false)), 2);
    assert.equal(placeholders(dialect, dialect.delete("kv", true)), 3);
    assert.match(dialect.createTable("kv"), /PRIMARY KEY[A-Z ]*\(store_name, store_key\)/);
  });

  Deno.test(`${dialect.name}: the marks table is keyed for a range purge by time`, () => {
    const ddl = dialect.createMarksTable("marks");
    // `at` leads the key so that a purge is a range delete.
    assert.match(ddl, /PRIMARY KEY[A-Z ]*\(["`[]?at["`\]]?, redo_id, store_name\)/);
    assert.match(ddl, /["`[]?at["`\]]? BIGINT NOT NULL/);
    assert.match(ddl, /redo_id N?VARCHAR\(64\) NOT NULL/);
    assert.match(ddl, /store_name N?VARCHAR\(200\) NOT NULL/);
    assert.match(ddl, /CREATE TABLE IF NOT EXISTS|IF OBJECT_ID\(N'marks', N'U'\) IS NULL/);
    assert.equal(placeholders(dialect, dialect.insertMark("marks")), 3);
    assert.match(dialect.insertMark("marks"), /^INSERT INTO \S+ \(\S+, redo_id, store_name\)/);
    assert.equal(placeholders(dialect, dialect.purgeMarks("marks")), 2);
    assert.match(dialect.purgeMarks("marks"), /WHERE store_name = \S+ AND \S+ < \S+$/);
  });
}

Deno.test("mysql: the marks table is InnoDB with binary collation, like the key/value table", () => {
  assert.match(
    mysqlDialect.createMarksTable("marks"),
    /\) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin$/,
  );
});

Deno.test("each dialect tells a duplicate mark from any other failure", () => {
  const sql = (code: string) => new SqlError(`sqlstate ${code}`, { code });
  assert.equal(postgresDialect.duplicate(sql("23505")), true);
  assert.equal(postgresDialect.duplicate(sql("23503")), false);
  assert.equal(postgresDialect.duplicate(sql("40P01")), false);
  assert.equal(postgresDialect.duplicate(Object.assign(new Error("x"), { code: "23505" })), false);
  const errno = (n: number) => Object.assign(new Error("x"), { errno: n });
  assert.equal(mysqlDialect.duplicate(errno(1062)), true);
  assert.equal(mysqlDialect.duplicate(errno(1213)), false);
  assert.equal(mysqlDialect.duplicate(null), false);
  assert.equal(mssqlDialect.duplicate(Object.assign(new Error("x"), { number: 2627 })), true);
  assert.equal(
    mssqlDialect.duplicate(
      Object.assign(new Error("x"), { originalError: { info: { number: 2601 } } }),
    ),
    true,
  );
  assert.equal(mssqlDialect.duplicate(Object.assign(new Error("x"), { number: 1205 })), false);
  assert.equal(mssqlDialect.duplicate(undefined), false);
});

Deno.test("sqlserver: a locking read holds an update lock, a plain one does not", () => {
  assert.equal(
    mssqlDialect.select("kv", true),
    "SELECT value, rev FROM [kv] WITH (UPDLOCK, ROWLOCK) WHERE store_name = @p1 AND store_key = @p2",
  );
  assert.equal(
    mssqlDialect.select("kv", false),
    "SELECT value, rev FROM [kv] WHERE store_name = @p1 AND store_key = @p2",
  );
});

Deno.test("sqlserver: the upsert updates under a range lock, else inserts, returning rev", () => {
  const [batch] = mssqlDialect.upsert("kv");
  assert.match(batch, /^UPDATE \[kv\] WITH \(UPDLOCK, HOLDLOCK\) SET value = @p3, rev = rev \+ 1/);
  assert.match(batch, /OUTPUT inserted\.rev WHERE store_name = @p1 AND store_key = @p2;/);
  assert.match(
    batch,
    /IF @@ROWCOUNT = 0\nINSERT INTO \[kv\] .* OUTPUT inserted\.rev VALUES \(@p1, @p2, @p3, 1,/,
  );
  assert.equal(
    mssqlDialect.update("kv"),
    "UPDATE [kv] SET value = @p1, rev = rev + 1, updated_at = SYSUTCDATETIME() " +
      "WHERE store_name = @p2 AND store_key = @p3 AND rev = @p4",
  );
  assert.equal(
    mssqlDialect.delete("kv", true),
    "DELETE FROM [kv] WHERE store_name = @p1 AND store_key = @p2 AND rev = @p3",
  );
});

Deno.test("sqlserver: the table is created only when missing", () => {
  const ddl = mssqlDialect.createTable("kv");
  assert.match(ddl, /^IF OBJECT_ID\(N'kv', N'U'\) IS NULL\nCREATE TABLE \[kv\]/);
  assert.match(ddl, /value NVARCHAR\(MAX\) NOT NULL/);
  assert.match(ddl, /CONSTRAINT \[kv_pk\] PRIMARY KEY NONCLUSTERED/);
});

Deno.test("sqlserver: scripts split at GO lines only", () => {
  assert.deepEqual(
    splitBatches("CREATE TABLE a (x INT)\nGO\n  go ;\nINSERT INTO a VALUES (1) -- GO on\nGO\n"),
    ["CREATE TABLE a (x INT)", "INSERT INTO a VALUES (1) -- GO on"],
  );
  assert.deepEqual(splitBatches("SELECT 1"), ["SELECT 1"]);
});

Deno.test("sqlserver: the URL and credential references become the driver config", () => {
  assert.deepEqual(mssqlConfig("sqlserver://sa:p%40ss@db.local/ledger", {}), {
    server: "db.local",
    port: 1433,
    database: "ledger",
    user: "sa",
    password: "p@ss",
    options: { encrypt: true, trustServerCertificate: false },
  });
  assert.deepEqual(
    mssqlConfig("mssql://db:14330/?encrypt=false&trustServerCertificate=true", {
      username: "app",
      password: "from-ref",
    }),
    {
      server: "db",
      port: 14330,
      user: "app",
      password: "from-ref",
      options: { encrypt: false, trustServerCertificate: true },
    },
  );
});

Deno.test("each dialect names the errors that abort a transaction for contention", () => {
  const sql = (code: string) => new SqlError(`sqlstate ${code}`, { code });
  assert.equal(postgresDialect.transient(sql("40P01")), "deadlock");
  assert.equal(postgresDialect.transient(sql("40001")), "serialization failure");
  assert.equal(postgresDialect.transient(sql("55P03")), "lock wait timeout");
  assert.equal(postgresDialect.transient(sql("23505")), undefined);
  assert.equal(postgresDialect.transient(new Error("deadlock detected")), undefined);
  assert.equal(mysqlDialect.transient(Object.assign(new Error("x"), { errno: 1213 })), "deadlock");
  assert.equal(
    mysqlDialect.transient(Object.assign(new Error("x"), { errno: 1205 })),
    "lock wait timeout",
  );
  assert.equal(mysqlDialect.transient(Object.assign(new Error("x"), { errno: 1062 })), undefined);
  assert.equal(mssqlDialect.transient(Object.assign(new Error("x"), { number: 1205 })), "deadlock");
  assert.equal(
    mssqlDialect.transient(
      Object.assign(new Error("x"), { originalError: { info: { number: 1222 } } }),
    ),
    "lock wait timeout",
  );
  assert.equal(mssqlDialect.transient(Object.assign(new Error("x"), { number: 2627 })), undefined);
  assert.equal(mssqlDialect.transient(null), undefined);
});
