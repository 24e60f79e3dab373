/**
 * The coverage ops as registered tasks (`coverage:report`,
 * `coverage:reset`), answered for the calling instance's deployment by the
 * engine's coverage service: the op's answer lands in the variable
 * `coverage`, an unusable store fails the attempt with `STORE_MISSING`,
 * and a name nobody registered fails like any unregistered task.
 */
import assert from "node:assert/strict";
import type { TaskCall, TaskOutcome } from "../../engine/executor/mod.ts";
import { coverageTasks } from "../../engine/runtime/coverage/mod.ts";
import type { RunningEngine } from "../../engine/runtime/mod.ts";
import "../../io/datastores/mod.ts";
import { bootEngine, post, sealDir } from "../runtime/support.ts";

async function withGate(
  storeUrl: string,
  run: (engine: RunningEngine, call: (name: string) => Promise<TaskOutcome>) => Promise<void>,
): Promise<void> {
  const engine = await bootEngine({ env: { COVERAGE_DB_URL: storeUrl } });
  try {
    await engine.deployments.deploy(await sealDir("tests/coverage/fixtures/gate"));
    const port = coverageTasks(engine.deployments.registry.list()[0]);
    const call = async (name: string) => {
      const task: TaskCall = {
        name,
        instanceId: "i-1",
        node: "Op",
        attempt: 1,
        variables: new Map(),
      };
      return await port.run(task);
    };
    await run(engine, call);
  } finally {
    await engine.stop();
  }
}

const coverageOf = (outcome: TaskOutcome) => {
  assert.ok("outputs" in outcome, JSON.stringify(outcome));
  return outcome.outputs!.coverage as Record<string, unknown>;
};

Deno.test("coverage tasks: report and reset answer for the instance's deployment", async () => {
  await withGate("pglite:memory://", async (engine, call) => {
    const { deploymentId } = engine.deployments.registry.list()[0];
    assert.deepEqual(coverageOf(await call("coverage:report")), {
      deploymentId,
      total: 2,
      covered: 0,
      coveragePercentage: 0,
      newlyCovered: [],
      uncovered: ["accept", "reject"],
    });
    assert.equal((await post(engine, "/channels/cov-decide", { ok: true })).status, 200);
    const report = coverageOf(await call("coverage:report"));
    assert.deepEqual([report.covered, report.uncovered], [1, ["reject"]]);
    assert.deepEqual(coverageOf(await call("coverage:reset")), {
      deploymentId,
      total: 2,
      cleared: 1,
    });
    assert.equal(coverageOf(await call("coverage:report")).covered, 0);
    assert.deepEqual(await call("coverage:other"), {
      failure: {
        code: "SUTRA.RUNTIME.TASK.FAILED",
        message: "no task is registered as 'coverage:other'",
      },
    });
  });
});

Deno.test("coverage tasks: a store that cannot be opened fails the attempt, no count", async () => {
  await withGate("postgres://sutra@127.0.0.1:1/unreachable", async (_engine, call) => {
    for (const name of ["coverage:report", "coverage:reset"]) {
      const outcome = await call(name);
      assert.ok("failure" in outcome);
      assert.equal(outcome.failure.code, "SUTRA.CONFIG.COVERAGE.STORE_MISSING");
      assert.match(outcome.failure.message!, /could not be opened/);
    }
  });
});
