import assert from "node:assert/strict";
import { captureIo as capture } from "../tests/support/cli_io.ts";
import { runCli } from "./main.ts";

Deno.test("sutra version prints text and the book's JSON shape", async () => {
  const text = capture();
  assert.equal(await runCli(["version"], { io: text.io, programName: "sutra" }), 0);
  assert.match(text.out(), /^sutra \d+\.\d+\.\d+\S*\n$/);

  const same = capture();
  assert.equal(await runCli(["--version"], { io: same.io, programName: "sutra" }), 0);
  assert.equal(same.out(), text.out());

  const json = capture();
  assert.equal(
    await runCli(["version", "--format", "json"], { io: json.io, programName: "sutra" }),
    0,
  );
  const parsed = JSON.parse(json.out());
  assert.deepEqual(Object.keys(parsed), ["name", "version", "engine"]);
  assert.equal(parsed.name, "sutra");
  assert.equal(parsed.version, parsed.engine);
});

Deno.test("the program name comes from the caller, not a constant", async () => {
  const c = capture();
  await runCli(["version", "--format", "json"], { io: c.io, programName: "acme-flow" });
  assert.equal(JSON.parse(c.out()).name, "acme-flow");
});

Deno.test("--help works on the tool and on every command", async () => {
  const top = capture();
  assert.equal(await runCli(["--help"], { io: top.io, programName: "sutra" }), 0);
  assert.match(top.out(), /Commands:[\s\S]*migrate[\s\S]*version/);
  for (const command of ["version", "migrate"]) {
    const c = capture();
    assert.equal(await runCli([command, "--help"], { io: c.io, programName: "sutra" }), 0);
    assert.match(c.out(), new RegExp(`Usage: sutra ${command}`));
    const viaHelp = capture();
    assert.equal(await runCli(["help", command], { io: viaHelp.io, programName: "sutra" }), 0);
    assert.equal(viaHelp.out(), c.out());
  }
});

Deno.test("unknown command, bad flag or no command: usage on stderr and exit 2", async () => {
  const unknown = capture();
  assert.equal(await runCli(["frobnicate"], { io: unknown.io, programName: "sutra" }), 2);
  assert.match(
    unknown.err(),
    /^ERROR SUTRA\.CLI\.USAGE: sutra: unknown command 'frobnicate'[\s\S]*Usage:/,
  );
  assert.equal(unknown.out(), "");

  const leading = capture();
  assert.equal(await runCli(["-v", "version"], { io: leading.io, programName: "sutra" }), 0);
  assert.match(leading.out(), /^sutra \d/, "verbosity flags may come before the command");

  const flag = capture();
  assert.equal(await runCli(["version", "--colour"], { io: flag.io, programName: "sutra" }), 2);
  assert.match(flag.err(), /--colour[\s\S]*Usage: sutra version/);

  const format = capture();
  assert.equal(
    await runCli(["version", "--format", "yaml"], { io: format.io, programName: "sutra" }),
    2,
  );
  assert.match(format.err(), /text or json/);

  const none = capture();
  assert.equal(await runCli([], { io: none.io, programName: "sutra" }), 2);
  assert.match(none.err(), /Usage:/);
});

Deno.test("verbosity flags work on every command; contradicting ones are a SUTRA.CLI.USAGE error", async () => {
  const quiet = capture();
  assert.equal(await runCli(["version", "--quiet"], { io: quiet.io, programName: "sutra" }), 0);
  assert.equal(quiet.out(), "");
  assert.equal(quiet.err(), "");

  const json = capture();
  assert.equal(
    await runCli(["version", "--quiet", "--format", "json"], { io: json.io, programName: "sutra" }),
    0,
  );
  assert.equal(JSON.parse(json.out()).name, "sutra");

  const verbose = capture();
  assert.equal(await runCli(["version", "-vvv"], { io: verbose.io, programName: "sutra" }), 0);
  assert.match(verbose.out(), /^sutra /);

  // A document command keeps its stdout under --quiet: it is the result.
  const graph = capture();
  const bpmn = new URL("../tests/fixtures/bpmn/plan.bpmn", import.meta.url).pathname;
  assert.equal(
    await runCli(["dispatch-graph", bpmn, "--format", "dot", "--quiet"], {
      io: graph.io,
      programName: "sutra",
    }),
    0,
  );
  assert.match(graph.out(), /digraph/);

  for (const flags of [["--quiet", "-v"], ["-vv", "--quiet"], ["-vvvv"], ["-vv", "-vv"]]) {
    const c = capture();
    assert.equal(await runCli(["lint", ...flags, "dir"], { io: c.io, programName: "sutra" }), 2);
    assert.match(c.err(), /^ERROR SUTRA\.CLI\.USAGE: sutra lint: [\s\S]*Usage: sutra lint/);
    assert.equal(c.out(), "");
  }
});
