import assert from "node:assert/strict";
import { readArchiveFile } from "../../engine/package/mod.ts";
import { COMMAND_NAMES } from "./_cli_entry.ts";

const ENTRY = new URL("./_cli_entry.ts", import.meta.url).pathname;
const CONFIG = new URL("../../deno.json", import.meta.url).pathname;

/** Runs `sutra <args>` as a process in `cwd`. */
async function sutra(args: readonly string[], cwd: string) {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-q", "-A", "--config", CONFIG, ENTRY, ...args],
    cwd,
    env: { DENO_NO_UPDATE_CHECK: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = (b: Uint8Array) => new TextDecoder().decode(b);
  return { code: out.code, stdout: text(out.stdout), stderr: text(out.stderr) };
}

/** The `sutra …` command lines of the README's shell blocks, continuation lines joined. */
function readmeCommands(readme: string): string[][] {
  const lines: string[] = [];
  for (const block of readme.matchAll(/```sh\n([\s\S]*?)```/g)) {
    lines.push(...block[1].replace(/\\\n\s*/g, " ").split("\n"));
  }
  return lines.filter((l) => l.startsWith("sutra ")).map((l) => l.split(/\s+/).slice(1));
}

Deno.test("create app, then the README's lint/package/list/create lines, end to end", async () => {
  const root = await Deno.makeTempDir();
  try {
    const created = await sutra(["create", "app", "demo"], root);
    assert.equal(created.code, 0, created.stderr);
    const app = `${root}/demo`;
    const commands = readmeCommands(await Deno.readTextFile(`${app}/README.md`));
    const runnable = commands.filter((c) => COMMAND_NAMES.includes(c[0]));
    // `sutra deploy` needs a running engine (the runtime's deploy API); every
    // other README line runs here.
    assert.deepEqual(commands.filter((c) => !COMMAND_NAMES.includes(c[0])).map((c) => c[0]), [
      "deploy",
    ]);
    assert.deepEqual(runnable.map((c) => c.slice(0, 2).join(" ")), [
      "lint packages/demo-main",
      "package packages/demo-main",
      "deployments list",
      "create bpmn",
      "create deployment",
    ]);
    const results = [];
    for (const args of runnable) {
      const r = await sutra(args, app);
      assert.equal(r.code, 0, `sutra ${args.join(" ")}\n${r.stdout}${r.stderr}`);
      results.push(r);
    }
    assert.equal(results[0].stdout, "", "lint is silent on a clean package");
    const archive = await readArchiveFile(`${app}/deployments/default--demo--1.0.0.sutra`);
    assert.ok(archive.archive, JSON.stringify(archive.diagnostics));
    assert.match(results[1].stdout, new RegExp(`deploymentId  ${archive.archive.deploymentId}`));
    assert.match(
      results[2].stdout,
      new RegExp(`^${archive.archive.deploymentId}  default--demo--1\\.0\\.0 `, "m"),
    );
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
