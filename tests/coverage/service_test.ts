/**
 * The coverage service and its admin routes over a real deployment of the
 * `gate` fixture (an accept and a reject route, a coverage store), on every
 * database target: seeding on activation, marking committed steps, the
 * report and reset ops, and a store that cannot be opened failing with
 * `STORE_MISSING` rather than reporting 0%.
 */
import assert from "node:assert/strict";
import { configKeys, createLogger, loadConfig } from "../../engine/core/mod.ts";
import { defaultResolveContext } from "../../engine/core/secrets.ts";
import { DiagnosticError } from "../../engine/core/diagnostic.ts";
import { createAdminGate } from "../../engine/runtime/admin_auth.ts";
import { Router } from "../../engine/runtime/http_router.ts";
import { addCoverageRoutes, CoverageService } from "../../engine/runtime/coverage/mod.ts";
import type { RunningEngine } from "../../engine/runtime/mod.ts";
import { bootEngine, sealDir } from "../runtime/support.ts";
import { eachCoverageTarget } from "./_support.ts";

const GATE = "tests/coverage/fixtures/gate";
const logger = createLogger("coverage", { filter: "error", write: () => {} });

async function withGate(
  storeUrl: string,
  run: (engine: RunningEngine, service: CoverageService, router: Router) => Promise<void>,
): Promise<void> {
  const engine = await bootEngine();
  const service = new CoverageService({
    registry: engine.deployments.registry,
    resolve: defaultResolveContext({ COVERAGE_DB_URL: storeUrl }),
    logger,
  });
  try {
    await engine.deployments.deploy(await sealDir(GATE));
    await service.start();
    const env = { SUTRA_ADMIN_OIDC_DEV_DISABLED: "true" };
    const config = await loadConfig({ env, cwd: "/nonexistent-sutra-dir", registry: configKeys });
    const router = new Router(logger);
    addCoverageRoutes(router, {
      registry: engine.deployments.registry,
      admin: await createAdminGate({ config, logger, env }),
      coverage: service,
    });
    await run(engine, service, router);
  } finally {
    await service.close();
    await engine.stop();
  }
}

const deploymentOf = (engine: RunningEngine) => engine.deployments.registry.list()[0];

async function call(router: Router, method: string, path: string) {
  const response = await router.handle(new Request(`http://engine${path}`, { method }));
  return { status: response.status, body: await response.json() };
}

eachCoverageTarget(
  "coverage service: routes seed on activation, steps mark, reset clears",
  async (url) => {
    await withGate(url, async (engine, service, router) => {
      const d = deploymentOf(engine);
      // The deployment id is the archive's content hash: a server keeps the rows of earlier runs.
      await service.reset(d);
      const first = await call(router, "GET", `/admin/coverage/${d.slot}`);
      assert.equal(first.status, 200);
      assert.deepEqual(first.body, {
        deploymentId: d.deploymentId,
        total: 2,
        covered: 0,
        coveragePercentage: 0,
        newlyCovered: [],
        uncovered: ["accept", "reject"],
      });
      const step = { processId: "decide", instanceId: "i-1", aliases: [] };
      await service.stepCommitted(d, { ...step, completed: ["accept"] });
      // The same route walked again (here through a nested-process key) counts once.
      await service.stepCommitted(d, { ...step, instanceId: "i-2", completed: ["decide#accept"] });
      const half = await service.report(d);
      assert.equal(half.covered, 1);
      assert.equal(half.coveragePercentage, 50);
      assert.deepEqual(half.uncovered, ["reject"]);
      await service.stepCommitted(d, { ...step, instanceId: "i-3", completed: ["reject"] });
      assert.equal((await service.report(d)).coveragePercentage, 100);

      const reset = await call(router, "POST", `/admin/coverage/${d.deploymentId}/reset`);
      assert.deepEqual(reset, {
        status: 200,
        body: { deploymentId: d.deploymentId, total: 2, cleared: 2 },
      });
      assert.deepEqual((await service.report(d)).uncovered, ["accept", "reject"]);

      const unknown = await call(router, "GET", "/admin/coverage/nope");
      assert.equal(unknown.status, 404);
      assert.equal(unknown.body.diagnostics[0].code, "SUTRA.DEPLOY.UNKNOWN");
    });
  },
);

Deno.test("coverage service: an unreachable store fails the ops with STORE_MISSING, never 0%", async () => {
  await withGate("postgres://sutra@127.0.0.1:1/nothing", async (engine, service, router) => {
    const d = deploymentOf(engine);
    await assert.rejects(service.report(d), (error: unknown) => {
      assert.ok(error instanceof DiagnosticError);
      const [problem] = error.diagnostics;
      assert.equal(problem.code, "SUTRA.CONFIG.COVERAGE.STORE_MISSING");
      assert.match(
        problem.message,
        new RegExp(`deployment ${d.deploymentId}: .*could not be opened`),
      );
      return true;
    });
    const answer = await call(router, "POST", `/admin/coverage/${d.slot}/reset`);
    assert.equal(answer.status, 503);
    assert.equal(answer.body.diagnostics[0].code, "SUTRA.CONFIG.COVERAGE.STORE_MISSING");
    // Marking never throws into the step that completed a route.
    await service.stepCommitted(d, {
      processId: "decide",
      instanceId: "i-1",
      aliases: [],
      completed: ["accept"],
    });
  });
});
