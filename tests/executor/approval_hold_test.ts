/**
 * The approval-hold flow end to end, in memory: a request parks on a user
 * task, a decision relayed on a second channel is correlated by the
 * request's E2EId and resumes it.
 */
import assert from "node:assert/strict";
import type { ExecutionPlan } from "../../engine/bpmn/mod.ts";
import { fixturePlan } from "./harness.ts";
import { MiniRuntime } from "./mini_runtime.ts";

let plan: ExecutionPlan | undefined;

async function engine(): Promise<MiniRuntime> {
  plan ??= await fixturePlan("approval_hold.bpmn");
  return new MiniRuntime(plan);
}

const request = (e2e: string, amount = 1500) => ({
  payload: { E2EId: e2e, Amount: amount },
  messageType: "ApprovalRequest",
});
const decision = (e2e: string, verdict: string) => ({
  payload: { E2EId: e2e, Decision: verdict },
  messageType: "ApprovalDecision",
});

Deno.test("approval-hold: a request parks on the hold and records its correlation alias", async () => {
  const rt = await engine();
  const d = await rt.deliver("approval-request", request("E2E-1"));
  assert.ok(d.accepted);
  assert.deepEqual(d.replies, []);
  const state = rt.state(d.instanceId!);
  assert.equal(state.status, "WAITING");
  assert.deepEqual([...state.waits.values()].map((w) => [w.kind, w.channel]), [
    ["message", "approval-decision"],
  ]);
  assert.equal(rt.aliases.get("e2eId=E2E-1"), d.instanceId);
});

Deno.test("approval-hold: a second request with the same E2EId while parked is rejected", async () => {
  const rt = await engine();
  await rt.deliver("approval-request", request("E2E-1"));
  const dup = await rt.deliver("approval-request", request("E2E-1"));
  assert.equal(dup.accepted, false);
  assert.equal(dup.refusal, "duplicate");
  assert.equal(rt.snapshots.size, 1);
});

Deno.test("approval-hold: the relayed decision resumes the parked instance, which completes and releases", async () => {
  const rt = await engine();
  const parked = await rt.deliver("approval-request", request("E2E-1"));
  const d = await rt.deliver("approval-decision", decision("E2E-1", "APPROVE"));
  assert.ok(d.accepted);
  assert.equal(d.instanceId, parked.instanceId);
  const state = rt.state(d.instanceId!);
  assert.equal(state.status, "COMPLETED");
  assert.ok(state.completed.has("Notify"));
  assert.deepEqual(rt.emissions.map((e) => [e.channel, e.headers, e.body]), [
    ["approval-outcome", { e2eId: "E2E-1" }, { e2eId: "E2E-1", amount: 1500 }],
  ]);
});

Deno.test("approval-hold: the alias is retired on completion, so the same E2EId is accepted again", async () => {
  const rt = await engine();
  await rt.deliver("approval-request", request("E2E-1"));
  await rt.deliver("approval-decision", decision("E2E-1", "DECLINE"));
  assert.equal(rt.aliases.size, 0);
  assert.ok((await rt.deliver("approval-request", request("E2E-1"))).accepted);
});

Deno.test("approval-hold: a decision for an unknown E2EId is refused and parked instances are untouched", async () => {
  const rt = await engine();
  const parked = await rt.deliver("approval-request", request("E2E-1"));
  const before = rt.snapshots.get(parked.instanceId!);
  const d = await rt.deliver("approval-decision", decision("E2E-404", "APPROVE"));
  assert.equal(d.accepted, false);
  assert.equal(d.refusal, "uncorrelated");
  assert.equal(rt.snapshots.get(parked.instanceId!), before);
});

Deno.test("approval-hold: the amount survives the park as a number, so the limit check still compares numbers", async () => {
  const rt = await engine();
  await rt.deliver("approval-request", request("E2E-BIG", 25000));
  const d = await rt.deliver("approval-decision", decision("E2E-BIG", "APPROVE"));
  const state = rt.state(d.instanceId!);
  // 25000 > 10000: the approved branch's condition is false, so it declines.
  assert.ok(state.completed.has("Declined") && !state.completed.has("Notify"));
  assert.deepEqual(rt.emissions, []);
});
