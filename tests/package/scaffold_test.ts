import assert from "node:assert/strict";
import { readArchiveFile } from "../../engine/package/mod.ts";
import { spawnEngine } from "../support/engine_process.ts";

const CLI = new URL("../../cli.ts", import.meta.url).pathname;
const CONFIG = new URL("../../deno.json", import.meta.url).pathname;
const README_ENGINE = "http://localhost:8080";

interface Ran {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

async function run(command: string, args: readonly string[], options: {
  cwd: string;
  env: Record<string, string>;
}): Promise<Ran> {
  const out = await new Deno.Command(command, {
    args: [...args],
    cwd: options.cwd,
    env: { DENO_NO_UPDATE_CHECK: "1", NO_COLOR: "1", ...options.env },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = (b: Uint8Array) => new TextDecoder().decode(b);
  return { code: out.code, stdout: text(out.stdout), stderr: text(out.stderr) };
}

/** Runs `sutra <args>` as a process in `cwd`, the way a user runs the CLI. */
function sutra(args: readonly string[], cwd: string, env: Record<string, string> = {}) {
  return run(Deno.execPath(), ["run", "-q", "-A", "--config", CONFIG, CLI, ...args], {
    cwd,
    env,
  });
}

/** The README's shell lines, continuation lines joined, comments dropped. */
function readmeLines(readme: string): string[] {
  const lines: string[] = [];
  for (const block of readme.matchAll(/```sh\n([\s\S]*?)```/g)) {
    lines.push(...block[1].replace(/\\\n\s*/g, " ").split("\n"));
  }
  return lines.map((l) => l.trim()).filter((l) => l !== "" && !l.startsWith("#"));
}

/** `export A=1 B=2` → {A: "1", B: "2"}. */
function exports(line: string): Record<string, string> {
  return Object.fromEntries(
    line.slice("export ".length).split(/\s+/).map((pair) => pair.split("=", 2) as [string, string]),
  );
}

Deno.test("create app, then every line of its README, against a running engine", async () => {
  const root = await Deno.makeTempDir();
  try {
    const created = await sutra(["create", "app", "demo"], root);
    assert.equal(created.code, 0, created.stderr);
    const app = `${root}/demo`;
    const lines = readmeLines(await Deno.readTextFile(`${app}/README.md`));
    assert.deepEqual(lines.map((l) => l.split(/\s+/).slice(0, 2).join(" ")), [
      "sutra lint",
      "sutra package",
      "sutra deployments",
      "export DEMO_API_KEY=change-me",
      "SUTRA_ADMIN_AUTH_API_KEY=env:SUTRA_ADMIN_API_KEY sutra-engine",
      "export DEMO_API_KEY=change-me",
      "sutra deploy",
      "curl -sS",
      "./smoke.sh",
      "sutra create",
      "sutra create",
    ]);

    // The engine the README tells the reader to start, with the keys it exports and the
    // assignments its start line carries.
    const env: Record<string, string> = {};
    for (const line of lines) if (line.startsWith("export ")) Object.assign(env, exports(line));
    const start = lines.find((l) => l.endsWith(" sutra-engine"))!;
    const assigned = Object.fromEntries(
      start.split(/\s+/).slice(0, -1).map((pair) => pair.split("=", 2) as [string, string]),
    );
    const engine = spawnEngine({
      cwd: root,
      env: { ...env, ...assigned, SUTRA_DATASOURCE_URL: "memory://" },
    });
    try {
      const url = `http://127.0.0.1:${await engine.started}`;
      const results: { line: string; ran: Ran }[] = [];
      for (const line of lines) {
        if (line.startsWith("export ") || line === start) continue;
        const concrete = line.replaceAll(README_ENGINE, url);
        const ran = line.startsWith("sutra ")
          ? await sutra(concrete.split(/\s+/).slice(1), app, env)
          : await run("bash", ["-c", concrete], {
            cwd: app,
            env: { ...env, SUTRA_ENGINE_URL: url },
          });
        assert.equal(ran.code, 0, `${line}\n${ran.stdout}${ran.stderr}`);
        results.push({ line, ran });
      }
      const out = (prefix: string) => results.find((r) => r.line.startsWith(prefix))!.ran.stdout;
      assert.equal(out("sutra lint"), "", "lint is silent on a clean package");
      const archive = await readArchiveFile(`${app}/deployments/default--demo--1.0.0.sutra`);
      assert.ok(archive.archive, JSON.stringify(archive.diagnostics));
      const id = archive.archive.deploymentId;
      assert.match(out("sutra package"), new RegExp(`deploymentId  ${id}`));
      assert.match(out("sutra deployments"), new RegExp(`^${id}  default--demo--1\\.0\\.0 `, "m"));
      assert.match(out("sutra deploy"), new RegExp(id));
      assert.match(out("curl"), /<status>ACCEPTED<\/status>/);
      assert.match(out("./smoke.sh"), /smoke: ok/);
    } finally {
      engine.kill("SIGTERM");
      assert.equal((await engine.exited).code, 0);
    }

    // What the README grew still lints clean, and so does the variant copy.
    for (const dir of ["packages/demo-main", "packages/demo-eu"]) {
      const lint = await sutra(["lint", dir], app);
      assert.equal(lint.code, 0, lint.stdout);
    }
    // Sealing unchanged sources again gives the same bytes.
    const again = await sutra(["package", "packages/demo-eu", "-o", "a.sutra"], app);
    const twice = await sutra(["package", "packages/demo-eu", "-o", "b.sutra"], app);
    assert.equal(again.code + twice.code, 0);
    assert.deepEqual(await Deno.readFile(`${app}/a.sutra`), await Deno.readFile(`${app}/b.sutra`));
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
