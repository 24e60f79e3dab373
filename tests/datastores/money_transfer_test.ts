/**
 * The executor's money-transfer flow over real stores: each step reads both
 * accounts under row locks through {@link StepStores}, and its writes are
 * applied and committed in the same unit of work, the way the runtime
 * commits a step.
 */
import assert from "node:assert/strict";
import { ManualClock } from "../../engine/core/mod.ts";
import { openDataStores, StepStores } from "../../engine/datastore/mod.ts";
import type { DataStoreSet } from "../../engine/datastore/mod.ts";
import { step } from "../../engine/executor/mod.ts";
import { defaultResolveContext } from "../../engine/core/secrets.ts";
import { fixturePlan } from "../executor/harness.ts";
import { echoTemplates } from "../executor/mini_runtime.ts";
import { eachProvider } from "./_providers.ts";

const plan = await fixturePlan("money_transfer.bpmn");
const start = plan.subscriptionsByChannel.get("transfer-request")!.find((s) => s.role === "start")!;
const clock = new ManualClock("2026-01-01T00:00:00Z");
const templates = echoTemplates(["reason"]);

// One transfer as the runtime runs it: step, then commit the step's writes
// with the reads' locks still held, or roll back when the step failed.
async function transfer(
  stores: DataStoreSet,
  n: number,
  payload: { fromId: string; toId: string; amount: number },
): Promise<string> {
  const port = new StepStores(stores);
  try {
    const r = await step(plan, undefined, {
      type: "start",
      instanceId: `t-${n}`,
      process: start.process,
      node: start.nodeId,
      message: { payload: { ...payload, E2EId: `E2E-${n}` }, messageType: "TransferRequest" },
    }, { clock, store: port, templates });
    if (r.refusal || r.state.status === "FAILED") throw new Error(`transfer ${n} did not run`);
    await port.apply(r.effects.storeWrites);
    await port.commit();
    return r.effects.replies[0].node;
  } catch (error) {
    await port.rollback();
    throw error;
  }
}

eachProvider("money transfer: concurrent transfers keep every cent", async (kit) => {
  const stores = await openDataStores([
    { name: "accounts", type: "sql", settings: { "url-ref": kit.url, "kv-table": kit.table } },
  ], { resolve: defaultResolveContext({}), baseDir: "." });
  try {
    const accounts = stores.get("accounts")!;
    await accounts.put("alice", { balance: 1000, frozen: false });
    await accounts.put("bob", { balance: 0, frozen: false });
    await accounts.put("carol", { balance: 50, frozen: true });

    const transfers = 30;
    const replies = await Promise.all(
      Array.from(
        { length: transfers },
        (_, i) => transfer(stores, i, { fromId: "alice", toId: "bob", amount: 7 }),
      ),
    );
    assert.deepEqual(new Set(replies), new Set(["OkReply"]));
    assert.deepEqual(await accounts.get("alice"), {
      value: { balance: 1000 - 7 * transfers, frozen: false },
      rev: 1 + transfers,
    });
    assert.deepEqual((await accounts.get("bob"))?.value, { balance: 7 * transfers, frozen: false });

    // Refused transfers cancel the BPMN transaction: no row moves.
    assert.equal(
      await transfer(stores, 100, { fromId: "bob", toId: "alice", amount: 1_000_000 }),
      "RejectReply",
    );
    assert.equal(
      await transfer(stores, 101, { fromId: "carol", toId: "bob", amount: 5 }),
      "RejectReply",
    );
    assert.equal((await accounts.get("bob"))?.rev, 1 + transfers);
    assert.deepEqual(await accounts.get("carol"), { value: { balance: 50, frozen: true }, rev: 1 });
  } finally {
    await stores.close();
  }
});
