/**
 * The statements a parked-and-resumed instance costs find their rows by
 * key on a fresh database, not by scanning.
 *
 * The engine's statements are prepared once per connection, and PostgreSQL
 * may settle on a generic plan after a few runs. On tables nobody has
 * analyzed yet (a new database, until autovacuum's first pass) every plan
 * looks equally cheap, and a plan that scans all of a tenant's rows can
 * win the tie — and then stay for the life of the connection while the
 * table grows. This runs the approval flow against the tier-2 server
 * through a proxy that records what the engine sends, then asks the server
 * for the generic plan of every statement that touches a growing table.
 */
import assert from "node:assert/strict";
import { tier2Test, withServerDatabase } from "../support/test_database.ts";
import { startCutProxy } from "../support/pg_cut_proxy.ts";
import type { Database } from "../../engine/persistence/mod.ts";
import { get, post, withDeployed } from "./support.ts";

const KEY = { "x-api-key": "approval-demo-key" };
const request = (e2e: string) => ({ ApprovalRequest: { E2EId: e2e, Amount: "10.00" } });
const decision = (e2e: string) => ({ ApprovalDecision: { E2EId: e2e, Decision: "APPROVE" } });

/** Tables that grow with traffic: a scan of one of them grows with it. */
const GROWING = new Set([
  "instances",
  "waits",
  "aliases",
  "inbox",
  "outbox",
  "audit_events",
  "external_tasks",
  "incidents",
]);

/** A statement that finds its rows by a key (the periodic sweeps scan ranges by design). */
const KEYED = new RegExp(
  [
    // by one key, or by an array of keys (as a group commit writes its steps' rows)
    String.raw`\b(instance_id|wait_id|outbox_id|task_id|event_id|value)\s*(=|in)\s*(any)?\(?\$\d`,
    // by a list of key rows
    String.raw`\((instance_id|wait_id), tenant[\w, ]*\) in \(`,
  ].join("|"),
  "i",
);

interface PlanNode {
  readonly "Node Type": string;
  readonly "Relation Name"?: string;
  readonly "Index Name"?: string;
  readonly "Index Cond"?: string;
  readonly Plans?: readonly PlanNode[];
}

/** Every scan of a growing table in `node` that is not keyed beyond the tenant. */
function unkeyedScans(node: PlanNode): string[] {
  const found: string[] = [];
  const relation = node["Relation Name"];
  if (relation !== undefined && GROWING.has(relation)) {
    const cond = node["Index Cond"];
    if (node["Node Type"] === "Seq Scan") found.push(`seq scan on ${relation}`);
    else if (cond !== undefined && /^\(tenant = \$\d+\)$/.test(cond)) {
      found.push(`${node["Index Name"]} on ${relation} by tenant only`);
    }
  }
  for (const child of node.Plans ?? []) found.push(...unkeyedScans(child));
  return found;
}

/** The generic plan of `sql` (its parameters all null), as the server would cache it. */
async function genericPlan(db: Database, sql: string): Promise<PlanNode> {
  const params = Math.max(0, ...[...sql.matchAll(/\$(\d+)/g)].map((m) => Number(m[1])));
  return await db.transaction(async (tx) => {
    await tx.query("set local plan_cache_mode = force_generic_plan");
    await tx.query(`prepare probe as ${sql}`);
    const args = params === 0 ? "" : `(${Array(params).fill("null").join(", ")})`;
    const { rows } = await tx.query<{ "QUERY PLAN": { Plan: PlanNode }[] }>(
      `explain (format json) execute probe${args}`,
    );
    await tx.query("deallocate probe");
    return rows[0]["QUERY PLAN"][0].Plan;
  });
}

tier2Test(
  "a park and resume find their rows by key on a database nobody has analyzed",
  async () => {
    await withServerDatabase(async (db, target) => {
      const proxy = startCutProxy(target.url);
      try {
        await withDeployed(
          "examples/approval-hold/package",
          { url: proxy.url, schema: target.schema },
          async (engine) => {
            for (const e2e of ["P-1", "P-2"]) {
              const parked = await post(engine, "/channels/approval-request", request(e2e), KEY);
              assert.equal(parked.status, 200);
            }
            const duplicate = await post(engine, "/channels/approval-request", request("P-1"), KEY);
            assert.equal(duplicate.status, 409);
            const stray = await post(engine, "/channels/approval-decision", decision("P-9"), KEY);
            assert.equal(stray.status, 404);
            const resumed = await post(engine, "/channels/approval-decision", decision("P-1"), KEY);
            assert.equal(resumed.status, 200);
            const id = (resumed.body.instances as { instanceId: string }[])[0].instanceId;
            assert.equal((await get(engine, `/sutra/instances/${id}`)).status, 200);
            assert.equal((await get(engine, "/admin/instances/by-alias/e2eId/P-2")).status, 200);
            const other = (await get(engine, "/admin/instances/by-alias/e2eId/P-2")).body
              .instances as { instanceId: string }[];
            const cancelled = await post(
              engine,
              `/admin/instances/${other[0].instanceId}/cancel`,
              "",
            );
            assert.equal(cancelled.status, 200);
          },
        );
      } finally {
        await proxy.close();
      }
      const keyed = [...proxy.heard].filter((sql) => KEYED.test(sql));
      // The claim, the step's writes, the correlation lookup and the alias retirement at least.
      assert.ok(keyed.length >= 8, `only ${keyed.length} keyed statements were heard`);
      const problems: string[] = [];
      for (const sql of keyed) {
        let plan: PlanNode;
        try {
          plan = await genericPlan(db, sql);
        } catch (error) {
          problems.push(`${oneLine(sql)}\n    cannot be planned: ${(error as Error).message}`);
          continue;
        }
        const scans = unkeyedScans(plan);
        if (scans.length > 0) problems.push(`${oneLine(sql)}\n    ${scans.join("; ")}`);
      }
      assert.deepEqual(problems, [], problems.join("\n"));
    });
  },
);

function oneLine(sql: string): string {
  return sql.replace(/\s+/g, " ").trim();
}
