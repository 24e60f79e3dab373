/**
 * A deploy's completion event reaches the caller's webhook over real HTTP,
 * sent by the outbox worker like any emission.
 */
import assert from "node:assert/strict";
import { bootEngine, sealDir } from "./support.ts";

Deno.test("an async deploy's completion event is delivered to its callback", async () => {
  const received: { headers: Headers; body: Record<string, unknown> }[] = [];
  const hook = Deno.serve(
    { port: 0, hostname: "127.0.0.1", onListen: () => {} },
    async (request) => {
      received.push({ headers: request.headers, body: await request.json() });
      return new Response(null, { status: 204 });
    },
  );
  const engine = await bootEngine({ env: { SUTRA_OUTBOX_POLL_INTERVAL: "PT0.05S" } });
  try {
    const callback = `http://127.0.0.1:${hook.addr.port}/deployed`;
    const response = await fetch(
      `${engine.url}/admin/deployments?async=true&callback=${encodeURIComponent(callback)}`,
      { method: "POST", body: new Uint8Array(await sealDir("examples/quote-reply/package")) },
    );
    const accepted = await response.json();
    assert.equal(response.status, 202, JSON.stringify(accepted));
    for (let i = 0; i < 400 && received.length === 0; i++) {
      await new Promise((r) => setTimeout(r, 25));
    }
    assert.equal(received.length, 1);
    const [{ headers, body }] = received;
    assert.equal(headers.get("content-type"), "application/cloudevents+json");
    assert.ok(headers.get("idempotency-key"));
    assert.equal(body.specversion, "1.0");
    assert.equal(body.type, "com.sutra.deployment.activated");
    assert.equal(body.subject, accepted.deploymentId);
    assert.deepEqual(body.data, {
      deploymentId: accepted.deploymentId,
      slot: "demo--quote-reply--1.0.0",
      revision: "1.0.0",
      status: "Active",
    });
    // Delivered rows leave the outbox.
    for (let i = 0; i < 100; i++) {
      const { rows } = await engine.database.query("select 1 from outbox");
      if (rows.length === 0) break;
      await new Promise((r) => setTimeout(r, 25));
    }
    const { rows } = await engine.database.query("select 1 from outbox");
    assert.equal(rows.length, 0);
  } finally {
    await engine.stop();
    await hook.shutdown();
  }
});
