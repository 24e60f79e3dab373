import assert from "node:assert/strict";
import { join } from "node:path";
import { DiagnosticError } from "../core/diagnostic.ts";
import {
  serverDatabaseUrl,
  tier2Test,
  withServerDatabase,
} from "../../tests/support/test_database.ts";
import { mergeCredentials, openDatabase, resolveDatabaseTarget } from "./mod.ts";

function hasCode(code: string, pattern?: RegExp): (e: unknown) => boolean {
  return (e) => {
    assert.ok(e instanceof DiagnosticError, `expected a DiagnosticError, got ${e}`);
    assert.equal(e.diagnostics.length, 1);
    assert.equal(e.diagnostics[0].code, code);
    if (pattern) assert.match(e.diagnostics[0].message, pattern);
    assert.doesNotMatch(e.diagnostics[0].message, /\n/);
    return true;
  };
}

Deno.test("datasource URLs are classified, credentials never described", () => {
  assert.deepEqual(resolveDatabaseTarget(undefined), {
    kind: "directory",
    path: "./.sutra/engine-db",
    description: "pglite:./.sutra/engine-db",
  });
  assert.deepEqual(resolveDatabaseTarget("  ", { dataDir: "/var/lib/sutra" }), {
    kind: "directory",
    path: "/var/lib/sutra",
    description: "pglite:/var/lib/sutra",
  });
  assert.deepEqual(resolveDatabaseTarget("memory://"), {
    kind: "memory",
    description: "pglite:memory://",
  });
  assert.deepEqual(resolveDatabaseTarget("file:///srv/db"), {
    kind: "directory",
    path: "/srv/db",
    description: "pglite:/srv/db",
  });
  assert.deepEqual(
    resolveDatabaseTarget("postgresql://app:s3cret@db.internal:6543/sutra?sslmode=require"),
    {
      kind: "server",
      url: "postgresql://app:s3cret@db.internal:6543/sutra?sslmode=require",
      description: "postgresql://db.internal:6543/sutra",
    },
  );
});

Deno.test("an unsupported URL is SUTRA.DB.URL_INVALID without its password", () => {
  for (
    const url of ["mysql://root:s3cret@localhost/db", "localhost:5432", "postgres://", "file://"]
  ) {
    assert.throws(() => resolveDatabaseTarget(url), (e) => {
      hasCode("SUTRA.DB.URL_INVALID")(e);
      assert.doesNotMatch((e as Error).message, /s3cret/);
      return true;
    });
  }
});

Deno.test("openDatabase refuses a bad URL and a bad schema name before connecting", async () => {
  await assert.rejects(openDatabase("redis://localhost"), hasCode("SUTRA.DB.URL_INVALID"));
  await assert.rejects(
    openDatabase("memory://", { schema: "" }),
    hasCode("SUTRA.CONFIG.PROPERTY.INVALID"),
  );
  await assert.rejects(
    openDatabase("memory://", { schema: "x".repeat(64) }),
    hasCode("SUTRA.CONFIG.PROPERTY.INVALID"),
  );
});

Deno.test("credentials merge into server URLs only, percent-encoded", () => {
  assert.equal(
    mergeCredentials("postgres://db:5432/sutra", { username: "app", password: "p@ss:w/rd" }),
    "postgres://app:p%40ss%3Aw%2Frd@db:5432/sutra",
  );
  assert.equal(
    mergeCredentials("postgres://old:pw@db/sutra", { password: "new" }),
    "postgres://old:new@db/sutra",
  );
  assert.equal(mergeCredentials("memory://", { username: "x" }), "memory://");
});

Deno.test("a refused server connection fails fast with SUTRA.DB.UNREACHABLE", async () => {
  const started = performance.now();
  await assert.rejects(
    openDatabase("postgres://postgres:hunter2@127.0.0.1:1/x"),
    (e) => {
      hasCode("SUTRA.DB.UNREACHABLE", /postgres:\/\/127\.0\.0\.1:1\/x/)(e);
      assert.doesNotMatch((e as Error).message, /hunter2/);
      return true;
    },
  );
  assert.ok(performance.now() - started < 5000, "took longer than the connect timeout");
});

Deno.test("a server that never answers fails once the connect timeout passes", async () => {
  // Accepts connections and never says a word.
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const accepted: Deno.Conn[] = [];
  const accepting = (async () => {
    for await (const conn of listener) accepted.push(conn);
  })();
  try {
    const started = performance.now();
    await assert.rejects(
      openDatabase(`postgres://postgres@127.0.0.1:${listener.addr.port}/x`, {
        connectTimeoutSeconds: 1,
      }),
      hasCode("SUTRA.DB.UNREACHABLE", /127\.0\.0\.1/),
    );
    const elapsed = performance.now() - started;
    assert.ok(elapsed >= 900 && elapsed < 4000, `failed after ${elapsed} ms`);
    assert.ok(accepted.length >= 1);
  } finally {
    listener.close();
    await accepting;
    for (const conn of accepted) {
      try {
        conn.close();
      } catch {
        // already closed by the client
      }
    }
  }
});

Deno.test("an embedded directory is created, survives a clean close and reopens", async () => {
  const tmp = await Deno.makeTempDir({ prefix: "sutra_open_" });
  try {
    const dir = join(tmp, "nested", "engine-db");
    const first = await openDatabase(undefined, { dataDir: dir });
    assert.equal(first.driver, "pglite");
    assert.equal(first.description, `pglite:${dir}`);
    await first.exec("create table kept (v text)");
    await first.query("insert into kept values ($1)", ["survives"]);
    await first.close();

    const again = await openDatabase(`file://${dir}`);
    try {
      assert.deepEqual((await again.query("select v from kept")).rows, [{ v: "survives" }]);
    } finally {
      await again.close();
    }
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
});

Deno.test("a second opener of an embedded directory is refused until the first closes", async () => {
  const tmp = await Deno.makeTempDir({ prefix: "sutra_lock_" });
  try {
    const first = await openDatabase(undefined, { dataDir: tmp });
    try {
      await assert.rejects(
        openDatabase(undefined, { dataDir: tmp }),
        hasCode("SUTRA.DB.UNREACHABLE", /is in use by another process/),
      );
      const child = new Deno.Command(Deno.execPath(), {
        args: [
          "eval",
          "--config",
          new URL("../../deno.json", import.meta.url).pathname,
          `import { openDatabase } from ${
            JSON.stringify(new URL("./open.ts", import.meta.url).href)
          };
           try { await openDatabase(undefined, { dataDir: ${
            JSON.stringify(tmp)
          } }); console.log("opened"); }
           catch (e) { console.log(e.diagnostics?.[0]?.code ?? String(e)); }`,
        ],
        stdout: "piped",
        stderr: "piped",
      });
      const { stdout } = await child.output();
      assert.equal(new TextDecoder().decode(stdout).trim(), "SUTRA.DB.UNREACHABLE");
    } finally {
      await first.close();
    }
    const second = await openDatabase(undefined, { dataDir: tmp });
    await second.close();
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
});

tier2Test("a server database reports no credentials and works in its schema", async () => {
  await withServerDatabase(async (_db, target) => {
    const withPassword = mergeCredentials(target.url, { password: "not-needed" });
    const [a, b] = await Promise.all([
      openDatabase(withPassword, { schema: target.schema }),
      openDatabase(target.url, { schema: target.schema }),
    ]);
    try {
      assert.equal(a.driver, "postgres");
      assert.doesNotMatch(a.description, /not-needed/);
      assert.match(a.description, new RegExp(`\\(schema ${target.schema}\\)$`));
      await a.exec("create table here (k int)");
      const { rows } = await b.query<{ schemaname: string }>(
        "select schemaname from pg_tables where tablename = 'here'",
      );
      assert.deepEqual(rows, [{ schemaname: target.schema }]);
    } finally {
      await a.close();
      await b.close();
    }
  });
});

tier2Test("the tier-2 URL is visible to the helpers", () => {
  assert.ok(serverDatabaseUrl());
  return Promise.resolve();
});
