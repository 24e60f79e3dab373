/**
 * Per-tenant quotas: the rate window refuses past its limit with the wait
 * until a slot frees and admits again once the window has slid; the
 * concurrency cap counts live instances in the engine database, refuses
 * only starts, and frees a slot when an instance ends; a refusal is one a
 * broker requeues; the limits are read from their configuration keys.
 */
import assert from "node:assert/strict";
import { ManualClock } from "../../engine/core/clock.ts";
import { configKeys, DiagnosticError, loadConfig } from "../../engine/core/mod.ts";
import type { DeliveryOutcome } from "../../engine/core/transport.ts";
import { type Database, ENGINE_MIGRATIONS, migrate } from "../../engine/persistence/mod.ts";
import {
  parseTenantLimits,
  retryAfterSeconds,
  TenantQuotas,
} from "../../engine/runtime/tenancy/mod.ts";
import { verdictOf } from "../../io/transports/_broker/verdict.ts";
import { eachDatabase, withMemoryDatabase } from "../support/test_database.ts";

function refusal(outcome: DeliveryOutcome | undefined): { code: string; retryAfter?: number } {
  assert.ok(outcome?.kind === "refused", `expected a refusal, got ${JSON.stringify(outcome)}`);
  assert.equal(outcome.refusal, "overloaded");
  const retryAfter = retryAfterSeconds(outcome.diagnostics[0]);
  return { code: outcome.diagnostics[0].code, ...(retryAfter ? { retryAfter } : {}) };
}

async function live(db: Database, tenant: string, count: number): Promise<string[]> {
  const ids = Array.from({ length: count }, () => crypto.randomUUID());
  for (const id of ids) {
    await db.query(
      `insert into instances (tenant, instance_id, deployment_id, process_id, status, snapshot)
       values ($1, $2, 'd', 'p', 'SUSPENDED', '\\x00')`,
      [tenant, id],
    );
  }
  return ids;
}

Deno.test("tenant limits are tenant=positive-integer pairs", () => {
  assert.deepEqual(
    parseTenantLimits(" acme=3 , globex=10,"),
    new Map([["acme", 3], ["globex", 10]]),
  );
  assert.deepEqual(parseTenantLimits(""), new Map());
  for (const bad of ["acme", "=3", "acme=0", "acme=-1", "acme=x", "acme=1,acme=2"]) {
    assert.equal(typeof parseTenantLimits(bad), "string", bad);
  }
});

Deno.test("a malformed quota key refuses the configuration", async () => {
  const env = { SUTRA_TENANT_MAX_INBOUND_RATE_PER_MINUTE: "acme=lots" };
  const error = await loadConfig({ env, cwd: "/nonexistent-sutra-dir", registry: configKeys })
    .catch((e) => e);
  assert.ok(error instanceof DiagnosticError);
  const found = error.diagnostics.find((d) =>
    d.attributes?.key === "sutra.tenant.max-inbound-rate-per-minute"
  );
  assert.equal(found?.code, "SUTRA.CONFIG.PROPERTY.INVALID");
});

Deno.test("the rate window refuses past its limit and admits again as it slides", async () => {
  const clock = new ManualClock(1_000_000);
  const quotas = new TenantQuotas({
    db: { query: () => Promise.reject(new Error("no database needed")) },
    clock,
    maxInboundRatePerMinute: new Map([["acme", 2]]),
  });
  assert.equal(await quotas.admit("acme", true), undefined);
  clock.advance(20_000);
  assert.equal(await quotas.admit("acme", false), undefined);
  assert.deepEqual(refusal(await quotas.admit("acme", true)), {
    code: "SUTRA.INBOUND.TENANT_RATE_LIMIT",
    retryAfter: 40,
  });
  // Another tenant, and one without a limit, are not held back.
  for (let i = 0; i < 5; i++) assert.equal(await quotas.admit("globex", false), undefined);
  clock.advance(39_999);
  assert.equal(refusal(await quotas.admit("acme", false)).retryAfter, 1);
  clock.advance(1);
  // The first message left the window: one slot, then full again until the second leaves.
  assert.equal(await quotas.admit("acme", false), undefined);
  assert.deepEqual(refusal(await quotas.admit("acme", false)), {
    code: "SUTRA.INBOUND.TENANT_RATE_LIMIT",
    retryAfter: 20,
  });
  clock.advance(60_000);
  assert.equal(await quotas.admit("acme", false), undefined);
  assert.equal(await quotas.admit("acme", false), undefined);
});

eachDatabase(
  "the concurrency cap counts live instances and frees slots as they end",
  async (db) => {
    await migrate(db, ENGINE_MIGRATIONS);
    const clock = new ManualClock(0);
    const quotas = new TenantQuotas({
      db,
      clock,
      maxConcurrentInstances: new Map([["acme", 2]]),
      maxInboundRatePerMinute: new Map([["acme", 100]]),
    });
    const [first] = await live(db, "acme", 2);
    await live(db, "globex", 5);
    assert.deepEqual(refusal(await quotas.admit("acme", true)), {
      code: "SUTRA.INBOUND.TENANT_CONCURRENCY_LIMIT",
      retryAfter: 1,
    });
    // A message for a live instance is what frees a slot: never held back by the cap.
    assert.equal(await quotas.admit("acme", false), undefined);
    assert.equal(await quotas.admit("globex", true), undefined);
    assert.deepEqual(await quotas.usage("acme"), {
      tenant: "acme",
      liveInstances: 2,
      maxConcurrentInstances: 2,
      // The refused start was not counted against the rate.
      inboundLastMinute: 1,
      maxInboundRatePerMinute: 100,
    });
    await db.query("update instances set status = 'COMPLETED' where instance_id = $1", [first]);
    assert.equal(await quotas.admit("acme", true), undefined);
    assert.deepEqual(await quotas.usage("globex"), {
      tenant: "globex",
      liveInstances: 5,
      inboundLastMinute: 0,
    });
  },
);

Deno.test("a quota refusal is requeued by a broker, not dead-lettered", async () => {
  await withMemoryDatabase(async (db) => {
    await migrate(db, ENGINE_MIGRATIONS);
    await live(db, "acme", 1);
    const quotas = new TenantQuotas({
      db,
      clock: new ManualClock(0),
      maxConcurrentInstances: new Map([["acme", 1]]),
      maxInboundRatePerMinute: new Map([["globex", 1]]),
    });
    const overCap = await quotas.admit("acme", true);
    await quotas.admit("globex", false);
    const overRate = await quotas.admit("globex", false);
    for (const outcome of [overCap, overRate]) {
      const verdict = verdictOf(outcome!);
      assert.equal(verdict.action, "requeue");
      assert.ok(retryAfterSeconds(verdict.action === "requeue" ? verdict.diagnostic : undefined));
    }
  });
});
