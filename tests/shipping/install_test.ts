import assert from "node:assert/strict";
import { ENGINE_VERSION } from "../../engine/core/version.ts";
import { LISTENING, ROOT, spawn, until, withTempDir } from "./_spawn.ts";

Deno.test("deno task install: sutra and sutra-engine work as commands from any directory", async () => {
  await withTempDir(async (dir) => {
    const installed = await spawn(Deno.execPath(), [
      "run",
      "-q",
      "-A",
      `${ROOT}tools/install.ts`,
      "--root",
      `${dir}/root`,
    ]).exited;
    assert.equal(installed.code, 0, installed.output);
    const bin = `${dir}/root/bin`;
    const launcher = await Deno.readTextFile(`${bin}/sutra-engine`);
    assert.doesNotMatch(launcher, /--allow-run|--allow-all|-A /);
    await Deno.mkdir(`${dir}/work`);

    assert.match(installed.output, new RegExp(`installed sutra-engine: ${bin}/sutra-engine`));
    // No deno on this PATH (as after `npx -y deno@… task install`): the launchers run the Deno
    // that installed them.
    const noDeno = { PATH: "/usr/bin:/bin" };
    const version = await spawn(`${bin}/sutra`, ["version"], { cwd: `${dir}/work`, env: noDeno })
      .exited;
    assert.equal(version.output.trim(), `sutra ${ENGINE_VERSION}`);

    const engine = spawn(`${bin}/sutra-engine`, ["--port", "0"], {
      cwd: `${dir}/work`,
      env: { SUTRA_HTTP_HOST: "127.0.0.1", ...noDeno },
    });
    try {
      const [, port] = await engine.waitFor(LISTENING);
      await (await until(`http://127.0.0.1:${port}/sutra/health/ready`, 200, engine)).body
        ?.cancel();
    } finally {
      engine.kill("SIGINT");
      const { code, output } = await engine.exited;
      assert.equal(code, 0, output);
    }
    // The embedded database lives where the engine was started.
    assert.ok((await Deno.stat(`${dir}/work/.sutra/engine-db`)).isDirectory);
  });
});
