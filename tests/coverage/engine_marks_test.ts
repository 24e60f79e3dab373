/**
 * Path coverage through a booted engine: real requests walk the gate
 * fixture's accept and reject routes, each step's completed routes are
 * marked as it commits, and the admin report goes 0/2 → 1/2 → 2/2, then
 * back to 0/2 on reset — on every database target for the coverage store.
 */
import assert from "node:assert/strict";
import { bootEngine, get, post, sealDir } from "../runtime/support.ts";
import { eachCoverageTarget } from "./_support.ts";

eachCoverageTarget(
  "engine: committed steps mark their routes, the report counts them",
  async (url) => {
    const engine = await bootEngine({ env: { COVERAGE_DB_URL: url } });
    try {
      await engine.deployments.deploy(await sealDir("tests/coverage/fixtures/gate"));
      const slot = engine.deployments.registry.list()[0].slot;
      const report = async () => (await get(engine, `/admin/coverage/${slot}`)).body;
      // The deployment id is the archive's content hash: a server keeps the rows of earlier runs.
      assert.equal((await post(engine, `/admin/coverage/${slot}/reset`, "")).status, 200);
      assert.deepEqual((await report()).uncovered, ["accept", "reject"]);

      assert.equal((await post(engine, "/channels/cov-decide", { ok: true })).status, 200);
      assert.deepEqual(
        [(await report()).covered, (await report()).uncovered],
        [1, ["reject"]],
      );
      // Concurrent walks of the route already covered change nothing.
      await Promise.all(
        Array.from({ length: 5 }, () => post(engine, "/channels/cov-decide", { ok: true })),
      );
      assert.equal((await report()).covered, 1);

      assert.equal((await post(engine, "/channels/cov-decide", { ok: false })).status, 200);
      assert.equal((await report()).coveragePercentage, 100);

      const reset = await post(engine, `/admin/coverage/${slot}/reset`, "");
      assert.deepEqual(reset.body.cleared, 2);
      assert.equal((await report()).covered, 0);
    } finally {
      await engine.stop();
    }
  },
);
