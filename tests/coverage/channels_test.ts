/**
 * `coverage:report` and `coverage:reset` through a package's own admin
 * channels (the `admin` fixture): a request on `coverage-report` starts a
 * process whose `registered:coverage:report` task answers the op for its
 * deployment and whose reply renders it; `coverage-reset` clears. The
 * channels carry the package's own authentication, and a deployment
 * without a usable store answers no count: the instance fails, saying why.
 */
import assert from "node:assert/strict";
import "../../io/datastores/mod.ts";
import type { RunningEngine } from "../../engine/runtime/mod.ts";
import { bootEngine, get, post, sealDir } from "../runtime/support.ts";

const KEY = { "X-Api-Key": "coverage-demo-key" };

async function withAdmin(storeUrl: string, run: (engine: RunningEngine) => Promise<void>) {
  const engine = await bootEngine({ env: { COVERAGE_DB_URL: storeUrl } });
  try {
    await engine.deployments.deploy(await sealDir("tests/coverage/fixtures/admin"));
    await run(engine);
  } finally {
    await engine.stop();
  }
}

Deno.test("coverage channels: the package's report and reset channels run the ops", async () => {
  await withAdmin("pglite:memory://", async (engine) => {
    const { deploymentId } = engine.deployments.registry.list()[0];
    const report = () => post(engine, "/channels/coverage-report", {}, KEY);
    assert.equal((await post(engine, "/channels/coverage-report", {})).status, 401);
    const before = await report();
    assert.equal(before.status, 200);
    assert.deepEqual(before.body, {
      deploymentId,
      total: 1,
      covered: 0,
      coveragePercentage: 0,
      newlyCovered: [],
      uncovered: ["walked"],
    });
    assert.equal((await post(engine, "/channels/cov-walk", {})).status, 200);
    const after = (await report()).body;
    assert.deepEqual([after.covered, after.coveragePercentage, after.uncovered], [1, 100, []]);
    const reset = await post(engine, "/channels/coverage-reset", {}, KEY);
    assert.deepEqual([reset.status, reset.body], [200, { deploymentId, total: 1, cleared: 1 }]);
    assert.equal((await report()).body.covered, 0);
  });
});

Deno.test("coverage channels: without a usable store the report channel answers no count", async () => {
  await withAdmin("postgres://sutra@127.0.0.1:1/unreachable", async (engine) => {
    const answer = await post(engine, "/channels/coverage-report", {}, KEY);
    const [instance] = answer.body.instances as { instanceId: string; status: string }[];
    assert.equal(instance.status, "FAILED");
    const failed = await get(engine, `/admin/instances/${instance.instanceId}`);
    const failure = failed.body.failure as { detail: string };
    assert.match(failure.detail, /no coverage to report: its coverage store could not be opened/);
  });
});
