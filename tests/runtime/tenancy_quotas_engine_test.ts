/**
 * Tenant quotas on a running engine: past `maxConcurrentInstances` a start
 * is answered 429 with `Retry-After` while the messages that end instances
 * still get through, an ended instance frees its slot, past
 * `maxInboundRatePerMinute` every message is answered 429 with the wait
 * until the window frees a slot, and the admin view reports the usage.
 */
import assert from "node:assert/strict";
import type { RunningEngine } from "../../engine/runtime/mod.ts";
import { codeOf, get, post, withDeployed } from "./support.ts";

const KEY = { "x-api-key": "approval-demo-key" };

const request = (engine: RunningEngine, e2e: string) =>
  post(engine, "/channels/approval-request", {
    ApprovalRequest: { E2EId: e2e, Amount: "10.00" },
  }, KEY);

const decide = (engine: RunningEngine, e2e: string) =>
  post(engine, "/channels/approval-decision", {
    ApprovalDecision: { E2EId: e2e, Decision: "APPROVE" },
  }, KEY);

Deno.test("tenant quotas answer 429 with Retry-After and recover", async () => {
  const env = {
    SUTRA_TENANT_MAX_CONCURRENT_INSTANCES: "demo=2,other=1",
    SUTRA_TENANT_MAX_INBOUND_RATE_PER_MINUTE: "demo=5",
  };
  await withDeployed("examples/approval-hold/package", { env }, async (engine) => {
    assert.equal((await request(engine, "A")).status, 200);
    assert.equal((await request(engine, "B")).status, 200);
    const full = await request(engine, "C");
    assert.equal(full.status, 429, JSON.stringify(full.body));
    assert.equal(codeOf(full), "SUTRA.INBOUND.TENANT_CONCURRENCY_LIMIT");
    assert.equal(full.headers.get("retry-after"), "1");

    const usage = await get(engine, "/admin/tenants/demo/usage");
    assert.equal(usage.status, 200);
    assert.deepEqual(usage.body, {
      tenant: "demo",
      liveInstances: 2,
      maxConcurrentInstances: 2,
      inboundLastMinute: 2,
      maxInboundRatePerMinute: 5,
    });

    // The decision ends an instance, which frees a slot for the next request.
    assert.equal((await decide(engine, "A")).status, 200);
    assert.equal((await request(engine, "C")).status, 200);
    assert.equal((await decide(engine, "B")).status, 200);

    const limited = await decide(engine, "C");
    assert.equal(limited.status, 429, JSON.stringify(limited.body));
    assert.equal(codeOf(limited), "SUTRA.INBOUND.TENANT_RATE_LIMIT");
    const wait = Number(limited.headers.get("retry-after"));
    assert.ok(wait >= 1 && wait <= 60, `Retry-After ${wait}`);
    assert.equal((await get(engine, "/admin/tenants/demo/usage")).body.inboundLastMinute, 5);
    const api = (await get(engine, "/admin/openapi.json")).body as { paths: object };
    assert.ok("/admin/tenants/{tenant}/usage" in api.paths);
  });
});
