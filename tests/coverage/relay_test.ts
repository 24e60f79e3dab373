/**
 * Cross-process coverage through a booted engine: a case relayed across
 * three processes (intake → hub → fulfil, over local channels) covers an
 * end-to-end route only when one case — joined by the caseId alias each
 * process records — walked every segment. Two cases that each walk part of
 * a route do not add up to it.
 */
import assert from "node:assert/strict";
import type { RunningEngine } from "../../engine/runtime/mod.ts";
import { bootEngine, get, post, sealDir, until } from "../runtime/support.ts";
import { eachCoverageTarget } from "./_support.ts";

const ACCEPTED = "urn:sutra:coverage:e2e:accepted";
const REJECTED = "urn:sutra:coverage:e2e:rejected";

async function report(engine: RunningEngine, slot: string) {
  return (await get(engine, `/admin/coverage/${slot}`)).body as {
    covered: number;
    uncovered: string[];
  };
}

async function completed(engine: RunningEngine): Promise<number> {
  const { rows } = await engine.database.query<{ n: number }>(
    "select count(*)::int as n from instances where status = 'COMPLETED'",
  );
  return Number(rows[0].n);
}

eachCoverageTarget(
  "relay: an end-to-end route covers only when one case walked it all",
  async (url) => {
    const engine = await bootEngine({ env: { COVERAGE_DB_URL: url } });
    try {
      await engine.deployments.deploy(await sealDir("tests/coverage/fixtures/relay"));
      const slot = engine.deployments.registry.list()[0].slot;
      // The deployment id is the archive's content hash: a server keeps the rows of earlier runs.
      assert.equal((await post(engine, `/admin/coverage/${slot}/reset`, "")).status, 200);
      assert.deepEqual((await report(engine, slot)).uncovered, [ACCEPTED, REJECTED]);

      // Case r1 is rejected: every process of 'accepted' except fulfil's accept branch is walked.
      assert.equal(
        (await post(engine, "/channels/rl-in", { caseId: "r1", ok: false })).status,
        200,
      );
      await until(async () => await completed(engine) === 3);
      await until(async () => (await report(engine, slot)).covered === 1);
      assert.deepEqual((await report(engine, slot)).uncovered, [ACCEPTED]);

      // Case a1 is accepted end to end.
      assert.equal((await post(engine, "/channels/rl-in", { caseId: "a1", ok: true })).status, 200);
      await until(async () => await completed(engine) === 6);
      await until(async () => (await report(engine, slot)).covered === 2);

      // After a reset, a rejected case leaves 'accepted' walked in part only: uncovered.
      assert.equal((await post(engine, `/admin/coverage/${slot}/reset`, "")).status, 200);
      assert.equal(
        (await post(engine, "/channels/rl-in", { caseId: "r2", ok: false })).status,
        200,
      );
      await until(async () => await completed(engine) === 9);
      await until(async () => (await report(engine, slot)).covered === 1);
      assert.deepEqual((await report(engine, slot)).uncovered, [ACCEPTED]);
    } finally {
      await engine.stop();
    }
  },
);
