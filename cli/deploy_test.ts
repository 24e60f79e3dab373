import assert from "node:assert/strict";
import { cp } from "node:fs/promises";
import { DiagnosticError } from "../engine/core/diagnostic.ts";
import { transportCatalog } from "../engine/package/mod.ts";
import { captureIo } from "../tests/support/cli_io.ts";
import {
  ADMIN_KEY,
  FIXTURE_DIR,
  sealLintFailure,
  sealRevision,
  SLOT,
  startTestEngine,
  type TestEngine,
} from "../tests/deployments/_support.ts";
import { UsageError, verboseIo } from "./command.ts";
import { DEFAULT_API_KEY_ENV } from "./_admin_client.ts";
import { deployCommand, undeployCommand } from "./deploy.ts";

const command = deployCommand({
  transports: transportCatalog(["http"]),
  pollMillis: 10,
  settleMillis: 50,
});
const keyed = { [DEFAULT_API_KEY_ENV]: ADMIN_KEY };

async function withEngine(fn: (engine: TestEngine, archive: string) => Promise<void>) {
  const engine = await startTestEngine();
  const dir = await Deno.makeTempDir({ prefix: "sutra-deploy-" });
  try {
    const archive = `${dir}/${SLOT}.sutra`;
    await Deno.writeFile(archive, (await sealRevision()).bytes);
    await fn(engine, archive);
  } finally {
    await engine.close();
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("sutra deploy uploads an archive and reports Active, then unchanged", () =>
  withEngine(async (engine, archive) => {
    const id = (await sealRevision()).deploymentId;
    const first = captureIo({ env: keyed });
    assert.equal(await command.run([archive, "--api", "--engine-url", engine.url], first.io), 0);
    assert.equal(first.out(), `deployed ${SLOT} as ${id}: Active\n`);
    const again = captureIo({ env: keyed });
    assert.equal(await command.run([archive, "--engine-url", engine.url], again.io), 0);
    assert.equal(again.out(), `unchanged ${SLOT} as ${id}: Active\n`);
  }));

Deno.test("sutra deploy and undeploy find the engine through SUTRA_ENGINE_URL, --api or not", () =>
  withEngine(async (engine, archive) => {
    const env = { ...keyed, SUTRA_ENGINE_URL: engine.url };
    const deployed = captureIo({ env });
    assert.equal(await command.run([archive], deployed.io), 0, deployed.err());
    assert.match(deployed.out(), /Active/);
    const again = captureIo({ env });
    assert.equal(await command.run([archive, "--api"], again.io), 0, again.err());
    const drained = captureIo({ env });
    assert.equal(await undeployCommand.run([SLOT], drained.io), 0, drained.err());
  }));

Deno.test("sutra deploy --async polls until the deployment settles", () =>
  withEngine(async (engine, archive) => {
    const run = captureIo({ env: { MY_KEY: ADMIN_KEY } });
    const code = await command.run(
      [
        archive,
        "--async",
        "--engine-url",
        engine.url,
        "--api-key-env",
        "MY_KEY",
        "--format",
        "json",
      ],
      run.io,
    );
    assert.equal(code, 0);
    const body = JSON.parse(run.out());
    assert.equal(body.phase, "Active");
    assert.equal(body.slot, SLOT);
    assert.match(run.err(), /accepted; waiting for activation/);
  }));

Deno.test("a refusal prints the engine's diagnostics and exits 1", () =>
  withEngine(async (engine, archive) => {
    const run = captureIo();
    assert.equal(await command.run([archive, "--engine-url", engine.url], run.io), 1);
    assert.match(run.err(), /SUTRA\.ADMIN\.AUTH\.MISSING/);
    assert.equal(run.out(), "");
  }));

Deno.test("sutra undeploy drains by slot or archive file and refuses an unknown one", () =>
  withEngine(async (engine, archive) => {
    await command.run([archive, "--engine-url", engine.url], captureIo({ env: keyed }).io);
    const id = (await sealRevision()).deploymentId;
    const run = captureIo({ env: keyed });
    assert.equal(await undeployCommand.run([SLOT, "--api", "--engine-url", engine.url], run.io), 0);
    assert.equal(run.out(), `${SLOT} (${id}): Draining\n`);
    const byFile = captureIo({ env: keyed });
    assert.equal(await undeployCommand.run([archive, "--engine-url", engine.url], byFile.io), 0);
    assert.equal(byFile.out(), `${SLOT} (${id}): Draining\n`);
    const unknown = captureIo({ env: keyed });
    assert.equal(await undeployCommand.run(["nope", "--engine-url", engine.url], unknown.io), 1);
    assert.match(unknown.err(), /SUTRA\.DEPLOY\.UNKNOWN/);
  }));

Deno.test("deploy reports an unreachable engine and bad arguments", async () => {
  const dir = await Deno.makeTempDir({ prefix: "sutra-deploy-" });
  try {
    const archive = `${dir}/a.sutra`;
    await Deno.writeFile(archive, (await sealRevision()).bytes);
    const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const port = (listener.addr as Deno.NetAddr).port;
    listener.close();
    await assert.rejects(
      () => command.run([archive, "--engine-url", `http://127.0.0.1:${port}`], captureIo().io),
      (e: unknown) =>
        e instanceof DiagnosticError && e.diagnostics[0].code === "SUTRA.CLI.ENGINE_UNREACHABLE",
    );
    // Without --engine-url, SUTRA_ENGINE_URL names the engine.
    await assert.rejects(
      () =>
        command.run(
          [archive],
          captureIo({ env: { SUTRA_ENGINE_URL: `http://127.0.0.1:${port}` } }).io,
        ),
      (e: unknown) =>
        e instanceof DiagnosticError && e.diagnostics[0].message.includes(`127.0.0.1:${port}`),
    );
    await assert.rejects(
      () => command.run([archive], captureIo({ env: { SUTRA_ENGINE_URL: "not a url" } }).io),
      UsageError,
    );
    await assert.rejects(
      () => command.run([archive, "--engine-url", "ftp://x"], captureIo().io),
      UsageError,
    );
    await assert.rejects(
      () => undeployCommand.run(["--engine-url", "http://x"], captureIo().io),
      UsageError,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

async function until(what: string, check: () => boolean): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if (check()) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`timed out waiting for ${what}`);
}

Deno.test("sutra deploy --watch deploys on start and on each clean change, skipping broken ones", () =>
  withEngine(async (engine) => {
    const dir = await Deno.makeTempDir({ prefix: "sutra-watch-" });
    const stop = new AbortController();
    const watching = deployCommand({
      transports: transportCatalog(["http"]),
      stop: stop.signal,
      settleMillis: 50,
    });
    try {
      await cp(FIXTURE_DIR, dir, { recursive: true });
      const run = captureIo({ env: keyed });
      const done = watching.run(["--watch", dir, "--engine-url", engine.url], run.io);
      const active = () => engine.service.registry.list().filter((d) => d.status === "active");
      await until("the first deploy", () => active().length === 1);
      const first = active()[0].deploymentId;

      const bpmn = `${dir}/bpmn/hello.bpmn`;
      const text = await Deno.readTextFile(bpmn);
      await Deno.writeTextFile(bpmn, text.replace('name="Hello"', 'name="Hello, edited"'));
      await until("the edit to deploy", () => active()[0]?.deploymentId !== first);
      const second = active()[0].deploymentId;

      const channels = `${dir}/channels.yaml`;
      const yaml = await Deno.readTextFile(channels);
      await Deno.writeTextFile(channels, yaml.replace("transport: http", "transport: smoke"));
      await until("the broken edit to be reported", () => run.err().includes("not deployed"));
      assert.equal(active()[0].deploymentId, second);

      stop.abort();
      assert.equal(await done, 0);
      assert.match(run.out(), /deployed acme--hello--1\.0\.0 as [0-9a-f]{64}: Active/);
      assert.match(run.err(), /stopped watching/);
    } finally {
      stop.abort();
      await Deno.remove(dir, { recursive: true });
    }
  }));

Deno.test("sutra deploy --callback asks for the completion event; a bad URL is the engine's refusal", () =>
  withEngine(async (engine, archive) => {
    const hook = "https://hooks.example/deployed";
    const run = captureIo({ env: keyed });
    const code = await command.run(
      [archive, "--async", "--callback", hook, "--engine-url", engine.url],
      run.io,
    );
    assert.equal(code, 0, run.err());
    const { rows } = await engine.db.query<{ destination: string }>(
      "select destination from outbox",
    );
    assert.deepEqual(rows, [{ destination: hook }]);

    const bad = captureIo({ env: keyed });
    assert.equal(
      await command.run([archive, "--callback", "not a url", "--engine-url", engine.url], bad.io),
      1,
    );
    assert.match(bad.err(), /SUTRA\.DEPLOY\.CALLBACK_INVALID/);
  }));

Deno.test("sutra deploy -vvv traces each request, never the API key; --quiet says nothing", () =>
  withEngine(async (engine, archive) => {
    const traced = captureIo({ env: keyed });
    assert.equal(
      await command.run(
        [archive, "--async", "--engine-url", engine.url],
        verboseIo(traced.io, "trace", false),
      ),
      0,
      traced.err(),
    );
    assert.match(
      traced.err(),
      /DEBUG deploy: engine .*; API key from SUTRA_ADMIN_API_KEY in x-api-key\n/,
    );
    assert.match(traced.err(), new RegExp(`INFO deploy: read ${archive} \\(\\d+ bytes\\)\n`));
    assert.match(traced.err(), /TRACE deploy: POST .*\/admin\/deployments\?async=true\n/);
    assert.match(traced.err(), /DEBUG deploy: POST \/admin\/deployments\?async=true: 202 in /);
    assert.match(traced.err(), /TRACE deploy: GET .*\/sutra\/deployments\/[0-9a-f]+\n/);
    assert.ok(!traced.err().includes(ADMIN_KEY));

    const quiet = captureIo({ env: keyed });
    assert.equal(
      await command.run([archive, "--engine-url", engine.url], verboseIo(quiet.io, "quiet", false)),
      0,
    );
    assert.equal(quiet.out() + quiet.err(), "");
  }));

Deno.test("sutra deploy --dir places the archive for a dir source and --wait waits for Active", () =>
  withEngine(async (engine, archive) => {
    const { startDirSource } = await import("../engine/runtime/deployments/mod.ts");
    const { DEFAULT_LIMITS } = await import("../engine/package/mod.ts");
    const { createLogger } = await import("../engine/core/mod.ts");
    const dir = await Deno.makeTempDir({ prefix: "sutra-dir-source-" });
    const id = (await sealRevision()).deploymentId;
    try {
      // An older archive of the same slot under another name is replaced, not left ambiguous.
      await Deno.writeFile(`${dir}/old.sutra`, (await sealRevision("Old")).bytes);
      const placed = captureIo();
      assert.equal(await command.run([archive, "--dir", dir], placed.io), 0, placed.err());
      assert.equal(placed.out(), `placed ${SLOT} as ${id} in ${dir}/${SLOT}.sutra\n`);
      const names = [];
      for await (const e of Deno.readDir(dir)) names.push(e.name);
      assert.deepEqual(names, [`${SLOT}.sutra`]);

      // Nothing converges this directory yet: --wait gives up with its own code.
      await assert.rejects(
        () =>
          command.run(
            [archive, "--dir", dir, "--wait", "--wait-timeout", "1", "--engine-url", engine.url],
            captureIo({ env: keyed }).io,
          ),
        (e: unknown) =>
          e instanceof DiagnosticError && e.diagnostics[0].code === "SUTRA.CLI.WAIT_TIMEOUT",
      );

      const source = await startDirSource({
        dir,
        service: engine.service,
        logger: createLogger("test", { filter: "error", write: () => {} }),
        limits: DEFAULT_LIMITS,
        intervalMs: 20,
      });
      try {
        const waited = captureIo({ env: keyed });
        assert.equal(
          await command.run(
            [archive, "--dir", dir, "--wait", "--engine-url", engine.url],
            waited.io,
          ),
          0,
          waited.err(),
        );
        assert.equal(waited.out(), `deployed ${SLOT} as ${id}: Active\n`);
        // A revision the engine refuses settles Failed: its diagnostics, exit 1.
        const broken = `${dir}/../broken-${SLOT}.sutra`;
        await Deno.writeFile(broken, (await sealLintFailure()).bytes);
        const refused = captureIo({ env: keyed });
        try {
          assert.equal(
            await command.run(
              [broken, "--dir", dir, "--wait", "--engine-url", engine.url],
              refused.io,
            ),
            1,
          );
          assert.match(refused.err(), /SUTRA\.DEPLOY\.LINT_FAILED/);
        } finally {
          await Deno.remove(broken);
        }
      } finally {
        await source.stop();
      }
      await assert.rejects(
        () => command.run([archive, "--wait"], captureIo().io),
        (e: unknown) => e instanceof UsageError && /--wait goes with --dir/.test(e.message),
      );
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  }));
