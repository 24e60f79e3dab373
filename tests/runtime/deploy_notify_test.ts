/**
 * `notify=<destination>` on a deploy: the completion CloudEvent goes through
 * the outbox to whatever sink serves the destination's scheme — here the
 * file transport's `file://` sink — and a scheme no linked transport
 * delivers to is refused before anything is stored.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { bootEngine, sealDir, until } from "./support.ts";

Deno.test("a deploy's completion event is written to a notify=file:// directory", async () => {
  const dir = await Deno.makeTempDir({ prefix: "sutra-notify-" });
  const engine = await bootEngine({ env: { SUTRA_OUTBOX_POLL_INTERVAL: "PT0.05S" } });
  try {
    const notify = encodeURIComponent(`file://${dir}`);
    const response = await fetch(`${engine.url}/admin/deployments?async=true&notify=${notify}`, {
      method: "POST",
      body: new Uint8Array(await sealDir("examples/quote-reply/package")),
    });
    const accepted = await response.json();
    assert.equal(response.status, 202, JSON.stringify(accepted));
    const written = async () => {
      const names: string[] = [];
      // The sink writes a dot-named temporary file first; only renamed files count.
      for await (const e of Deno.readDir(dir)) if (!e.name.startsWith(".")) names.push(e.name);
      return names;
    };
    await until(async () => (await written()).length === 1);
    const [name] = await written();
    assert.match(name, /^com_sutra_deployment_activated_.*\.json$/);
    const event = JSON.parse(await Deno.readTextFile(join(dir, name)));
    assert.equal(event.specversion, "1.0");
    assert.equal(event.type, "com.sutra.deployment.activated");
    assert.equal(event.subject, accepted.deploymentId);
    assert.equal(event.data.status, "Active");
    assert.equal(event.data.deploymentId, accepted.deploymentId);
  } finally {
    await engine.stop();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a notify scheme no linked transport delivers to is refused, naming it; nothing is stored", async () => {
  const engine = await bootEngine();
  try {
    const response = await fetch(
      `${engine.url}/admin/deployments?notify=nosuch://queue/x&notify=file&callback=ftp://x`,
      { method: "POST", body: new Uint8Array(await sealDir("examples/quote-reply/package")) },
    );
    const body = await response.json();
    assert.equal(response.status, 400);
    assert.deepEqual(body.diagnostics.map((d: { code: string }) => d.code), [
      "SUTRA.DEPLOY.CALLBACK_INVALID",
      "SUTRA.DEPLOY.NOTIFY_UNSUPPORTED",
      "SUTRA.DEPLOY.NOTIFY_UNSUPPORTED",
    ]);
    assert.match(body.diagnostics[1].message, /scheme 'nosuch', which no transport linked/);
    assert.match(body.diagnostics[1].message, /schemes: .*file/);
    assert.match(body.diagnostics[2].message, /'file' is not a destination/);
    const { rows } = await engine.database.query("select 1 from deployments");
    assert.equal(rows.length, 0);
  } finally {
    await engine.stop();
  }
});
