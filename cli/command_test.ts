import assert from "node:assert/strict";
import { diagnostic } from "../engine/core/diagnostic.ts";
import { captureIo } from "../tests/support/cli_io.ts";
import {
  asksJson,
  cliLog,
  parseVerbosity,
  UsageError,
  verboseIo,
  type Verbosity,
  writeFindings,
} from "./command.ts";

Deno.test("verbosity flags come off the arguments wherever they stand", () => {
  assert.deepEqual(parseVerbosity(["lint", "dir"]), { verbosity: "normal", args: ["lint", "dir"] });
  assert.deepEqual(parseVerbosity(["-v", "dir"]), { verbosity: "info", args: ["dir"] });
  assert.deepEqual(parseVerbosity(["dir", "-vv"]), { verbosity: "debug", args: ["dir"] });
  assert.deepEqual(parseVerbosity(["-vvv", "dir"]), { verbosity: "trace", args: ["dir"] });
  assert.deepEqual(parseVerbosity(["-v", "dir", "-v"]), { verbosity: "debug", args: ["dir"] });
  assert.deepEqual(parseVerbosity(["--quiet", "dir"]), { verbosity: "quiet", args: ["dir"] });
  // After `--` everything is an argument, even what looks like a flag.
  assert.deepEqual(parseVerbosity(["--", "-v", "--quiet"]), {
    verbosity: "normal",
    args: ["--", "-v", "--quiet"],
  });
});

Deno.test("--quiet with -v, or more than three -v, is a usage error", () => {
  assert.throws(() => parseVerbosity(["--quiet", "-v"]), UsageError);
  assert.throws(() => parseVerbosity(["-vv", "--quiet"]), /--quiet and -v/);
  assert.throws(() => parseVerbosity(["-vv", "-vv"]), /at most -vvv/);
  assert.throws(() => parseVerbosity(["-vvvv"]), /at most -vvv/);
});

Deno.test("each level prints its own lines and every quieter one, on stderr", async () => {
  const said = async (verbosity: Verbosity) => {
    const c = captureIo();
    const log = cliLog(verboseIo(c.io, verbosity, false), "demo");
    log.progress("p");
    log.info("i");
    log.debug("d");
    log.trace("t");
    assert.equal(await log.timed("work", () => Promise.resolve(7)), 7);
    assert.equal(c.out(), "");
    return c.err();
  };
  assert.equal(await said("quiet"), "");
  assert.equal(await said("normal"), "demo: p\n");
  assert.equal(await said("info"), "demo: p\nINFO demo: i\n");
  assert.match(
    await said("debug"),
    /^demo: p\nINFO demo: i\nDEBUG demo: d\nDEBUG demo: work took \d+\.\d ms\n$/,
  );
  assert.match(await said("trace"), /DEBUG demo: d\nTRACE demo: t\nDEBUG demo: work took /);
});

Deno.test("a timed step that fails still logs its time and passes the failure on", async () => {
  const c = captureIo();
  const log = cliLog(verboseIo(c.io, "debug", false), "demo");
  await assert.rejects(() => log.timed("failing", () => Promise.reject(new Error("boom"))), /boom/);
  assert.match(c.err(), /DEBUG demo: failing took /);
});

Deno.test("--quiet silences a text report but keeps machine output and errors", () => {
  const text = captureIo();
  const quiet = verboseIo(text.io, "quiet", false);
  quiet.stdout("summary\n");
  quiet.stderr("ERROR X: y\n");
  assert.equal(text.out(), "");
  assert.equal(text.err(), "ERROR X: y\n");

  const json = captureIo();
  verboseIo(json.io, "quiet", true).stdout("{}\n");
  assert.equal(json.out(), "{}\n");

  assert.ok(asksJson(["dir", "--format", "json"]));
  assert.ok(asksJson(["--format=json"]));
  assert.ok(!asksJson(["--format", "text", "json"]));
});

Deno.test("findings go to stdout, or only the errors to stderr under --quiet", () => {
  const findings = [
    diagnostic("SUTRA.CLI.USAGE", "an error"),
    diagnostic("SUTRA.CLI.USAGE", "a warning", { severity: "WARNING" }),
  ];
  const loud = captureIo();
  writeFindings(verboseIo(loud.io, "normal", false), findings);
  assert.equal(loud.out(), "ERROR SUTRA.CLI.USAGE: an error\nWARNING SUTRA.CLI.USAGE: a warning\n");
  const quiet = captureIo();
  writeFindings(verboseIo(quiet.io, "quiet", false), findings);
  assert.equal(quiet.out(), "");
  assert.equal(quiet.err(), "ERROR SUTRA.CLI.USAGE: an error\n");

  const onStderr = captureIo();
  writeFindings(verboseIo(onStderr.io, "normal", false), findings, "stderr");
  assert.equal(onStderr.out(), "");
  assert.match(onStderr.err(), /an error\n.*a warning\n$/);
  const quietStderr = captureIo();
  writeFindings(verboseIo(quietStderr.io, "quiet", false), findings, "stderr");
  assert.equal(quietStderr.err(), "ERROR SUTRA.CLI.USAGE: an error\n");
});
