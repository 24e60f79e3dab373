import assert from "node:assert/strict";
import "../io/codecs/mod.ts";
import "../io/secrets/mod.ts";
import { checkPackage, readPackageDir, transportCatalog } from "../engine/package/mod.ts";
import { captureIo } from "../tests/support/cli_io.ts";
import { UsageError, verboseIo } from "./command.ts";
import { createCommand } from "./create.ts";
import { elementTemplates } from "./scaffold/element_templates.ts";

const transports = transportCatalog(["http", "local"]);
const create = createCommand({ transports });

async function lintDir(dir: string) {
  const read = await readPackageDir(dir);
  assert.ok(read.files, JSON.stringify(read.diagnostics));
  return (await checkPackage(read.files, { transports })).diagnostics;
}

Deno.test("create app writes a workspace whose package lints clean", async () => {
  const root = await Deno.makeTempDir();
  try {
    const c = captureIo();
    assert.equal(await create.run(["app", "shop", "--dir", root], c.io), 0);
    const created = c.out().trimEnd().split("\n").map((l) => l.replace(`${root}/shop/`, ""));
    assert.deepEqual(created, [
      "created  packages/shop-main/package.yaml",
      "created  packages/shop-main/channels.yaml",
      "created  packages/shop-main/schemas/shop/codec-manifest.yaml",
      "created  packages/shop-main/schemas/shop/shop.xsd",
      "created  packages/shop-main/bpmn/shop.bpmn",
      "created  packages/shop-main/templates/shop-accepted.xml.hbs",
      "created  packages/shop-main/templates/shop-rejected.xml.hbs",
      "created  deployments/.gitkeep",
      "created  samples/shop-request.xml",
      "created  smoke.sh",
      "created  .camunda/element-templates/sutra.json",
      "created  deploy/compose.yaml",
      "created  deploy/kubernetes.yaml",
      "created  README.md",
    ]);
    assert.deepEqual(await lintDir(`${root}/shop/packages/shop-main`), []);
    assert.equal((await Deno.stat(`${root}/shop/smoke.sh`)).mode! & 0o777, 0o755);
    const bpmn = await Deno.readTextFile(`${root}/shop/packages/shop-main/bpmn/shop.bpmn`);
    assert.match(bpmn, /<q:source channel="shop-request" messageTypeValue="ShopRequest"\/>/);
    assert.match(bpmn, /validation\.outcome = &quot;OK&quot;<\/bpmn:conditionExpression>/);
    // The modeler's element templates, and the README line on using them.
    const templates = await Deno.readTextFile(`${root}/shop/.camunda/element-templates/sutra.json`);
    assert.deepEqual(JSON.parse(templates), elementTemplates("shop"));
    const readme = await Deno.readTextFile(`${root}/shop/README.md`);
    assert.match(
      readme,
      /finds the\nelement templates in `\.camunda\/element-templates\/sutra\.json`/,
    );
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("create never overwrites: existing files are kept and reported", async () => {
  const root = await Deno.makeTempDir();
  try {
    assert.equal(await create.run(["app", "shop", "--dir", root], captureIo().io), 0);
    await Deno.writeTextFile(`${root}/shop/README.md`, "mine\n");
    await Deno.remove(`${root}/shop/smoke.sh`);
    const c = captureIo();
    assert.equal(await create.run(["app", "shop", "--dir", root, "--format", "json"], c.io), 0);
    const report = JSON.parse(c.out());
    assert.deepEqual(report.created, [`${root}/shop/smoke.sh`]);
    assert.equal(report.kept.length, 13);
    assert.equal(await Deno.readTextFile(`${root}/shop/README.md`), "mine\n");
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("create deployment makes a fresh package, or an explicit relabelled copy", async () => {
  const root = await Deno.makeTempDir();
  try {
    assert.equal(await create.run(["deployment", "ledger", "--dir", root], captureIo().io), 0);
    assert.deepEqual(await lintDir(`${root}/ledger`), []);
    await Deno.writeTextFile(`${root}/ledger/.notes`, "hidden, not part of the package");
    const c = captureIo();
    assert.equal(
      await create.run(["deployment", "ledger-eu", "--from", `${root}/ledger/`], c.io),
      0,
    );
    assert.match(c.err(), /module label is 'ledger-eu'/);
    const yaml = await Deno.readTextFile(`${root}/ledger-eu/package.yaml`);
    assert.match(yaml, /^# Labels select/);
    assert.match(yaml, /module: ledger-eu\n/);
    assert.equal(
      await Deno.readTextFile(`${root}/ledger-eu/bpmn/ledger.bpmn`),
      await Deno.readTextFile(`${root}/ledger/bpmn/ledger.bpmn`),
    );
    await assert.rejects(Deno.stat(`${root}/ledger-eu/.notes`), Deno.errors.NotFound);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("create bpmn adds a verified process, its templates, its codec and its channel", async () => {
  const root = await Deno.makeTempDir();
  try {
    assert.equal(await create.run(["deployment", "ledger", "--dir", root], captureIo().io), 0);
    const dir = `${root}/ledger`;
    const c = captureIo();
    assert.equal(
      await create.run(["bpmn", "refunds", "--package", dir, "--validation", "soft"], c.io),
      0,
    );
    assert.deepEqual(c.out().trimEnd().split("\n"), [
      `created  ${dir}/bpmn/refunds.bpmn`,
      `created  ${dir}/templates/refunds-accepted.xml.hbs`,
      `created  ${dir}/templates/refunds-rejected.xml.hbs`,
      `created  ${dir}/schemas/refunds/codec-manifest.yaml`,
      `created  ${dir}/schemas/refunds/refunds.xsd`,
      `updated  ${dir}/channels.yaml`,
    ]);
    const channels = await Deno.readTextFile(`${dir}/channels.yaml`);
    assert.match(
      channels,
      /- name: refunds-request\n {4}transport: http\n {4}bind: "POST \/channels\/refunds-request"\n {4}codec: urn:refunds/,
    );
    assert.match(
      await Deno.readTextFile(`${dir}/bpmn/refunds.bpmn`),
      /validation\.outcome = &quot;OK&quot; or validation\.tier = &quot;content&quot;/,
    );
    assert.deepEqual(await lintDir(dir), []);

    // On the existing channel, the package as it would be is checked first:
    // a second subscriber to the same type, or a type the codec cannot
    // yield, refuses the command and nothing is written.
    const onChannel = ["--package", dir, "--channel", "refunds-request"];
    const refusedWith = (code: string) => (e: Error & { diagnostics?: { code: string }[] }) =>
      e.diagnostics?.some((d) => d.code === code) === true;
    await assert.rejects(
      () =>
        create.run(
          ["bpmn", "returns", ...onChannel, "--message-type", "RefundsRequest"],
          captureIo().io,
        ),
      refusedWith("SUTRA.CONFIG.CHANNEL.SUBSCRIBER_CONFLICT"),
    );
    await assert.rejects(
      () =>
        create.run(
          ["bpmn", "claims", ...onChannel, "--message-type", "ClaimRequest"],
          captureIo().io,
        ),
      refusedWith("SUTRA.CONFIG.CHANNEL.MESSAGE_TYPE_UNKNOWN"),
    );
    await assert.rejects(Deno.stat(`${dir}/bpmn/returns.bpmn`), Deno.errors.NotFound);
    await assert.rejects(Deno.stat(`${dir}/bpmn/claims.bpmn`), Deno.errors.NotFound);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("create bpmn refuses an existing process and bad arguments", async () => {
  const root = await Deno.makeTempDir();
  try {
    assert.equal(await create.run(["deployment", "ledger", "--dir", root], captureIo().io), 0);
    const dir = `${root}/ledger`;
    await assert.rejects(
      () => create.run(["bpmn", "ledger", "--package", dir], captureIo().io),
      /process 'ledger' is already defined/,
    );
    await Deno.writeTextFile(`${dir}/templates/other-accepted.xml.hbs`, "<x/>");
    await assert.rejects(
      () => create.run(["bpmn", "other", "--package", dir], captureIo().io),
      /templates\/other-accepted\.xml\.hbs already exist/,
    );
    await assert.rejects(
      () => create.run(["bpmn", "x"], captureIo().io),
      /--package DIR is required/,
    );
    await assert.rejects(
      () => create.run(["bpmn", "x", "--package", dir, "--validation", "lenient"], captureIo().io),
      UsageError,
    );
    await assert.rejects(() => create.run(["app", "Bad_Name"], captureIo().io), UsageError);
    await assert.rejects(() => create.run(["app", "a--b"], captureIo().io), UsageError);
    await assert.rejects(() => create.run(["widget", "x"], captureIo().io), UsageError);
    await assert.rejects(
      () => create.run(["app", "x", "--from", dir], captureIo().io),
      /takes no --from/,
    );
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("create -v names each file written or kept; --quiet says nothing and still writes", async () => {
  const root = await Deno.makeTempDir();
  try {
    const quiet = captureIo();
    assert.equal(
      await create.run(
        ["deployment", "ledger", "--dir", root],
        verboseIo(quiet.io, "quiet", false),
      ),
      0,
    );
    assert.equal(quiet.out() + quiet.err(), "");
    assert.ok((await Deno.stat(`${root}/ledger/package.yaml`)).isFile);

    const loud = captureIo();
    assert.equal(
      await create.run(["deployment", "ledger", "--dir", root], verboseIo(loud.io, "info", false)),
      0,
    );
    assert.match(loud.err(), /^create: checking the ledger package\n/);
    assert.match(
      loud.err(),
      new RegExp(`INFO create: kept ${root}/ledger/package\\.yaml: it exists\n`),
    );
    assert.match(loud.err(), /create: 0 file\(s\) written, \d+ kept\n$/);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
