/**
 * With the coverage store on the engine database itself, a step's marks
 * are written by the step's own commit transaction: the mark row and the
 * instance row carry the same transaction id (`xmin`), so no crash between
 * the commit and a later write can lose the mark. On PGlite (the engine's
 * embedded directory) and on the PostgreSQL server (the engine's schema).
 * The flip the commit made is counted by `sutra.coverage.path_covered`.
 * Cross-process fragments commit with their steps too, and add up to the
 * end-to-end route once one case walked it all.
 */
import assert from "node:assert/strict";
import "../../io/datastores/mod.ts";
import type { RunningEngine } from "../../engine/runtime/mod.ts";
import { parsePrometheusText } from "../support/prometheus_text.ts";
import { tier2Test, withServerDatabase } from "../support/test_database.ts";
import { bootEngine, get, post, sealDir, until } from "../runtime/support.ts";

async function marksInStepTransaction(engine: RunningEngine): Promise<void> {
  await engine.deployments.deploy(await sealDir("tests/coverage/fixtures/gate"));
  const { deploymentId, slot } = engine.deployments.registry.list()[0];
  const answer = await post(engine, "/channels/cov-decide", { ok: true });
  assert.equal(answer.status, 200);
  const instanceId = (answer.body.instances as { instanceId: string }[])[0].instanceId;
  const xmin = async (sql: string, param: string) =>
    (await engine.database.query<{ tx: string }>(sql, [param])).rows[0]?.tx;
  const step = await xmin(
    "select xmin::text as tx from instances where instance_id = $1",
    instanceId,
  );
  const mark = await xmin(
    "select xmin::text as tx from coverage_metric where deployment_id = $1 and route_id = 'accept'",
    deploymentId,
  );
  assert.ok(step);
  assert.equal(mark, step, "the mark was written by the step's commit transaction");
  const report = (await get(engine, `/admin/coverage/${slot}`)).body;
  assert.deepEqual([report.covered, report.uncovered], [1, ["reject"]]);
  const meters = parsePrometheusText(await (await fetch(`${engine.url}/sutra/metrics`)).text());
  assert.deepEqual(
    meters.get("sutra_coverage_path_covered_total")?.samples.map((s) => [s.labels, s.value]),
    [[{ deployment: deploymentId, process: "decide" }, 1]],
  );
}

Deno.test("coverage on the engine's embedded database: marks commit with the step", async () => {
  const dir = await Deno.makeTempDir({ prefix: "sutra-coverage-commit-" });
  const engine = await bootEngine({
    url: `file://${dir}`,
    env: { COVERAGE_DB_URL: `pglite:${dir}`, SUTRA_TELEMETRY_METRICS_PROMETHEUS: "true" },
  });
  try {
    await marksInStepTransaction(engine);
  } finally {
    await engine.stop();
    await Deno.remove(dir, { recursive: true });
  }
});

tier2Test(
  "coverage on the engine's server database: marks commit with the step",
  () =>
    withServerDatabase(async (_db, target) => {
      const engine = await bootEngine({
        url: target.url,
        schema: target.schema,
        env: { COVERAGE_DB_URL: target.url, SUTRA_TELEMETRY_METRICS_PROMETHEUS: "true" },
      });
      try {
        await marksInStepTransaction(engine);
      } finally {
        await engine.stop();
      }
    }),
);

Deno.test("coverage on the engine's embedded database: fragments commit with their steps", async () => {
  const dir = await Deno.makeTempDir({ prefix: "sutra-coverage-commit-" });
  const engine = await bootEngine({
    url: `file://${dir}`,
    env: { COVERAGE_DB_URL: `pglite:${dir}` },
  });
  try {
    await engine.deployments.deploy(await sealDir("tests/coverage/fixtures/relay"));
    const { deploymentId, slot } = engine.deployments.registry.list()[0];
    assert.equal((await post(engine, "/channels/rl-in", { caseId: "a1", ok: true })).status, 200);
    const accepted = "urn:sutra:coverage:e2e:accepted";
    await until(async () => {
      const { rows } = await engine.database.query(
        "select covered from coverage_metric where deployment_id = $1 and route_id = $2",
        [deploymentId, accepted],
      );
      return rows[0]?.covered === true;
    });
    const { rows } = await engine.database.query<{ n: number }>(
      "select count(distinct process_id)::int as n from coverage_fragment where deployment_id = $1",
      [deploymentId],
    );
    assert.equal(rows[0].n, 3);
    assert.deepEqual((await get(engine, `/admin/coverage/${slot}`)).body.uncovered, [
      "urn:sutra:coverage:e2e:rejected",
    ]);
  } finally {
    await engine.stop();
    await Deno.remove(dir, { recursive: true });
  }
});
