/**
 * `sutra.instance.retention` PT0S: delete at completion. An instance that
 * completes leaves no row, wait, alias or audit row behind — one that ends
 * in its first step never touches the database at all — while its
 * emissions are still delivered, its dedup record still answers a
 * redelivery, and a FAILED instance is kept for an operator.
 */
import assert from "node:assert/strict";
import { NO_EFFECTS } from "../../engine/executor/effects.ts";
import { emptyState } from "../../engine/executor/state.ts";
import { ENGINE_MIGRATIONS, migrate } from "../../engine/persistence/mod.ts";
import {
  ClaimLostError,
  commitSteps,
  type StepCommit,
} from "../../engine/runtime/instances/repository.ts";
import type { RunningEngine } from "../../engine/runtime/mod.ts";
import { eachDatabase, tier2Test, withServerDatabase } from "../support/test_database.ts";
import { bootEngine, type BootOptions, get, post, sealDir } from "./support.ts";

const NO_HISTORY = { SUTRA_INSTANCE_RETENTION: "PT0S", SUTRA_AUDIT_SQL: "true" };
const KEY = { "x-api-key": "approval-demo-key" };

async function withEngine(
  options: BootOptions,
  packages: readonly string[],
  run: (engine: RunningEngine) => Promise<void>,
): Promise<void> {
  const engine = await bootEngine({ ...options, env: { ...NO_HISTORY, ...options.env } });
  try {
    for (const dir of packages) await engine.deployments.deploy(await sealDir(dir));
    await run(engine);
  } finally {
    await engine.stop();
  }
}

/** Rows per engine table that hold something about `instanceId`. */
async function traces(engine: RunningEngine, instanceId: string): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const table of ["instances", "waits", "aliases", "audit_events"]) {
    const { rows } = await engine.database.query<{ n: number }>(
      `select count(*)::int as n from ${table} where instance_id = $1`,
      [instanceId],
    );
    counts[table] = rows[0].n;
  }
  return counts;
}

const NONE = { instances: 0, waits: 0, aliases: 0, audit_events: 0 };

async function scenario(engine: RunningEngine): Promise<void> {
  // A request/reply that ends in its first step answers and leaves nothing.
  const quote = await post(engine, "/channels/quote-request", {
    item: "widget",
    quantity: 120,
    unitPrice: 2.5,
  });
  assert.equal(quote.status, 200, JSON.stringify(quote.body));
  assert.deepEqual(quote.body, { item: "widget", quantity: 120, total: 285 });
  const { rows: anything } = await engine.database.query("select 1 from instances");
  assert.equal(anything.length, 0);

  // A parked instance is live work: kept, with its wait, alias and journal.
  const request = { ApprovalRequest: { E2EId: "E2E-9", Amount: "1500.00" } };
  const parked = await post(engine, "/channels/approval-request", request, KEY);
  assert.equal(parked.status, 200, JSON.stringify(parked.body));
  const [{ instanceId }] = parked.body.instances as { instanceId: string }[];
  const live = await traces(engine, instanceId);
  assert.deepEqual([live.instances, live.waits, live.aliases], [1, 1, 1]);
  assert.ok(live.audit_events > 0);

  // Its completion deletes it with everything kept about it.
  const decision = { ApprovalDecision: { E2EId: "E2E-9", Decision: "APPROVE" } };
  const resumed = await post(engine, "/channels/approval-decision", decision, KEY);
  assert.equal(resumed.status, 200, JSON.stringify(resumed.body));
  assert.deepEqual(resumed.body.instances, [{ instanceId, status: "COMPLETED" }]);
  assert.deepEqual(await traces(engine, instanceId), NONE);
  assert.equal((await get(engine, `/sutra/instances/${instanceId}`)).status, 404);

  // The business key is free again.
  const again = await post(engine, "/channels/approval-request", request, KEY);
  assert.equal(again.status, 200, JSON.stringify(again.body));
}

Deno.test("retention PT0S deletes instances as they complete [pglite]", () =>
  withEngine({}, ["examples/quote-reply/package", "examples/approval-hold/package"], scenario));

tier2Test(
  "retention PT0S deletes instances as they complete [postgres]",
  () =>
    withServerDatabase((_db, target) =>
      withEngine(
        target,
        ["examples/quote-reply/package", "examples/approval-hold/package"],
        scenario,
      )
    ),
);

Deno.test("retention PT0S still keeps a FAILED instance with its code", () =>
  withEngine({}, ["tests/fixtures/runtime/validated_hold"], async (engine) => {
    const parked = await post(engine, "/channels/vh-uncaught", { ref: "U-1" });
    const [{ instanceId }] = parked.body.instances as { instanceId: string }[];
    await post(engine, "/channels/vh-decision", { uref: "U-1", amount: -5 });
    const { rows } = await engine.database.query<{ status: string; failure_code: string }>(
      "select status, failure_code from instances where instance_id = $1",
      [instanceId],
    );
    assert.deepEqual(rows, [{ status: "FAILED", failure_code: "SUTRA.RUNTIME.ERROR.UNHANDLED" }]);
  }));

Deno.test("retention PT0S still delivers a completed instance's emission, once", () =>
  withEngine(
    { env: { SUTRA_OUTBOX_POLL_INTERVAL: "PT0.05S" } },
    ["tests/fixtures/runtime/local_handoff"],
    async (engine) => {
      const sent = await post(engine, "/channels/lh-order", { orderId: "O-1", quantity: 3 });
      assert.equal(sent.status, 200, JSON.stringify(sent.body));
      const [{ instanceId }] = sent.body.instances as { instanceId: string }[];
      assert.deepEqual(await traces(engine, instanceId), NONE);
      // The handoff started the fulfilment (its dedup record names it) and left the outbox.
      for (let i = 0; i < 400; i++) {
        const { rows: pending } = await engine.database.query("select 1 from outbox");
        const { rows: done } = await engine.database.query(
          "select 1 from inbox where instance_id is not null",
        );
        if (pending.length === 0 && done.length === 1) break;
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      const { rows: inbox } = await engine.database.query<{ instance_id: string }>(
        "select instance_id from inbox",
      );
      assert.equal(inbox.length, 1, "one dedup record for the one handoff");
      assert.deepEqual(await traces(engine, inbox[0].instance_id), NONE);
      const { rows: outbox } = await engine.database.query("select 1 from outbox");
      assert.equal(outbox.length, 0);
    },
  ));

eachDatabase("deleting at completion needs the claim, like any commit", async (db) => {
  await migrate(db, ENGINE_MIGRATIONS);
  await db.query(
    `insert into instances (instance_id, deployment_id, process_id, status, snapshot, owner, claimed_at)
     values ('i-1', 'd', 'p', 'RUNNING', '\\x00', 'other/lane-0', now())`,
  );
  const step: StepCommit = {
    tenant: "default",
    instanceId: "i-1",
    deploymentId: "d",
    processId: "p",
    state: { ...emptyState("i-1", "p"), status: "COMPLETED" },
    snapshot: "",
    effects: NO_EFFECTS,
    outbox: [],
    owner: "me/lane-0",
    journal: false,
    deleteAtCompletion: true,
  };
  await assert.rejects(db.transaction((tx) => commitSteps(tx, [step])), ClaimLostError);
  const { rows } = await db.query("select owner from instances where instance_id = 'i-1'");
  assert.deepEqual(rows, [{ owner: "other/lane-0" }]);
  await db.transaction((tx) => commitSteps(tx, [{ ...step, owner: "other/lane-0" }]));
  const { rows: left } = await db.query("select 1 from instances");
  assert.equal(left.length, 0);
});
