import assert from "node:assert/strict";
import { ENGINE_VERSION } from "../../engine/core/version.ts";
import { LISTENING, ROOT, spawn, until, withTempDir } from "./_spawn.ts";

/** `deno task engine …` without the task runner. */
function engine(args: readonly string[], cwd: string, env: Record<string, string> = {}) {
  return spawn(Deno.execPath(), ["run", "-q", "-P=engine", `${ROOT}main.ts`, ...args], {
    cwd,
    env: { SUTRA_HTTP_HOST: "127.0.0.1", ...env },
  });
}

Deno.test("sutra-engine --help and --version print and exit 0", async () => {
  await withTempDir(async (dir) => {
    const help = await engine(["--help"], dir).exited;
    assert.equal(help.code, 0, help.output);
    assert.match(
      help.output,
      /^Usage: sutra-engine \[--port N\] \[--config FILE\] \[--datasource URL\]/,
    );
    const version = await engine(["-V"], dir).exited;
    assert.equal(version.code, 0);
    assert.equal(version.output.trim(), `sutra-engine ${ENGINE_VERSION}`);
  });
});

Deno.test("an unknown flag or a bad port exits 2 with the usage, touching nothing", async () => {
  await withTempDir(async (dir) => {
    const unknown = await engine(["--prot", "8080"], dir).exited;
    assert.equal(unknown.code, 2);
    assert.match(unknown.output, /SUTRA\.ENGINE\.USAGE: sutra-engine: Unknown option '--prot'/);
    assert.match(unknown.output, /Usage: sutra-engine/);
    const bad = await engine(["--port", "http"], dir).exited;
    assert.equal(bad.code, 2);
    assert.match(
      bad.output,
      /SUTRA\.ENGINE\.USAGE: .*--port must be a port number \(0-65535\), not 'http'/,
    );
    assert.deepEqual([...Deno.readDirSync(dir)], []);
  });
});

Deno.test("a busy port is reported before the database is opened", async () => {
  await withTempDir(async (dir) => {
    const busy = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    try {
      const run = await engine(["--port", String(busy.addr.port)], dir).exited;
      assert.equal(run.code, 1, run.output);
      assert.match(
        run.output,
        new RegExp(`SUTRA.HTTP.LISTEN_FAILED: cannot listen on 127.0.0.1:${busy.addr.port}`),
      );
      assert.match(run.output, /choose another with --port or SUTRA_HTTP_PORT/);
      // The embedded database was never created.
      assert.equal([...Deno.readDirSync(dir)].length, 0, run.output);
    } finally {
      busy.close();
    }
  });
});

Deno.test("--port, --datasource and --config take effect, over the environment", async () => {
  await withTempDir(async (dir) => {
    await Deno.writeTextFile(`${dir}/other.properties`, "sutra.service.name=from-config-flag\n");
    const child = engine(
      ["--port", "0", "--datasource", "memory://", "--config", `${dir}/other.properties`],
      dir,
      { SUTRA_HTTP_PORT: "1", SUTRA_DATASOURCE_URL: "postgres://nowhere.invalid/x" },
    );
    try {
      const listening = await child.waitFor(LISTENING);
      const [line, port] = [listening.input!, listening[1]];
      assert.match(line, /database pglite:memory:\/\//);
      assert.match(line, /"service.name":"from-config-flag"/);
      await (await until(`http://127.0.0.1:${port}/sutra/health/ready`, 200, child)).body?.cancel();
    } finally {
      child.kill("SIGINT");
      assert.equal((await child.exited).code, 0);
    }
  });
});
