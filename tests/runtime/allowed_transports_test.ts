/**
 * `sutra.allowed-transports`: an operator narrows the transports a running
 * engine accepts channels on; a deployment using another one is refused
 * with a diagnostic saying so, and a name the build does not link stops
 * the engine at startup.
 */
import assert from "node:assert/strict";
import { DiagnosticError } from "../../engine/core/mod.ts";
import { tier2Test, withServerDatabase } from "../support/test_database.ts";
import { bootEngine, post, sealDir } from "./support.ts";

Deno.test("a deployment on a transport the engine does not allow is refused", async () => {
  const engine = await bootEngine({ env: { SUTRA_ALLOWED_TRANSPORTS: "local, pull" } });
  try {
    const response = await fetch(`${engine.url}/admin/deployments`, {
      method: "POST",
      body: new Uint8Array(await sealDir("examples/quote-reply/package")),
    });
    const body = await response.json();
    assert.equal(response.status, 422);
    assert.equal(body.diagnostics[0].code, "SUTRA.DEPLOY.LINT_FAILED");
    const finding = body.diagnostics[1];
    assert.equal(finding.code, "SUTRA.CONFIG.CHANNEL.TRANSPORT_UNAVAILABLE");
    assert.match(finding.message, /does not allow \(sutra\.allowed-transports: local, pull\)/);
    assert.equal((await post(engine, "/channels/quote-request", {})).status, 404);
  } finally {
    await engine.stop();
  }
});

Deno.test("an allowed transport deploys as usual", async () => {
  const engine = await bootEngine({ env: { SUTRA_ALLOWED_TRANSPORTS: "http" } });
  try {
    await engine.deployments.deploy(await sealDir("examples/quote-reply/package"));
    const quote = { item: "widget", quantity: 3, unitPrice: 2.5 };
    assert.equal((await post(engine, "/channels/quote-request", quote)).status, 200);
  } finally {
    await engine.stop();
  }
});

Deno.test("an allowed transport the build does not link stops the engine at startup", async () => {
  await assert.rejects(
    bootEngine({ env: { SUTRA_ALLOWED_TRANSPORTS: "http,mqtt" } }),
    (error: Error) => {
      assert.ok(error instanceof DiagnosticError, String(error));
      assert.equal(error.diagnostics[0].code, "SUTRA.CONFIG.PROPERTY.INVALID");
      assert.match(error.message, /'mqtt'/);
      return true;
    },
  );
});

tier2Test(
  "a stored deployment on a transport no longer allowed is not served after a restart",
  () =>
    withServerDatabase(async (_db, target) => {
      const first = await bootEngine(target);
      try {
        await first.deployments.deploy(await sealDir("examples/quote-reply/package"));
      } finally {
        await first.stop();
      }
      const narrowed = await bootEngine({ ...target, env: { SUTRA_ALLOWED_TRANSPORTS: "local" } });
      try {
        const quote = { item: "widget", quantity: 3, unitPrice: 2.5 };
        assert.equal((await post(narrowed, "/channels/quote-request", quote)).status, 404);
      } finally {
        await narrowed.stop();
      }
    }),
);
