import assert from "node:assert/strict";
import { ENGINE_MIGRATIONS, openDatabase } from "../engine/persistence/mod.ts";
import { type EngineChild, spawnEngine } from "./support/engine_process.ts";
import { serverDatabaseUrl, tier2Test } from "./support/test_database.ts";

async function get(port: number, path: string): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`http://127.0.0.1:${port}${path}`);
  return { status: res.status, body: await res.json() };
}

async function stop(engine: EngineChild): Promise<{ code: number; stderr: string }> {
  engine.kill("SIGTERM");
  return await engine.exited;
}

async function withTempDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "sutra-engine-" });
  try {
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("the engine boots on the embedded database, serves health, stops, and restarts", async () => {
  await withTempDir(async (dir) => {
    const first = spawnEngine({ cwd: dir });
    const port = await first.started;
    assert.deepEqual(await get(port, "/sutra/health/live"), {
      status: 200,
      body: { status: "UP" },
    });
    const ready = await get(port, "/sutra/health/ready");
    assert.equal(ready.status, 200);
    const checks = (ready.body as { checks: { name: string; status: string }[] }).checks;
    assert.deepEqual(checks.map((c) => [c.name, c.status]), [
      ["database", "UP"],
      ["migrations", "UP"],
      ["loader", "UP"],
    ]);

    const boot = first.records.find((r) => String(r.message).includes("started"))!;
    assert.match(String(boot.message), /database pglite:.*\.sutra\/engine-db/);
    assert.match(String(boot.message), /telemetry export off \(no OTLP endpoint configured\)/);
    assert.equal(boot.level, "INFO");
    assert.equal(boot["service.name"], "sutra-engine");

    const exit = await stop(first);
    assert.equal(exit.code, 0, exit.stderr);
    assert.ok(first.records.some((r) => r.message === "sutra-engine stopped"));
    assert.ok((await Deno.stat(`${dir}/.sutra/engine-db`)).isDirectory);

    const second = spawnEngine({ cwd: dir });
    const port2 = await second.started;
    assert.equal((await get(port2, "/sutra/health/live")).status, 200);
    const reboot = second.records.find((r) => String(r.message).includes("started"))!;
    assert.equal(reboot.migrationsApplied, 0);
    assert.equal((await stop(second)).code, 0);
  });
});

Deno.test("a second engine on the same embedded directory is refused while the first runs", async () => {
  await withTempDir(async (dir) => {
    const first = spawnEngine({ cwd: dir });
    await first.started;
    const second = spawnEngine({ cwd: dir });
    const exit = await second.exited;
    assert.equal(exit.code, 1);
    assert.match(exit.stderr, /SUTRA\.DB\.UNREACHABLE/);
    assert.equal((await stop(first)).code, 0);
  });
});

Deno.test("a bad configuration value stops boot with one SUTRA.* line and exit 1", async () => {
  await withTempDir(async (dir) => {
    const engine = spawnEngine({ cwd: dir, env: { SUTRA_HTTP_PORT: "eighty" } });
    const exit = await engine.exited;
    assert.equal(exit.code, 1);
    const lines = exit.stderr.trim().split("\n");
    assert.equal(lines.length, 1, exit.stderr);
    assert.match(lines[0], /SUTRA\.CONFIG\.PROPERTY\.INVALID: sutra\.http\.port 'eighty'/);
    await assert.rejects(Deno.stat(`${dir}/.sutra`), Deno.errors.NotFound);
  });
});

Deno.test("a bad value in sutra.properties names the file and line", async () => {
  await withTempDir(async (dir) => {
    await Deno.writeTextFile(
      `${dir}/sutra.properties`,
      "# engine\nsutra.shutdown.grace-period=soon\n",
    );
    const exit = await spawnEngine({ cwd: dir }).exited;
    assert.equal(exit.code, 1);
    assert.match(
      exit.stderr.trim(),
      /^ERROR SUTRA\.CONFIG\.PROPERTY\.INVALID: .*sutra\.properties:2/,
    );
  });
});

Deno.test("an unreachable database URL stops boot with SUTRA.DB.UNREACHABLE", async () => {
  await withTempDir(async (dir) => {
    const exit = await spawnEngine({
      cwd: dir,
      env: { SUTRA_DATASOURCE_URL: "postgres://sutra:pw@127.0.0.1:1/engine" },
    }).exited;
    assert.equal(exit.code, 1);
    const lines = exit.stderr.trim().split("\n");
    assert.equal(lines.length, 1, exit.stderr);
    assert.match(lines[0], /SUTRA\.DB\.UNREACHABLE/);
    assert.doesNotMatch(lines[0], /pw/);
  });
});

Deno.test("a tampered migration stops boot with SUTRA.DB.MIGRATION.CHECKSUM_MISMATCH", async () => {
  await withTempDir(async (dir) => {
    const first = spawnEngine({ cwd: dir });
    await first.started;
    assert.equal((await stop(first)).code, 0);

    const db = await openDatabase(undefined, { dataDir: `${dir}/.sutra/engine-db` });
    await db.query("update sutra_schema_history set checksum = $1 where version = 1", [
      "0".repeat(64),
    ]);
    await db.close();

    const exit = await spawnEngine({ cwd: dir }).exited;
    assert.equal(exit.code, 1);
    const lines = exit.stderr.trim().split("\n");
    assert.equal(lines.length, 1, exit.stderr);
    assert.match(lines[0], /SUTRA\.DB\.MIGRATION\.CHECKSUM_MISMATCH/);
  });
});

tier2Test("two engines boot concurrently on one PostgreSQL database", async () => {
  const url = serverDatabaseUrl()!;
  const schema = `engine_boot_${crypto.randomUUID().replaceAll("-", "").slice(0, 12)}`;
  await withTempDir(async (dir) => {
    const env = { SUTRA_DATASOURCE_URL: url, SUTRA_DATASOURCE_SCHEMA: schema };
    const a = spawnEngine({ cwd: dir, env });
    const b = spawnEngine({ cwd: dir, env });
    try {
      const [portA, portB] = await Promise.all([a.started, b.started]);
      assert.equal((await get(portA, "/sutra/health/ready")).status, 200);
      assert.equal((await get(portB, "/sutra/health/ready")).status, 200);
      const applied = [a, b].map((e) =>
        Number(e.records.find((r) => String(r.message).includes("started"))!.migrationsApplied)
      );
      // Each migration is applied exactly once, by whichever engine took its turn first.
      assert.equal(applied[0] + applied[1], ENGINE_MIGRATIONS.length);
      const boot = a.records.find((r) => String(r.message).includes("started"))!;
      assert.match(String(boot.message), /database postgres:\/\/.*127\.0\.0\.1:5432/);
    } finally {
      assert.equal((await stop(a)).code, 0);
      assert.equal((await stop(b)).code, 0);
      const db = await openDatabase(url);
      await db.exec(`drop schema if exists ${schema} cascade`);
      await db.close();
    }
  });
});
