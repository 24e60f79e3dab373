/**
 * Replica semantics on the tier-2 PostgreSQL server: two engines on one
 * database, four lanes each, 500 approval flows parked through one engine
 * and resumed through the other, all at once. Every flow completes exactly
 * once: each decision is sent to both replicas at the same moment and exactly
 * one advances the instance; one completion event per instance, no relay
 * lost, every alias retired, no claim left behind.
 */
import assert from "node:assert/strict";
import { tier2Test, withServerDatabase } from "../support/test_database.ts";
import { bootEngine, codeOf, post, sealDir } from "./support.ts";

const FLOWS = 500;
const CONCURRENCY = 32;
const KEY = { "x-api-key": "approval-demo-key" };

async function pool<T>(count: number, width: number, task: (i: number) => Promise<T>) {
  const results: T[] = new Array(count);
  let next = 0;
  await Promise.all(Array.from({ length: width }, async () => {
    while (next < count) {
      const i = next++;
      results[i] = await task(i);
    }
  }));
  return results;
}

tier2Test(
  "two engines, four lanes each: 500 concurrent approval flows complete exactly once",
  () =>
    withServerDatabase(async (db, target) => {
      // The journal's instance.completed rows prove no instance completed twice.
      const env = { SUTRA_ENGINE_SHARDS: "4", SUTRA_AUDIT_SQL: "true" };
      const a = await bootEngine({ ...target, env, replicaId: "replica-a" });
      const b = await bootEngine({ ...target, env, replicaId: "replica-b" });
      try {
        await a.deployments.deploy(await sealDir("examples/approval-hold/package"));
        // The second engine hears of the deployment through the database.
        for (let i = 0; i < 100 && b.deployments.registry.list().length === 0; i++) {
          await new Promise((r) => setTimeout(r, 50));
        }
        assert.equal(b.deployments.registry.list().length, 1);
        const engines = [a, b];
        const refusals = { held: 0, late: 0 };
        const statuses = await pool(FLOWS, CONCURRENCY, async (i) => {
          const e2e = `E2E-${i}`;
          const parked = await post(engines[i % 2], "/channels/approval-request", {
            ApprovalRequest: { E2EId: e2e, Amount: "100.00" },
          }, KEY);
          assert.equal(parked.status, 200, JSON.stringify(parked.body));
          // The same decision reaches both replicas at once: exactly one may advance the instance.
          const decision = {
            ApprovalDecision: { E2EId: e2e, Decision: i % 3 === 0 ? "DECLINE" : "APPROVE" },
          };
          const answers = await Promise.all(
            engines.map((e) => post(e, "/channels/approval-decision", decision, KEY)),
          );
          const won = answers.filter((r) => r.status === 200);
          assert.equal(won.length, 1, JSON.stringify(answers.map((r) => r.body)));
          for (const lost of answers.filter((r) => r.status !== 200)) {
            const code = codeOf(lost);
            if (code === "SUTRA.RUNTIME.RESUME.CLAIM_HELD") refusals.held++;
            else {
              assert.equal(code, "SUTRA.RUNTIME.RELAY.CORRELATION_NOT_FOUND");
              refusals.late++;
            }
          }
          return (won[0].body.instances as { status: string }[])[0].status;
        });
        assert.ok(statuses.every((s) => s === "COMPLETED"));
        const { rows } = await db.query<{ status: string; n: number }>(
          "select status, count(*)::int as n from instances group by status",
        );
        assert.deepEqual(rows, [{ status: "COMPLETED", n: FLOWS }]);
        const { rows: completions } = await db.query<{ n: number; distinct_n: number }>(
          `select count(*)::int as n, count(distinct instance_id)::int as distinct_n
           from audit_events where event_type = 'instance.completed'`,
        );
        assert.deepEqual(completions, [{ n: FLOWS, distinct_n: FLOWS }]);
        const { rows: live } = await db.query<{ n: number }>(
          "select count(*)::int as n from aliases where retired_at is null",
        );
        assert.equal(live[0].n, 0);
        const { rows: claims } = await db.query<{ n: number }>(
          "select count(*)::int as n from instances where owner is not null",
        );
        assert.equal(claims[0].n, 0);
        console.log(
          `500 flows on two replicas: the losing twin relay saw CLAIM_HELD ${refusals.held}x, CORRELATION_NOT_FOUND ${refusals.late}x`,
        );
      } finally {
        await b.stop();
        await a.stop();
      }
    }),
);
