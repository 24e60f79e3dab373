import assert from "node:assert/strict";
import { join } from "node:path";
import { ENGINE_MIGRATIONS, type Migration, openDatabase } from "../engine/persistence/mod.ts";
import { tier2Test, withServerDatabase } from "../tests/support/test_database.ts";
import { type CapturedIo, captureIo } from "../tests/support/cli_io.ts";
import { UsageError, verboseIo } from "./command.ts";
import { createMigrateCommand, migrateCommand } from "./migrate.ts";

const HEAD = ENGINE_MIGRATIONS.length;

function capture(env: Record<string, string> = {}): CapturedIo {
  return captureIo({ env });
}

async function withTempDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "sutra_migrate_cli_" });
  try {
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

const V1: Migration = { version: 1, name: "one", sql: "create table one (k int);" };
const V2: Migration = { version: 2, name: "two", sql: "create table two (k int);" };
const V3: Migration = { version: 3, name: "three", sql: "create table three (k int);" };

Deno.test("migrate applies to the embedded default, then reports it up to date", async () => {
  await withTempDir(async (dir) => {
    const command = createMigrateCommand({ defaultDataDir: join(dir, "engine-db") });
    const first = capture();
    assert.equal(await command.run([], first.io), 0);
    assert.equal(
      first.out(),
      `${ENGINE_MIGRATIONS.map((m) => `applied ${m.version} ${m.name}\n`).join("")}pglite:${
        join(dir, "engine-db")
      } is now at version ${HEAD}\n`,
    );
    assert.equal(first.err(), "");

    const second = capture();
    assert.equal(await command.run([], second.io), 0);
    assert.match(second.out(), new RegExp(`^pglite:.* is up to date at version ${HEAD}\n$`));

    const status = capture();
    assert.equal(await command.run(["status"], status.io), 0);
    const lines = status.out().trimEnd().split("\n");
    assert.equal(lines[0], `database: pglite:${join(dir, "engine-db")}`);
    assert.match(lines[1], /^VERSION +NAME +STATE +APPLIED AT$/);
    assert.match(lines[2], /^1 +foundation +applied +\d{4}-\d\d-\d\dT[\d:.]+Z$/);

    const json = capture();
    assert.equal(await command.run(["status", "--format", "json"], json.io), 0);
    const parsed = JSON.parse(json.out());
    assert.equal(parsed.ok, true);
    assert.equal(parsed.migrations.length, ENGINE_MIGRATIONS.length);
    assert.equal(parsed.migrations[0].state, "applied");
    assert.equal(parsed.migrations[0].checksum, parsed.migrations[0].recordedChecksum);
    assert.ok(!Number.isNaN(Date.parse(parsed.migrations[0].appliedAt)));

    const verify = capture();
    assert.equal(await command.run(["verify"], verify.io), 0);
    assert.match(
      verify.out(),
      new RegExp(`^ok: pglite:.* matches this engine's ${HEAD} migration\\(s\\)\n$`),
    );
  });
});

Deno.test("--dry-run lists what would apply and changes nothing", async () => {
  await withTempDir(async (dir) => {
    const command = createMigrateCommand({ migrations: [V1, V2] });
    const url = `file://${dir}`;
    const dry = capture();
    assert.equal(await command.run(["--dry-run", "--url", url], dry.io), 0);
    assert.equal(dry.out(), "would apply 1 one\nwould apply 2 two\n");

    const dryJson = capture();
    assert.equal(await command.run(["--dry-run", "--url", url, "--format", "json"], dryJson.io), 0);
    assert.deepEqual(JSON.parse(dryJson.out()), {
      ok: true,
      database: `pglite:${dir}`,
      dryRun: true,
      pending: [{ version: 1, name: "one" }, { version: 2, name: "two" }],
    });

    const status = capture();
    assert.equal(await command.run(["status", "--url", url, "--format", "json"], status.io), 0);
    assert.deepEqual(
      JSON.parse(status.out()).migrations.map((m: { state: string }) => m.state),
      ["pending", "pending"],
    );
  });
});

Deno.test("verify exits 1 and prints every problem, as lines or JSON", async () => {
  await withTempDir(async (dir) => {
    const url = `file://${dir}`;
    assert.equal(
      await createMigrateCommand({ migrations: [V1, V2] }).run(["--url", url], capture().io),
      0,
    );
    const newer = createMigrateCommand({ migrations: [{ ...V1, sql: "select 1;" }, V3] });

    const text = capture();
    assert.equal(await newer.run(["verify", "--url", url], text.io), 1);
    const lines = text.err().trimEnd().split("\n");
    assert.equal(lines.length, 3);
    assert.match(lines[0], /^ERROR SUTRA\.DB\.MIGRATION\.CHECKSUM_MISMATCH: migration 1 /);
    assert.match(lines[1], /^ERROR SUTRA\.DB\.MIGRATION\.UNKNOWN_VERSION: .*migration 2 \(two\)/);
    assert.match(lines[2], /^ERROR SUTRA\.DB\.MIGRATION\.PENDING: migration 3 \(three\)/);
    assert.equal(text.out(), "");

    const json = capture();
    assert.equal(await newer.run(["verify", "--url", url, "--format", "json"], json.io), 1);
    const parsed = JSON.parse(json.out());
    assert.equal(parsed.ok, false);
    assert.deepEqual(parsed.diagnostics.map((d: { code: string }) => d.code), [
      "SUTRA.DB.MIGRATION.CHECKSUM_MISMATCH",
      "SUTRA.DB.MIGRATION.UNKNOWN_VERSION",
      "SUTRA.DB.MIGRATION.PENDING",
    ]);

    const apply = capture();
    assert.equal(await newer.run(["--url", url], apply.io), 1);
    assert.match(apply.err(), /CHECKSUM_MISMATCH[\s\S]*UNKNOWN_VERSION/);
  });
});

Deno.test("settings fall back to SUTRA_DB_* variables", async () => {
  const c = capture({ SUTRA_DB_URL: "memory://", SUTRA_DB_SCHEMA: "engine" });
  assert.equal(await migrateCommand.run(["status", "--format", "json"], c.io), 0);
  const parsed = JSON.parse(c.out());
  assert.equal(parsed.database, "pglite:memory:// (schema engine)");
  assert.deepEqual(
    parsed.migrations.map((m: { state: string }) => m.state),
    ENGINE_MIGRATIONS.map(() => "pending"),
  );
});

Deno.test("without a URL, the embedded directory is the engine's SUTRA_DATASOURCE_EMBEDDED_DIR", async () => {
  await withTempDir(async (dir) => {
    const c = capture({ SUTRA_DATASOURCE_EMBEDDED_DIR: join(dir, "elsewhere") });
    const command = createMigrateCommand({
      defaultDataDir: join(dir, "default"),
      migrations: [V1],
    });
    assert.equal(await command.run([], c.io), 0);
    assert.match(c.out(), new RegExp(`pglite:${join(dir, "elsewhere")} is now at version 1`));
    await assert.rejects(Deno.stat(join(dir, "default")), Deno.errors.NotFound);
  });
});

Deno.test("an unreachable or invalid database is a diagnostic and exit 1", async () => {
  const refused = capture();
  assert.equal(
    await migrateCommand.run(
      ["--url", "postgres://127.0.0.1:1/x", "--password", "hunter2"],
      refused.io,
    ),
    1,
  );
  assert.match(
    refused.err(),
    /^ERROR SUTRA\.DB\.UNREACHABLE: cannot connect .*127\.0\.0\.1:1\/x.*\n$/,
  );
  assert.doesNotMatch(refused.err(), /hunter2/);

  const invalid = capture({ SUTRA_DB_URL: "mysql://localhost/x" });
  assert.equal(await migrateCommand.run(["status", "--format", "json"], invalid.io), 1);
  const parsed = JSON.parse(invalid.out());
  assert.equal(parsed.ok, false);
  assert.equal(parsed.diagnostics[0].code, "SUTRA.DB.URL_INVALID");
});

Deno.test("an embedded database a running engine holds gets a code and says what to do", async () => {
  await withTempDir(async (dir) => {
    const dataDir = join(dir, "engine-db");
    // The engine's own hold on the directory: an open embedded database.
    const engine = await openDatabase(undefined, { dataDir });
    try {
      const command = createMigrateCommand({ defaultDataDir: dataDir });
      const text = capture();
      assert.equal(await command.run(["status"], text.io), 1);
      assert.match(text.err(), /^ERROR SUTRA\.CLI\.MIGRATE\.ENGINE_RUNNING: /);
      assert.match(text.err(), /stop the engine/);
      assert.match(text.err(), /\/sutra\/health\/ready/);
      assert.match(text.err(), /--url postgres:\/\//);

      const json = capture();
      assert.equal(await command.run(["verify", "--format", "json"], json.io), 1);
      const parsed = JSON.parse(json.out());
      assert.equal(parsed.diagnostics[0].code, "SUTRA.CLI.MIGRATE.ENGINE_RUNNING");
      assert.equal(parsed.diagnostics[0].attributes.directory, dataDir);
    } finally {
      await engine.close();
    }
    const after = capture();
    assert.equal(
      await createMigrateCommand({ defaultDataDir: dataDir }).run(["status"], after.io),
      0,
    );
  });
});

Deno.test("bad sub-commands and flags are usage errors; --help prints the usage", async () => {
  for (
    const args of [
      ["upgrade"],
      ["status", "verify"],
      ["--frobnicate"],
      ["status", "--format", "xml"],
      ["status", "--dry-run"],
      ["--url"],
    ]
  ) {
    await assert.rejects(migrateCommand.run(args, capture().io), UsageError, args.join(" "));
  }
  const help = capture();
  assert.equal(await migrateCommand.run(["--help"], help.io), 0);
  assert.match(help.out(), /^Usage: sutra migrate \[status\|verify\]/);
  assert.equal(help.out(), migrateCommand.usage + "\n");
});

tier2Test("migrate against the server merges --user and --password into the URL", async () => {
  await withServerDatabase(async (_db, target) => {
    const url = new URL(target.url);
    const user = decodeURIComponent(url.username) || "postgres";
    url.username = "";
    url.password = "";
    const args = [
      "--url",
      url.href,
      "--user",
      user,
      "--password",
      "unused-by-trust",
      "--schema",
      target.schema,
    ];
    const applied = capture();
    assert.equal(await migrateCommand.run(args, applied.io), 0);
    assert.match(applied.out(), /^applied 1 foundation\n/);
    assert.doesNotMatch(applied.out(), /unused-by-trust/);

    const verify = capture();
    assert.equal(await migrateCommand.run(["verify", ...args, "--format", "json"], verify.io), 0);
    assert.equal(JSON.parse(verify.out()).ok, true);
  });
});

Deno.test("migrate -vv logs the database, the migrations and the time each step took", async () => {
  await withTempDir(async (dir) => {
    const command = createMigrateCommand({
      defaultDataDir: join(dir, "engine-db"),
      migrations: [V1, V2],
    });
    const loud = capture();
    assert.equal(await command.run([], verboseIo(loud.io, "trace", false)), 0);
    assert.match(loud.out(), /applied 1 one\napplied 2 two\n/);
    const err = loud.err();
    assert.match(err, /^DEBUG migrate: apply; schema default; format text\n/);
    assert.match(err, /INFO migrate: 2 migration\(s\) in this engine\n/);
    assert.match(err, /TRACE migrate: migration 1 one: 25 chars\n/);
    assert.match(err, /DEBUG migrate: opening the database took \d+\.\d ms\n/);
    assert.match(err, new RegExp(`INFO migrate: database pglite:${join(dir, "engine-db")}\n`));
    assert.match(err, /DEBUG migrate: applying took /);

    const quiet = capture();
    assert.equal(await command.run(["status"], verboseIo(quiet.io, "quiet", false)), 0);
    assert.equal(quiet.out() + quiet.err(), "");
  });
});
