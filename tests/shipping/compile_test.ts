import assert from "node:assert/strict";
import { ENGINE_VERSION } from "../../engine/core/version.ts";
import { ROOT, spawn, withTempDir } from "./_spawn.ts";

/** `deno task compile …` as a user runs it. */
function compile(args: readonly string[], env: Record<string, string> = {}) {
  return spawn(
    Deno.execPath(),
    ["task", "-q", "--config", `${ROOT}deno.json`, "compile", ...args],
    {
      env,
    },
  ).exited;
}

Deno.test("deno task compile: an unknown flavour or option exits 2 with one line", async () => {
  const flavour = await compile(["--flavour", "tiny"]);
  assert.equal(flavour.code, 2);
  assert.equal(
    flavour.output.trim(),
    "ERROR SUTRA.BUILD.FLAVOUR_UNKNOWN: no flavour 'tiny' (known: full, http, file)",
  );
  const out = await Deno.makeTempDir({ prefix: "sutra-compile-" });
  const transport = await compile([
    "--transports",
    "http,carrier-pigeon",
    "--roots-only",
    "--out",
    out,
  ]);
  await Deno.remove(out, { recursive: true });
  assert.equal(transport.code, 2);
  assert.match(transport.output, /SUTRA\.BUILD\.TRANSPORT_UNKNOWN: .*'carrier-pigeon'/);
  const option = await compile(["--falvour", "file"]);
  assert.equal(option.code, 2);
  assert.match(option.output, /^ERROR SUTRA\.BUILD\.USAGE: Unknown option '--falvour'/);
});

Deno.test("deno task compile --help: the usage on stdout, exit 0", async () => {
  const help = await compile(["--help"]);
  assert.equal(help.code, 0, help.output);
  assert.match(help.output, /^Usage: deno task compile \[--flavour full\|http\|file\]/);
});

Deno.test("deno task compile: DENORT_BIN naming no file is one line, exit 1", async () => {
  await withTempDir(async (dir) => {
    const run = await compile(["--flavour", "file", "--out", `${dir}/out`], {
      DENORT_BIN: `${dir}/denort`,
    });
    assert.equal(run.code, 1, run.output);
    assert.match(
      run.output,
      new RegExp(
        `ERROR SUTRA.BUILD.DENORT_MISSING: DENORT_BIN names ${dir}/denort, which is not a file$`,
      ),
    );
  });
});

Deno.test({
  name:
    "deno task compile: without DENORT_BIN and no download, one line saying so, launchers instead, exit 1",
  ignore: Deno.env.get("DENORT_BIN") !== undefined,
  async fn() {
    const out = await Deno.makeTempDir({ prefix: "sutra-compile-" });
    try {
      const run = await compile(["--flavour", "file", "--out", out]);
      if (run.code === 0) return; // This machine could download denort: nothing to explain.
      assert.equal(run.code, 1, run.output);
      const last = run.output.trim().split("\n").at(-1)!;
      assert.match(
        last,
        /^ERROR SUTRA\.BUILD\.DENORT_MISSING: deno compile needs a denort .* set DENORT_BIN/,
      );
      assert.doesNotMatch(run.output, /^\s+at /m);
      // The roots are written all the same, and launchers that run them with deno, each saying
      // it is not self-contained, with the flavour's own permission flags.
      assert.ok((await Deno.stat(`${out}/roots/engine_file.ts`)).isFile);
      assert.match(run.output, new RegExp(`launchers .*not self-contained.* ${out}/bin`));
      const engine = await Deno.readTextFile(`${out}/bin/sutra-engine-file`);
      assert.match(engine, /^# .*not self-contained/m);
      assert.match(engine, /roots\/engine_file\.ts/);
      assert.match(engine, /--allow-net=unix:/);
      assert.doesNotMatch(engine, /--allow-run|--allow-all|-A /);
      await Deno.mkdir(`${out}/work`);
      const version = await spawn(`${out}/bin/sutra-engine-file`, ["--version"], {
        cwd: `${out}/work`,
      }).exited;
      assert.equal(version.code, 0, version.output);
      assert.match(version.output.trim(), new RegExp(` ${ENGINE_VERSION}$`));
      const cli = await spawn(`${out}/bin/sutra`, ["version"], { cwd: `${out}/work` }).exited;
      assert.equal(cli.output.trim(), `sutra ${ENGINE_VERSION}`);
      assert.match(await Deno.readTextFile(`${out}/bin/sutra`), /^# .*not self-contained/m);
    } finally {
      await Deno.remove(out, { recursive: true }).catch(() => {});
    }
  },
});
