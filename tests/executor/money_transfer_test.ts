/**
 * The money-transfer flow end to end, in memory: three intake channels, a
 * transaction that reads both accounts under row locks, validates, and
 * either commits both balance writes or cancels and rolls back.
 */
import assert from "node:assert/strict";
import type { ExecutionPlan } from "../../engine/bpmn/mod.ts";
import { fixturePlan } from "./harness.ts";
import { echoTemplates, MiniRuntime } from "./mini_runtime.ts";

let plan: ExecutionPlan | undefined;

async function ledger(): Promise<MiniRuntime> {
  plan ??= await fixturePlan("money_transfer.bpmn");
  const rt = new MiniRuntime(plan, {
    templates: echoTemplates(["fromAccount", "toAccount", "reason"]),
  });
  rt.store.put("accounts", "alice", { balance: 100, frozen: false });
  rt.store.put("accounts", "bob", { balance: 10, frozen: false });
  rt.store.put("accounts", "carol", { balance: 500, frozen: true });
  return rt;
}

function transfer(fromId: string, toId: string, amount: number, e2e = `E2E-${fromId}-${amount}`) {
  return { payload: { fromId, toId, amount, E2EId: e2e }, messageType: "TransferRequest" };
}

Deno.test("money-transfer: a valid transfer commits both balances together and replies accepted", async () => {
  const rt = await ledger();
  const d = await rt.deliver("transfer-request", transfer("alice", "bob", 25));
  assert.ok(d.accepted);
  assert.deepEqual(rt.store.get("accounts", "alice"), { balance: 75, frozen: false });
  assert.deepEqual(rt.store.get("accounts", "bob"), { balance: 35, frozen: false });
  assert.equal(d.replies.length, 1);
  assert.equal(d.replies[0].node, "OkReply");
  assert.equal(d.replies[0].contentType, "application/xml");
  assert.match(String(d.replies[0].body), /^transfer-accepted\.hbs: .*"balance":75/);
  assert.equal(rt.state(d.instanceId!).status, "COMPLETED");
  assert.deepEqual([...rt.covered], ["accept"]);
});

Deno.test("money-transfer: both rows are read under a row lock (forUpdate)", async () => {
  const rt = await ledger();
  await rt.deliver("transfer-request", transfer("alice", "bob", 25));
  assert.deepEqual(rt.store.reads.map((r) => [r.key, r.forUpdate]), [["alice", true], [
    "bob",
    true,
  ]]);
});

Deno.test("money-transfer: a later transfer on another intake channel sees the committed balances", async () => {
  const rt = await ledger();
  await rt.deliver("transfer-request", transfer("alice", "bob", 25));
  await rt.deliver("transfer-queue", transfer("alice", "bob", 30));
  const d = await rt.deliver("transfer-topic", transfer("bob", "alice", 65));
  assert.ok(d.accepted);
  assert.deepEqual(rt.store.get("accounts", "alice"), { balance: 110, frozen: false });
  assert.deepEqual(rt.store.get("accounts", "bob"), { balance: 0, frozen: false });
});

Deno.test("money-transfer: insufficient funds cancels the transaction, writes nothing, replies rejected", async () => {
  const rt = await ledger();
  const d = await rt.deliver("transfer-request", transfer("bob", "alice", 11));
  assert.ok(d.accepted);
  assert.deepEqual(rt.store.get("accounts", "bob"), { balance: 10, frozen: false });
  assert.deepEqual(rt.store.get("accounts", "alice"), { balance: 100, frozen: false });
  assert.equal(d.replies[0].node, "RejectReply");
  assert.match(String(d.replies[0].body), /"reason":"INSUFFICIENT_FUNDS"/);
  const state = rt.state(d.instanceId!);
  assert.equal(state.status, "COMPLETED");
  assert.ok(state.completed.has("RejectEnd") && !state.completed.has("Persist"));
  assert.deepEqual([...rt.covered], ["reject"]);
});

Deno.test("money-transfer: a frozen account is rejected with its reason", async () => {
  const rt = await ledger();
  const d = await rt.deliver("transfer-request", transfer("carol", "bob", 5));
  assert.match(String(d.replies[0].body), /"reason":"ACCOUNT_FROZEN"/);
  assert.deepEqual(rt.store.get("accounts", "carol"), { balance: 500, frozen: true });
});

Deno.test("money-transfer: the business key is recorded, then retired when the transfer completes", async () => {
  const rt = await ledger();
  const first = await rt.deliver("transfer-request", transfer("alice", "bob", 1, "SAME"));
  assert.ok(first.accepted);
  assert.equal(rt.aliases.size, 0);
  // The key is free again, so the same business key starts a new transfer.
  const second = await rt.deliver("transfer-request", transfer("alice", "bob", 1, "SAME"));
  assert.ok(second.accepted);
  assert.notEqual(second.instanceId, first.instanceId);
});
