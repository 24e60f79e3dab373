/**
 * A channel on a transport the running build does not link is refused by
 * lint (what `sutra lint` and `sutra package` run) and by a deploy of an
 * archive sealed elsewhere, each naming the channel and the transport.
 */
import assert from "node:assert/strict";
import { transports } from "../../engine/core/transport.ts";
import {
  checkPackage,
  readPackageDir,
  sealPackage,
  transportCatalog,
} from "../../engine/package/mod.ts";
import { bootEngine } from "./support.ts";

/** local_handoff with its local channel moved onto transport `nosuch`. */
async function unlinkedPackage(): Promise<Map<string, Uint8Array>> {
  const path = new URL("../fixtures/runtime/local_handoff", import.meta.url).pathname;
  const read = await readPackageDir(path);
  assert.ok(read.files);
  const files = new Map(read.files);
  const channels = new TextDecoder().decode(files.get("channels.yaml"));
  assert.match(channels, /transport: local/);
  files.set(
    "channels.yaml",
    new TextEncoder().encode(channels.replace("transport: local", "transport: nosuch")),
  );
  return files;
}

Deno.test("lint refuses a channel on a transport the build does not link, naming both", async () => {
  const checked = await checkPackage(await unlinkedPackage(), { transports });
  const found = checked.diagnostics.filter((d) =>
    d.code === "SUTRA.CONFIG.CHANNEL.TRANSPORT_UNAVAILABLE"
  );
  assert.equal(found.length, 1);
  const [finding] = found;
  assert.equal(finding.severity, "ERROR");
  assert.deepEqual(finding.attributes, { channel: "lh-handoff", transport: "nosuch" });
  assert.match(finding.message, /channel 'lh-handoff' rides transport 'nosuch'/);
  assert.match(finding.message, /does not link \(linked: .*file.*http/);
  assert.equal(finding.source?.uri, "channels.yaml");
  assert.ok(finding.source?.line);
});

Deno.test("a deploy of an archive using an unlinked transport is refused with 422, naming it", async () => {
  // Sealed by a build that links `nosuch`, deployed to one that does not.
  const elsewhere = transportCatalog([...transports.names(), "nosuch"]);
  const sealed = await sealPackage(await unlinkedPackage(), { transports: elsewhere });
  assert.ok(sealed.archive, sealed.diagnostics.map((d) => d.message).join("\n"));
  const engine = await bootEngine();
  try {
    const response = await fetch(`${engine.url}/admin/deployments`, {
      method: "POST",
      body: new Uint8Array(sealed.archive.bytes),
    });
    const body = await response.json();
    assert.equal(response.status, 422);
    const finding = body.diagnostics.find((d: { code: string }) =>
      d.code === "SUTRA.CONFIG.CHANNEL.TRANSPORT_UNAVAILABLE"
    );
    assert.ok(finding, JSON.stringify(body));
    assert.deepEqual(finding.attributes, { channel: "lh-handoff", transport: "nosuch" });
    // Recorded as a failed deployment, never activated.
    const { rows } = await engine.database.query<{ status: string }>(
      "select status from deployments",
    );
    assert.deepEqual(rows, [{ status: "failed" }]);
    assert.deepEqual(engine.deployments.registry.list(), []);
  } finally {
    await engine.stop();
  }
});
