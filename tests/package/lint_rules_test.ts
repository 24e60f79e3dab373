import assert from "node:assert/strict";
import "../../io/codecs/mod.ts";
import "../../io/secrets/mod.ts";
import { checkPackage, transportCatalog } from "../../engine/package/mod.ts";
import { type Expected, FIXTURES, overlay, readFiles, ruleFixtures } from "./_fixtures.ts";

const transports = transportCatalog(["http", "local"]);

function findings(
  diagnostics: readonly {
    code: string;
    severity: string;
    source?: { uri: string; line?: number };
  }[],
) {
  return diagnostics.filter((d) => d.severity !== "INFO")
    .map((d): Expected => [d.code, d.source?.uri ?? "", d.source?.line ?? null]);
}

Deno.test("the base fixture package is clean", async () => {
  const r = await checkPackage(await readFiles(`${FIXTURES}base`), { transports });
  assert.deepEqual(findings(r.diagnostics), []);
});

for (const name of await ruleFixtures()) {
  Deno.test(`lint fixture ${name} reports exactly its finding`, async () => {
    const { files, meta } = await overlay(name);
    const r = await checkPackage(files, { transports });
    const got = findings(r.diagnostics).map(([code, uri, line], k): Expected => {
      const want = meta.expect[k];
      return [code, uri, want && want[2] === null ? null : line];
    });
    assert.deepEqual(
      got,
      meta.expect,
      r.diagnostics.map((d) => `${d.code} ${d.source?.uri}:${d.source?.line} ${d.message}`).join(
        "\n",
      ),
    );
  });
}
