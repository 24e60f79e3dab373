import assert from "node:assert/strict";
import "../io/codecs/mod.ts";
import "../io/secrets/mod.ts";
import { transportCatalog } from "../engine/package/mod.ts";
import { captureIo } from "../tests/support/cli_io.ts";
import { UsageError, verboseIo } from "./command.ts";
import { lintCommand } from "./lint.ts";

const FIXTURES = new URL("../tests/fixtures/package/", import.meta.url).pathname;
const lint = lintCommand({ transports: transportCatalog(["http", "local"]) });

Deno.test("lint prints nothing for a clean package and exits 0", async () => {
  const c = captureIo();
  assert.equal(await lint.run([`${FIXTURES}base`], c.io), 0);
  assert.equal(c.out(), "");
  assert.equal(c.err(), "");
});

Deno.test("lint lists every finding under the package directory and exits 1", async () => {
  const c = captureIo();
  const dir = `${FIXTURES}multi_fault`;
  assert.equal(await lint.run([dir], c.io), 1);
  const lines = c.out().trimEnd().split("\n");
  assert.equal(lines.length, 10);
  assert.match(
    lines[0],
    new RegExp(
      `^${dir}/bpmn/orders\\.bpmn:11:\\d+: ERROR SUTRA\\.CONFIG\\.COVERAGE\\.STORE_MISSING: `,
    ),
  );
  assert.equal(lines[lines.length - 1], "9 error(s), 0 warning(s)");
});

Deno.test("lint --format json gives the same findings as data", async () => {
  const c = captureIo();
  assert.equal(await lint.run([`${FIXTURES}multi_fault`, "--format", "json"], c.io), 1);
  const report = JSON.parse(c.out());
  assert.equal(report.errors, 9);
  assert.equal(report.diagnostics.length, 9);
  assert.equal(report.diagnostics[0].code, "SUTRA.CONFIG.COVERAGE.STORE_MISSING");
  assert.equal(report.diagnostics[0].source.uri, "bpmn/orders.bpmn");
  const clean = captureIo();
  assert.equal(await lint.run([`${FIXTURES}base`, "--format", "json"], clean.io), 0);
  assert.deepEqual(JSON.parse(clean.out()).diagnostics, []);
});

Deno.test("lint refuses a missing directory with a diagnostic and bad arguments with usage", async () => {
  await assert.rejects(
    () => lint.run([`${FIXTURES}does-not-exist`], captureIo().io),
    (e: Error & { diagnostics?: { code: string }[] }) =>
      e.diagnostics?.[0].code === "SUTRA.CONFIG.PACKAGE.UNREADABLE",
  );
  await assert.rejects(() => lint.run([], captureIo().io), UsageError);
  await assert.rejects(() => lint.run(["a", "b"], captureIo().io), UsageError);
  await assert.rejects(() => lint.run(["a", "--format", "xml"], captureIo().io), UsageError);
});

Deno.test("lint -v lists the files it reads and -vv its settings and timings, on stderr", async () => {
  const c = captureIo();
  assert.equal(await lint.run([`${FIXTURES}base`], verboseIo(c.io, "debug", false)), 0);
  assert.equal(c.out(), "");
  assert.match(c.err(), new RegExp(`INFO lint: read \\d+ file\\(s\\) from ${FIXTURES}base\n`));
  assert.match(c.err(), new RegExp(`INFO lint: read ${FIXTURES}base/package\\.yaml\n`));
  assert.match(c.err(), /DEBUG lint: format text; transports http, local\n/);
  assert.match(c.err(), /DEBUG lint: checking took \d+\.\d ms\n/);
  assert.match(c.err(), /INFO lint: 0 finding\(s\)\n/);
  assert.doesNotMatch(c.err(), /TRACE/);

  const trace = captureIo();
  assert.equal(await lint.run([`${FIXTURES}base`], verboseIo(trace.io, "trace", false)), 0);
  assert.match(trace.err(), /TRACE lint: .*package\.yaml: \d+ byte\(s\)\n/);
});

Deno.test("lint --quiet prints only the errors, on stderr, and still exits 1", async () => {
  const c = captureIo();
  const dir = `${FIXTURES}multi_fault`;
  assert.equal(await lint.run([dir], verboseIo(c.io, "quiet", false)), 1);
  assert.equal(c.out(), "");
  const lines = c.err().trimEnd().split("\n");
  assert.equal(lines.length, 9);
  for (const line of lines) assert.match(line, /: ERROR SUTRA\./);
});

Deno.test("lint of the folder above a package names the sub-folder that holds its package.yaml", async () => {
  const c = captureIo();
  const above = new URL("../examples/quote-reply", import.meta.url).pathname;
  assert.equal(await lint.run([above], c.io), 1);
  assert.match(c.out(), /MANIFEST_MISSING: .*the folder 'package\/' holds one/);
});

Deno.test("lint refuses an http channel bound to a route it could never answer or call", async () => {
  const dir = await Deno.makeTempDir({ prefix: "sutra_lint_bind_" });
  try {
    const source = new URL("../examples/quote-reply/package", import.meta.url).pathname;
    await new Deno.Command("cp", { args: ["-r", `${source}/.`, dir] }).output();
    const channels = await Deno.readTextFile(`${dir}/channels.yaml`);
    await Deno.writeTextFile(
      `${dir}/channels.yaml`,
      channels.replace(/bind: .*/, 'bind: "FROB ../x y z"'),
    );
    const c = captureIo();
    assert.equal(await lintCommand({ transports: transportCatalog(["http"]) }).run([dir], c.io), 1);
    assert.match(
      c.out(),
      /channels\.yaml:\d+:\d+: ERROR SUTRA\.CONFIG\.CHANNEL\.INVALID: .*'FROB \.\.\/x y z'/,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
