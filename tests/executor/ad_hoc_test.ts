/**
 * Ad-hoc sub-processes (tests/fixtures/executor/ad_hoc.bpmn): the
 * completion condition with and without cancelRemainingInstances,
 * sequential ordering in document order, and flows inside the body.
 */
import assert from "node:assert/strict";
import type { ExecutionPlan } from "../../engine/bpmn/mod.ts";
import { fixturePlan, Instance } from "./harness.ts";

let plan: ExecutionPlan | undefined;
async function start(process: string): Promise<Instance> {
  plan ??= await fixturePlan("ad_hoc.bpmn");
  const run = new Instance(plan);
  await run.start({ process, variables: { log: [] } });
  return run;
}

Deno.test("ad-hoc completion condition: when it holds, what still runs is withdrawn and the sub-process completes", async () => {
  const run = await start("review");
  assert.deepEqual(run.waitingAt().sort(), ["finance", "legal"], "both enabled activities start");
  await run.message("legal", "ok");
  assert.equal(run.status, "COMPLETED");
  assert.equal(run.vars.approved, true);
  assert.ok(run.completed.has("e"));
  assert.ok(!run.completed.has("finance"), "the finance review was withdrawn, not completed");
  assert.deepEqual(run.waitingAt(), []);
});

Deno.test("ad-hoc completion condition that does not hold: the sub-process keeps running", async () => {
  const run = await start("review");
  await run.message("legal", "rejected");
  assert.equal(run.status, "WAITING");
  assert.equal(run.vars.approved, false);
  assert.deepEqual(run.waitingAt(), ["finance"]);
  await run.message("finance", "ok");
  assert.equal(run.status, "COMPLETED", "every activity done: the sub-process completes");
});

Deno.test('ad-hoc cancelRemainingInstances="false": the condition holds, but running activities finish first', async () => {
  const run = await start("reviewAll");
  await run.message("legal2", "ok");
  assert.equal(run.status, "WAITING");
  assert.deepEqual(run.waitingAt(), ["finance2"]);
  await run.message("finance2", "later");
  assert.equal(run.status, "COMPLETED");
  assert.ok(run.completed.has("finance2"));
});

Deno.test("sequential ad-hoc: one enabled activity at a time, in document order, each with what its flows lead to", async () => {
  const run = await start("steps");
  assert.deepEqual(run.waitingAt(), ["ask"], "only the first enabled activity runs");
  assert.deepEqual(run.vars.log, []);
  await run.message("ask", "yes");
  assert.deepEqual(run.vars.log, ["b", "c", "d"], "c (reached by a flow) runs before d starts");
  assert.equal(run.status, "COMPLETED");
});

Deno.test("sequential ad-hoc with a completion condition: the rest is withdrawn and never started", async () => {
  const run = await start("stepsCut");
  assert.equal(run.status, "COMPLETED");
  assert.deepEqual(run.vars.log, ["b"]);
  assert.ok(!run.completed.has("cc4") && !run.completed.has("d4"));
  assert.ok(run.completed.has("seq4"));
});

Deno.test("sequential ad-hoc without cancelling: what already runs finishes, no further activity starts", async () => {
  const run = await start("stepsDrain");
  assert.equal(run.status, "COMPLETED");
  assert.deepEqual(run.vars.log, ["b", "c"]);
  assert.ok(!run.completed.has("d5"));
});
