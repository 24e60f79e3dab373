import assert from "node:assert/strict";
import "../../io/codecs/mod.ts";
import "../../io/secrets/mod.ts";
import { checkPackage, sealPackage, transportCatalog } from "../../engine/package/mod.ts";
import { FIXTURES, readFiles } from "./_fixtures.ts";

Deno.test("a package with faults in every family reports all of them in one pass", async () => {
  const files = await readFiles(`${FIXTURES}multi_fault`);
  const transports = transportCatalog(["http", "local"]);
  const r = await checkPackage(files, { transports });
  assert.deepEqual(
    r.diagnostics.map((d) => `${d.source?.uri}:${d.source?.line ?? "-"} ${d.code}`),
    [
      "bpmn/orders.bpmn:11 SUTRA.CONFIG.COVERAGE.STORE_MISSING",
      "bpmn/orders.bpmn:51 SUTRA.CONFIG.PACKAGE.TEMPLATE_UNKNOWN",
      "bpmn/scoring.bpmn:13 SUTRA.CONFIG.PACKAGE.RULE_UNKNOWN",
      "channels.yaml:10 SUTRA.CONFIG.SECRET.LITERAL",
      "channels.yaml:12 SUTRA.CONFIG.CHANNEL.TRANSPORT_UNAVAILABLE",
      "coverage/e2e.yaml:- SUTRA.CONFIG.COVERAGE.STORE_MISSING",
      "migrations/accounts/seed.sql:- SUTRA.CONFIG.DATASTORE.MIGRATION_INVALID",
      "notes.md:- SUTRA.CONFIG.PACKAGE.FILE_UNEXPECTED",
      "package.yaml:7 SUTRA.CONFIG.PACKAGE.MANIFEST_INVALID",
    ],
  );
  const sealed = await sealPackage(files, { transports });
  assert.equal(sealed.archive, undefined);
  assert.equal(sealed.diagnostics.length, r.diagnostics.length);
});
