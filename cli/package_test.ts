import assert from "node:assert/strict";
import "../io/codecs/mod.ts";
import "../io/secrets/mod.ts";
import { readArchive, transportCatalog } from "../engine/package/mod.ts";
import { captureIo } from "../tests/support/cli_io.ts";
import { verboseIo } from "./command.ts";
import { packageCommand } from "./package.ts";

const FIXTURES = new URL("../tests/fixtures/package/", import.meta.url).pathname;
const pkg = packageCommand({ transports: transportCatalog(["http", "local"]) });

Deno.test("package seals a clean package into <tenant>--<module>--<version>.sutra and reports it", async () => {
  const out = await Deno.makeTempDir();
  try {
    const c = captureIo();
    assert.equal(await pkg.run([`${FIXTURES}base`, "-o", `${out}/nested`], c.io), 0);
    const path = `${out}/nested/acme--orders--1.0.0.sutra`;
    const read = await readArchive(await Deno.readFile(path));
    assert.ok(read.archive);
    assert.match(
      c.out(),
      new RegExp(`^wrote ${path}\n  deploymentId  ${read.archive.deploymentId}\n`),
    );
    assert.match(
      c.err(),
      /package: reading .*\npackage: checking \d+ file\(s\)\npackage: sealing acme--orders--1\.0\.0\n/,
    );
    assert.equal((await Deno.stat(path)).mode! & 0o777, 0o644);
  } finally {
    await Deno.remove(out, { recursive: true });
  }
});

Deno.test("packaging the same directory twice gives byte-identical archives", async () => {
  const out = await Deno.makeTempDir();
  try {
    const j1 = captureIo();
    assert.equal(
      await pkg.run([`${FIXTURES}base`, "--out", `${out}/one.sutra`, "--format", "json"], j1.io),
      0,
    );
    const j2 = captureIo();
    assert.equal(
      await pkg.run([`${FIXTURES}base`, "--out", `${out}/two.sutra`, "--format", "json"], j2.io),
      0,
    );
    assert.deepEqual(
      await Deno.readFile(`${out}/one.sutra`),
      await Deno.readFile(`${out}/two.sutra`),
    );
    const [r1, r2] = [JSON.parse(j1.out()), JSON.parse(j2.out())];
    assert.equal(r1.deploymentId, r2.deploymentId);
    assert.equal(r1.slot, "acme--orders--1.0.0");
    assert.deepEqual(r1.labels, {
      tenant: "acme",
      module: "orders",
      version: "1.0.0",
      team: "fulfilment",
    });
  } finally {
    await Deno.remove(out, { recursive: true });
  }
});

Deno.test("a package with errors is refused and nothing is written", async () => {
  const out = await Deno.makeTempDir();
  try {
    const c = captureIo();
    assert.equal(await pkg.run([`${FIXTURES}multi_fault`, "-o", out], c.io), 1);
    assert.equal(c.out(), "");
    assert.match(c.err(), /SUTRA\.CONFIG\.SECRET\.LITERAL/);
    assert.match(c.err(), /package: refused, 9 error\(s\), 0 warning\(s\); nothing written\n$/);
    assert.deepEqual([...Deno.readDirSync(out)], []);
    const j = captureIo();
    assert.equal(await pkg.run([`${FIXTURES}multi_fault`, "-o", out, "--format", "json"], j.io), 1);
    assert.equal(JSON.parse(j.out()).errors, 9);
  } finally {
    await Deno.remove(out, { recursive: true });
  }
});

Deno.test("package --quiet writes the archive and says nothing; -vvv traces each sealed file", async () => {
  const out = await Deno.makeTempDir();
  try {
    const quiet = captureIo();
    assert.equal(
      await pkg.run([`${FIXTURES}base`, "-o", out], verboseIo(quiet.io, "quiet", false)),
      0,
    );
    assert.equal(quiet.out(), "");
    assert.equal(quiet.err(), "");
    assert.ok((await Deno.stat(`${out}/acme--orders--1.0.0.sutra`)).isFile);

    const trace = captureIo();
    assert.equal(
      await pkg.run([`${FIXTURES}base`, "-o", out], verboseIo(trace.io, "trace", false)),
      0,
    );
    assert.match(
      trace.err(),
      /^DEBUG package: out .*; format text; transports http, local\npackage: reading /,
    );
    assert.match(trace.err(), /TRACE package: sealed package\.yaml sha256 [0-9a-f]{64}\n/);
    assert.match(
      trace.err(),
      /INFO package: writing .*acme--orders--1\.0\.0\.sutra \(\d+ bytes\)\n/,
    );
    assert.match(trace.err(), /DEBUG package: checking and sealing took /);
  } finally {
    await Deno.remove(out, { recursive: true });
  }
});
