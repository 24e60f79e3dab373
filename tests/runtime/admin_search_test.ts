/**
 * `GET /admin/instances` over 5,000 instances on PGlite and on the tier-2
 * server: every filter, alone and combined, paged with a limit that never
 * lines up with the data, returns exactly the rows a model of the seeded
 * population predicts, newest first, without a row skipped or repeated
 * across pages (pairs of rows share a start instant, and rows a
 * microsecond apart share a millisecond). The statements the search,
 * the incidents listing and the deployment listing send read indexes, not
 * the whole table. Bad parameters are refused all at once, each named; the
 * routes keep to their roles; `/admin/openapi.json` is a valid OpenAPI
 * document naming every admin route.
 *
 * The population is seeded with one `insert … select from
 * generate_series`, not 5,000 requests.
 */
import assert from "node:assert/strict";
import SwaggerParser from "@apidevtools/swagger-parser";
import type { Database } from "../../engine/persistence/mod.ts";
import type { RunningEngine } from "../../engine/runtime/mod.ts";
import { searchStatement } from "../../engine/runtime/instances/search.ts";
import { INCIDENT_STATEMENTS } from "../../engine/runtime/instances/incidents.ts";
import { DEPLOYMENTS_STATEMENT } from "../../engine/runtime/instances/deployments_view.ts";
import { TASK_WAITS_STATEMENT } from "../../engine/runtime/admin/tasks.ts";
import { tier2Test, withServerDatabase } from "../support/test_database.ts";
import { bootEngine, codeOf, get } from "./support.ts";

const N = 5_000;
const STATUSES = ["RUNNING", "SUSPENDED", "COMPLETED", "TERMINATED", "FAILED"];

/** The seeded instance `g` (1…N), as the search should see it. */
function model(g: number) {
  const row = STATUSES[g % 5];
  return {
    id: `i-${String(g).padStart(5, "0")}`,
    process: `proc-${g % 3}`,
    deployment: `dep-${g % 4}`,
    // The surface status: a live row is RUNNING only while a claim is held.
    status: row === "RUNNING" ? (g % 10 === 0 ? "RUNNING" : "WAITING") : row,
    row,
    failureCode: row === "FAILED" ? `SUTRA.TEST.CODE${g % 2}` : null,
    alias: g % 7 === 0 ? `R-${g}` : undefined,
    // Microseconds after the base instant: pairs share one, six share a millisecond.
    micros: Math.floor(g / 6) * 1000 + Math.floor((g % 6) / 2),
  };
}

const ALL = Array.from({ length: N }, (_, i) => model(i + 1));
const BASE = Date.parse("2026-01-01T00:00:00Z");

const SEED = `
insert into instances (tenant, instance_id, deployment_id, process_id, status, snapshot,
    failure_code, failure_detail, failure_node, owner, claimed_at, created_at, updated_at, ended_at)
  select 'default', 'i-' || lpad(g::text, 5, '0'), 'dep-' || (g % 4), 'proc-' || (g % 3), s.status,
    ''::bytea,
    case when s.status = 'FAILED' then 'SUTRA.TEST.CODE' || (g % 2) end,
    case when s.status = 'FAILED' then 'failed on purpose' end,
    case when s.status = 'FAILED' then 'Task' end,
    case when g % 10 = 0 then 'replica-x/lane-0' end,
    case when g % 10 = 0 then now() end,
    t.at, t.at,
    -- ended just now, so the retention sweep keeps them
    case when s.status in ('COMPLETED', 'TERMINATED') then now() end
  from generate_series(1, ${N}) g,
    lateral (select (array['RUNNING', 'SUSPENDED', 'COMPLETED', 'TERMINATED', 'FAILED'])[1 + g % 5]
      as status) s,
    lateral (select timestamptz '2026-01-01T00:00:00Z'
      + (g / 6) * interval '1 millisecond' + ((g % 6) / 2) * interval '1 microsecond' as at) t;
insert into aliases (tenant, name, value, instance_id, is_unique, retired_at)
  select 'default', 'ref', 'R-' || g, 'i-' || lpad(g::text, 5, '0'), true,
    case when g % 5 in (2, 3) then now() end
  from generate_series(7, ${N}, 7) g;
`;

/** Every page of `query` at `limit` rows a page; checks the pages join up. */
async function allPages(engine: RunningEngine, query: string, limit: number): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < N; page++) {
    const sep = query === "" ? "" : "&";
    const path = `/admin/instances?${query}${sep}limit=${limit}${
      cursor ? `&cursor=${cursor}` : ""
    }`;
    const answer = await get(engine, path);
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    const rows = answer.body.instances as { instanceId: string }[];
    ids.push(...rows.map((r) => r.instanceId));
    cursor = answer.body.next as string | undefined;
    if (cursor === undefined) return ids;
    assert.equal(rows.length, limit, "only the last page is short");
  }
  throw new Error("the pages never ended");
}

const expected = (keep: (m: ReturnType<typeof model>) => boolean) =>
  ALL.filter(keep).sort((a, b) => b.micros - a.micros || (a.id < b.id ? 1 : -1)).map((m) => m.id);

const iso = (micros: number) =>
  new Date(BASE + micros / 1000).toISOString().replace("Z", "") +
  String(micros % 1000).padStart(3, "0") + "Z";

const FILTERS: [string, (m: ReturnType<typeof model>) => boolean][] = [
  ["", () => true],
  ["process=proc-1", (m) => m.process === "proc-1"],
  ["status=FAILED", (m) => m.status === "FAILED"],
  ["status=waiting", (m) => m.status === "WAITING"],
  ["status=RUNNING", (m) => m.status === "RUNNING"],
  ["deployment=dep-2&status=COMPLETED", (m) => m.deployment === "dep-2" && m.row === "COMPLETED"],
  ["alias=ref=R-700", (m) => m.alias === "R-700"],
  ["alias=ref=R-42", (m) => m.alias === "R-42"],
  [
    `startedAfter=${iso(100_000)}&startedBefore=${iso(200_001)}`,
    (m) => m.micros > 100_000 && m.micros < 200_001,
  ],
  [
    "failureCode=SUTRA.TEST.CODE1&process=proc-2",
    (m) => m.failureCode === "SUTRA.TEST.CODE1" && m.process === "proc-2",
  ],
];

interface PlanNode {
  readonly "Node Type": string;
  readonly "Relation Name"?: string;
  readonly "Index Name"?: string;
  readonly Plans?: readonly PlanNode[];
}

const GROWING = new Set(["instances", "aliases", "outbox", "external_tasks", "waits"]);

function scans(node: PlanNode): string[] {
  const found = node["Node Type"] === "Seq Scan" && GROWING.has(node["Relation Name"] ?? "")
    ? [`seq scan on ${node["Relation Name"]}`]
    : [];
  return [...found, ...(node.Plans ?? []).flatMap(scans)];
}

/** The plan the server would cache for `sql` (generic: it holds for any parameter values). */
async function genericPlan(db: Database, sql: string, params: unknown[]): Promise<PlanNode> {
  return await db.transaction(async (tx) => {
    await tx.query("set local plan_cache_mode = force_generic_plan");
    await tx.query(`prepare probe as ${sql}`);
    const args = params.map((p) => typeof p === "number" ? String(p) : `'${p}'`).join(", ");
    const { rows } = await tx.query<{ "QUERY PLAN": { Plan: PlanNode }[] }>(
      `explain (format json) execute probe${params.length > 0 ? `(${args})` : ""}`,
    );
    await tx.query("deallocate probe");
    return rows[0]["QUERY PLAN"][0].Plan;
  });
}

async function searchesAndPlans(engine: RunningEngine): Promise<void> {
  await engine.database.exec(SEED);
  for (const [query, keep] of FILTERS) {
    const want = expected(keep);
    assert.ok(query === "" || want.length < N / 2, `filter ${query} narrows the population`);
    assert.deepEqual(await allPages(engine, query, query === "" ? 500 : 97), want, query);
  }
  // Each shape of statement, on a table nobody has analyzed, reads an index.
  const problems: string[] = [];
  for (const [query] of FILTERS) {
    const parsed = new URLSearchParams(query);
    const shapes = [
      searchStatement({
        process: parsed.get("process") ?? undefined,
        deployment: parsed.get("deployment") ?? undefined,
        status: parsed.get("status")?.toUpperCase() as never,
        failureCode: parsed.get("failureCode") ?? undefined,
        alias: parsed.has("alias")
          ? { name: "ref", value: parsed.get("alias")!.slice(4) }
          : undefined,
        startedAfter: parsed.get("startedAfter") ?? undefined,
        startedBefore: parsed.get("startedBefore") ?? undefined,
        limit: 50,
      }),
      searchStatement({
        process: parsed.get("process") ?? undefined,
        limit: 50,
        after: { createdAt: "2026-01-01T00:00:00.500000Z", instanceId: "i-02000" },
      }),
    ];
    for (const { sql, params } of shapes) {
      const found = scans(await genericPlan(engine.database, sql, params));
      if (found.length > 0) problems.push(`${query || "(no filter)"}: ${found.join("; ")}`);
    }
  }
  for (const [kind, sql] of Object.entries(INCIDENT_STATEMENTS)) {
    const found = scans(await genericPlan(engine.database, sql, [50]));
    if (found.length > 0) problems.push(`incidents of kind ${kind}: ${found.join("; ")}`);
  }
  const tasks = scans(await genericPlan(engine.database, TASK_WAITS_STATEMENT, [50]));
  if (tasks.length > 0) problems.push(`task listing: ${tasks.join("; ")}`);
  const deployments = scans(await genericPlan(engine.database, DEPLOYMENTS_STATEMENT, ["active"]));
  if (deployments.length > 0) problems.push(`deployment listing: ${deployments.join("; ")}`);
  assert.deepEqual(problems, []);
}

Deno.test("the instance search pages 5,000 instances by every filter [pglite]", async () => {
  const engine = await bootEngine();
  try {
    await searchesAndPlans(engine);
  } finally {
    await engine.stop();
  }
});

tier2Test("the instance search pages 5,000 instances by every filter [postgres]", async () => {
  await withServerDatabase(async (_db, target) => {
    const engine = await bootEngine({ url: target.url, schema: target.schema });
    try {
      await searchesAndPlans(engine);
    } finally {
      await engine.stop();
    }
  });
});

Deno.test("bad search parameters are refused at once, each named", async () => {
  const engine = await bootEngine();
  try {
    const answer = await get(
      engine,
      "/admin/instances?status=BOGUS&limit=0&cursor=zzz&startedAfter=yesterday&alias=noequals&color=red&process=a&process=b",
    );
    assert.equal(answer.status, 400);
    const named = (answer.body.diagnostics as { code: string; attributes: { parameter: string } }[])
      .map((d) => `${d.code} ${d.attributes.parameter}`).sort();
    assert.deepEqual(named, [
      "SUTRA.ADMIN.QUERY.INVALID alias",
      "SUTRA.ADMIN.QUERY.INVALID cursor",
      "SUTRA.ADMIN.QUERY.INVALID limit",
      "SUTRA.ADMIN.QUERY.INVALID process",
      "SUTRA.ADMIN.QUERY.INVALID startedAfter",
      "SUTRA.ADMIN.QUERY.INVALID status",
      "SUTRA.ADMIN.QUERY.UNKNOWN color",
    ]);
    const incidents = await get(engine, "/admin/incidents?kind=sparks&limit=99999");
    assert.equal(incidents.status, 400);
    assert.deepEqual(
      (incidents.body.diagnostics as { attributes: { parameter: string } }[])
        .map((d) => d.attributes.parameter),
      ["kind", "limit"],
    );
    const deployments = await get(engine, "/admin/deployments?status=asleep");
    assert.equal(codeOf(deployments), "SUTRA.ADMIN.QUERY.INVALID");
    // Instants the database has no timestamp for are refused before a statement is sent.
    for (const instant of ["0000-01-01T00:00:00Z", "-000001-06-01T00:00:00Z"]) {
      const early = await get(engine, `/admin/instances?startedBefore=${instant}`);
      assert.equal(early.status, 400, JSON.stringify(early.body));
      assert.equal(codeOf(early), "SUTRA.ADMIN.QUERY.INVALID");
    }
  } finally {
    await engine.stop();
  }
});

Deno.test("the admin routes keep to their roles, and the OpenAPI document is valid", async () => {
  const key = { "x-api-key": "k-operate" };
  const env = { SUTRA_ADMIN_AUTH_API_KEY: "env:ADMIN_KEY", ADMIN_KEY: "k-operate" };
  const asOperator = await bootEngine({ env: { ...env, SUTRA_ADMIN_AUTH_ROLES: "operate" } });
  try {
    const fetchAs = (path: string, headers: Record<string, string>, init: RequestInit = {}) =>
      fetch(`${asOperator.url}${path}`, { ...init, headers }).then(async (r) => {
        await r.body?.cancel();
        return r.status;
      });
    for (const path of ["/admin/instances", "/admin/incidents", "/admin/deployments"]) {
      assert.equal(await fetchAs(path, key), 200, path);
      assert.equal(await fetchAs(path, {}), 401, path);
      assert.equal(await fetchAs(path, { "x-api-key": "wrong" }), 401, path);
    }
    // Migration changes which model an instance runs: it takes the deploy role.
    for (const path of ["/admin/instances/x/migrate", "/admin/instances/migrate"]) {
      assert.equal(await fetchAs(path, key, { method: "POST", body: "{}" }), 403, path);
    }
    const document = await fetch(`${asOperator.url}/admin/openapi.json`, { headers: key });
    assert.equal(document.status, 200);
    const api = await document.json();
    const paths = Object.keys(api.paths).sort();
    for (
      const route of [
        "/admin/deployments",
        "/admin/incidents",
        "/admin/instances",
        "/admin/instances/{id}/retry",
        "/admin/instances/{id}/variables",
        "/admin/instances/{id}/migrate",
        "/admin/instances/migrate",
      ]
    ) assert.ok(paths.includes(route), `${route} is documented`);
    await SwaggerParser.validate(structuredClone(api));
  } finally {
    await asOperator.stop();
  }
  const asDeployer = await bootEngine({ env: { ...env, SUTRA_ADMIN_AUTH_ROLES: "deploy" } });
  try {
    for (const path of ["/admin/instances", "/admin/incidents", "/admin/openapi.json"]) {
      const answer = await fetch(`${asDeployer.url}${path}`, { headers: key });
      assert.equal(answer.status, 403, path);
      assert.equal((await answer.json()).diagnostics[0].code, "SUTRA.ADMIN.AUTH.FORBIDDEN");
    }
    const retry = await fetch(`${asDeployer.url}/admin/instances/x/retry`, {
      method: "POST",
      headers: key,
    });
    await retry.body?.cancel();
    assert.equal(retry.status, 403);
  } finally {
    await asDeployer.stop();
  }
});
