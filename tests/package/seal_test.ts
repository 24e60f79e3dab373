import assert from "node:assert/strict";
import "../../io/codecs/mod.ts";
import "../../io/secrets/mod.ts";
import {
  checkPackage,
  readArchive,
  sealPackage,
  transportCatalog,
} from "../../engine/package/mod.ts";
import { FIXTURES, readFiles } from "./_fixtures.ts";

const transports = transportCatalog(["http", "local"]);

Deno.test("a sealed package reads back verified and loads clean from the archive alone", async () => {
  const files = await readFiles(`${FIXTURES}base`);
  const sealed = await sealPackage(files, { transports });
  assert.ok(sealed.archive, JSON.stringify(sealed.diagnostics));
  const read = await readArchive(sealed.archive.bytes, { uri: sealed.archive.fileName });
  assert.ok(read.archive, JSON.stringify(read.diagnostics));
  assert.equal(read.archive.deploymentId, sealed.archive.deploymentId);
  assert.deepEqual(new Map(read.archive.files), files);
  const reloaded = await checkPackage(read.archive.files, { transports });
  assert.deepEqual(reloaded.diagnostics.filter((d) => d.severity !== "INFO"), []);
  assert.deepEqual(
    reloaded.package.bpmn.map((b) => [b.artifact.key, b.result.ok]),
    [["orders.bpmn", true], ["relay/relay.bpmn", true], ["scoring.bpmn", true]],
  );
  assert.deepEqual(reloaded.package.codecs.list().map((c) => [c.urn, c.codec?.messageTypes()]), [
    ["urn:orders", ["OrderRequest"]],
  ]);
});
