/**
 * A relay goes straight to the instance this engine last saw holding its
 * alias, and the claim checks that guess: when the alias has moved to
 * another instance meanwhile (retired by the first one's step, recorded by
 * another's — here written directly, as another replica's steps would
 * leave it), the relay resumes the instance a lookup names, never the one
 * it guessed.
 */
import assert from "node:assert/strict";
import type { RunningEngine } from "../../engine/runtime/mod.ts";
import { tier2Test, withServerDatabase } from "../support/test_database.ts";
import { type BootOptions, get, post, withDeployed } from "./support.ts";

const KEY = { "x-api-key": "approval-demo-key" };

async function park(engine: RunningEngine, e2e: string): Promise<string> {
  const body = { ApprovalRequest: { E2EId: e2e, Amount: "10.00" } };
  const parked = await post(engine, "/channels/approval-request", body, KEY);
  assert.equal(parked.status, 200, JSON.stringify(parked.body));
  return (parked.body.instances as { instanceId: string }[])[0].instanceId;
}

const statusOf = async (engine: RunningEngine, id: string) =>
  (await get(engine, `/sutra/instances/${id}`)).body.status;

async function movedAlias(options: BootOptions): Promise<void> {
  await withDeployed("examples/approval-hold/package", options, async (engine) => {
    const first = await park(engine, "X-1");
    const second = await park(engine, "Y-1");
    await engine.database.query(
      "update aliases set retired_at = now() where instance_id = $1",
      [first],
    );
    await engine.database.query("update aliases set value = 'X-1' where instance_id = $1", [
      second,
    ]);
    const decision = { ApprovalDecision: { E2EId: "X-1", Decision: "APPROVE" } };
    const resumed = await post(engine, "/channels/approval-decision", decision, KEY);
    assert.equal(resumed.status, 200, JSON.stringify(resumed.body));
    assert.deepEqual(resumed.body.instances, [{ instanceId: second, status: "COMPLETED" }]);
    assert.equal(await statusOf(engine, first), "WAITING");
    // The retired value leads nowhere now, guess or no guess.
    const stray = await post(engine, "/channels/approval-decision", decision, KEY);
    assert.equal(stray.status, 404, JSON.stringify(stray.body));
    assert.equal(await statusOf(engine, first), "WAITING");
  });
}

Deno.test("a relay whose alias moved resumes the new holder [pglite]", () => movedAlias({}));

tier2Test(
  "a relay whose alias moved resumes the new holder [postgres]",
  () => withServerDatabase((_db, target) => movedAlias(target)),
);
