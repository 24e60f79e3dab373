import assert from "node:assert/strict";
import "../io/codecs/mod.ts";
import "../io/secrets/mod.ts";
import { transportCatalog } from "../engine/package/mod.ts";
import { captureIo } from "../tests/support/cli_io.ts";
import { UsageError } from "./command.ts";
import { deploymentsCommand } from "./deployments.ts";
import { writeZip } from "../engine/package/_zip_write.ts";
import { packageCommand } from "./package.ts";

const FIXTURES = new URL("../tests/fixtures/package/", import.meta.url).pathname;

async function sealedDir(): Promise<{ dir: string; id: string }> {
  const dir = await Deno.makeTempDir();
  const c = captureIo();
  const pkg = packageCommand({ transports: transportCatalog(["http", "local"]) });
  assert.equal(await pkg.run([`${FIXTURES}base`, "-o", dir, "--format", "json"], c.io), 0);
  return { dir, id: JSON.parse(c.out()).deploymentId };
}

Deno.test("deployments list shows each verified archive with id, slot and labels", async () => {
  const { dir, id } = await sealedDir();
  try {
    await Deno.writeTextFile(`${dir}/notes.txt`, "not an archive");
    const c = captureIo();
    assert.equal(await deploymentsCommand.run(["list", dir], c.io), 0);
    const lines = c.out().trimEnd().split("\n");
    assert.match(lines[0], /^DEPLOYMENT ID +SLOT +LABELS +FILE$/);
    assert.equal(
      lines[1],
      `${id}  acme--orders--1.0.0  module=orders,team=fulfilment,tenant=acme,version=1.0.0  ${dir}/acme--orders--1.0.0.sutra`,
    );
    const j = captureIo();
    assert.equal(await deploymentsCommand.run(["list", dir, "--format", "json"], j.io), 0);
    assert.deepEqual(JSON.parse(j.out()).deployments[0].deploymentId, id);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("--label filters, all labels must match", async () => {
  const { dir } = await sealedDir();
  try {
    const hit = captureIo();
    assert.equal(
      await deploymentsCommand.run([
        "list",
        dir,
        "--label",
        "tenant=acme",
        "--label",
        "team=fulfilment",
      ], hit.io),
      0,
    );
    assert.equal(hit.out().trimEnd().split("\n").length, 2);
    const miss = captureIo();
    assert.equal(
      await deploymentsCommand.run(
        ["list", dir, "--label", "tenant=acme", "--label", "team=other"],
        miss.io,
      ),
      0,
    );
    assert.equal(miss.out(), "no archives\n");
    await assert.rejects(
      () => deploymentsCommand.run(["list", dir, "--label", "tenant"], captureIo().io),
      UsageError,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a tampered archive is reported by name and the command exits 1", async () => {
  const { dir } = await sealedDir();
  try {
    const good = await Deno.readFile(`${dir}/acme--orders--1.0.0.sutra`);
    const bad = good.slice();
    bad[60] ^= 0xff;
    await Deno.writeFile(`${dir}/broken.sutra`, bad);
    const c = captureIo();
    assert.equal(await deploymentsCommand.run(["list", dir], c.io), 1);
    assert.equal(c.out().trimEnd().split("\n").length, 2);
    assert.match(
      c.err(),
      new RegExp(`^${dir}/broken\\.sutra: ERROR SUTRA\\.DEPLOY\\.ARCHIVE_INVALID: `),
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("control characters in an archive's entry names and file name are printed escaped", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const name = "a\u001b[31mRED\u0007.txt";
    await Deno.writeFile(
      `${dir}/evil\u001b[2J.sutra`,
      writeZip([{ name, bytes: new Uint8Array([1]) }]),
    );
    const c = captureIo();
    assert.equal(await deploymentsCommand.run(["list", dir], c.io), 1);
    // deno-lint-ignore no-control-regex
    assert.doesNotMatch(c.err(), /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
    assert.ok(c.err().includes(`evil\\u001b[2J.sutra`), c.err());
    assert.ok(c.err().includes(`a\\u001b[31mRED\\u0007.txt: the path contains`), c.err());
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("deployments needs the list sub-command and one directory", async () => {
  await assert.rejects(() => deploymentsCommand.run([], captureIo().io), UsageError);
  await assert.rejects(() => deploymentsCommand.run(["show", "x"], captureIo().io), UsageError);
  await assert.rejects(() => deploymentsCommand.run(["list"], captureIo().io), UsageError);
});
