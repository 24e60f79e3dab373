/**
 * A relay is judged by the node it correlates with: that node's `q:source`
 * validators and `q:onValidation`, even when several nodes wait on the
 * channel. `mode="error"` raises the BPMN error at the waiting node, where a
 * boundary catches it; uncaught, the instance fails with the code.
 */
import assert from "node:assert/strict";
import type { RunningEngine } from "../../engine/runtime/mod.ts";
import { bootEngine, codeOf, get, post, sealDir } from "./support.ts";

async function park(engine: RunningEngine, channel: string, ref: string): Promise<string> {
  const parked = await post(engine, `/channels/${channel}`, { ref });
  assert.equal(parked.status, 200, JSON.stringify(parked.body));
  return (parked.body.instances as { instanceId: string }[])[0].instanceId;
}

async function rowOf(engine: RunningEngine, id: string) {
  const { rows } = await engine.database.query<
    { status: string; failure_code: string | null; failure_detail: string | null }
  >(
    "select status, failure_code, failure_detail from instances where instance_id = $1",
    [id],
  );
  return rows[0];
}

async function withEngine(run: (engine: RunningEngine) => Promise<void>): Promise<void> {
  const engine = await bootEngine();
  try {
    await engine.deployments.deploy(await sealDir("tests/fixtures/runtime/validated_hold"));
    await run(engine);
  } finally {
    await engine.stop();
  }
}

Deno.test("a relay is validated by the correlated node, not the first candidate", () =>
  withEngine(async (engine) => {
    const strict = await park(engine, "vh-strict", "S-1");
    const lenient = await park(engine, "vh-lenient", "L-1");

    const refused = await post(engine, "/channels/vh-decision", { sref: "S-1", amount: -5 });
    assert.deepEqual(
      [refused.status, codeOf(refused)],
      [422, "SUTRA.INBOUND.VALIDATION_REJECTED"],
    );
    assert.equal((await rowOf(engine, strict)).status, "RUNNING");

    // The strict node's validators do not reach the lenient node's relays.
    const passed = await post(engine, "/channels/vh-decision", { lref: "L-1", amount: -5 });
    assert.equal(passed.status, 200, JSON.stringify(passed.body));
    assert.equal((await rowOf(engine, lenient)).status, "COMPLETED");
  }));

Deno.test('q:onValidation mode="error" raises the BPMN error at the waiting node', () =>
  withEngine(async (engine) => {
    const caught = await park(engine, "vh-caught", "C-1");
    const uncaught = await park(engine, "vh-uncaught", "U-1");
    const clean = await park(engine, "vh-caught", "C-2");

    const rescued = await post(engine, "/channels/vh-decision", { cref: "C-1", amount: -5 });
    assert.equal(rescued.status, 200, JSON.stringify(rescued.body));
    assert.equal((await rowOf(engine, caught)).status, "COMPLETED");
    const inspected = await get(engine, `/admin/instances/${caught}`);
    const variables = inspected.body.variables as Record<string, string>;
    assert.equal(variables.rescued, '"BAD_DECISION"', "the error boundary's path ran");

    // No errorCode on the policy: the first reason code is the BPMN error's code.
    await post(engine, "/channels/vh-decision", { uref: "U-1", amount: -5 });
    const failed = await rowOf(engine, uncaught);
    assert.deepEqual([failed.status, failed.failure_code], [
      "FAILED",
      "SUTRA.RUNTIME.ERROR.UNHANDLED",
    ]);
    assert.match(failed.failure_detail ?? "", /AMOUNT_NEGATIVE/);

    // A valid decision resumes normally, without the boundary.
    const ok = await post(engine, "/channels/vh-decision", { cref: "C-2", amount: 5 });
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    assert.equal((await rowOf(engine, clean)).status, "COMPLETED");
  }));

Deno.test('q:onValidation mode="route" hands the relay\'s validation summary to the instance', () =>
  withEngine(async (engine) => {
    const routed = await park(engine, "vh-routed", "R-1");
    const resumed = await post(engine, "/channels/vh-decision", { rref: "R-1", amount: -5 });
    assert.equal(resumed.status, 200, JSON.stringify(resumed.body));
    assert.equal((await rowOf(engine, routed)).status, "COMPLETED");
    const inspected = await get(engine, `/admin/instances/${routed}`);
    const variables = inspected.body.variables as Record<string, string>;
    assert.match(variables.validation, /AMOUNT_NEGATIVE/);
  }));

Deno.test('q:onValidation mode="error" on a start event raises the error for the event sub-process', () =>
  withEngine(async (engine) => {
    const refused = await post(engine, "/channels/vh-guarded", { amount: -5 });
    assert.equal(refused.status, 200, JSON.stringify(refused.body));
    const id = (refused.body.instances as { instanceId: string }[])[0].instanceId;
    const inspected = await get(engine, `/admin/instances/${id}`);
    const variables = inspected.body.variables as Record<string, string>;
    assert.deepEqual([variables.refused, variables.accepted], ['"BAD_DECISION"', undefined]);

    const accepted = await post(engine, "/channels/vh-guarded", { amount: 5 });
    const ok = (accepted.body.instances as { instanceId: string }[])[0].instanceId;
    const clean = (await get(engine, `/admin/instances/${ok}`)).body.variables as Record<
      string,
      string
    >;
    assert.deepEqual([clean.refused, clean.accepted], [undefined, "true"]);
  }));
