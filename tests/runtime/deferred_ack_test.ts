/**
 * A `local` hand-off to an on-complete channel is acknowledged once the
 * receiving instance ends: the sender's outbox row stays (claimed, not
 * retried) while the receiver is parked, is deleted when it completes, is
 * poisoned with `SUTRA.ACK.DEFERRED_NACKED` when it fails, and — past the
 * registry's timeout — is handed over again without spending an attempt,
 * answered from the existing instance by inbox dedup — which is also how a
 * receiver finished on another replica is learned of. An on-persist channel
 * settles the row as soon as the message is captured.
 */
import assert from "node:assert/strict";
import type { RunningEngine } from "../../engine/runtime/mod.ts";
import { tier2Test, withServerDatabase } from "../support/test_database.ts";
import { bootEngine, post, sealDir, until, withDeployed } from "./support.ts";

function withEngine(
  env: Record<string, string>,
  run: (engine: RunningEngine) => Promise<void>,
): Promise<void> {
  const options = { env: { SUTRA_OUTBOX_POLL_INTERVAL: "PT0.05S", ...env } };
  return withDeployed("tests/fixtures/runtime/local_deferred", options, run);
}

interface OutboxRow {
  attempts: number;
  last_error: string | null;
  poisoned: boolean;
}

async function outbox(engine: RunningEngine): Promise<OutboxRow[]> {
  const { rows } = await engine.database.query<OutboxRow>(
    "select attempts, last_error, poisoned_at is not null as poisoned from outbox",
  );
  return rows;
}

async function instancesOf(engine: RunningEngine, process: string): Promise<string[]> {
  const { rows } = await engine.database.query<{ status: string }>(
    "select status from instances where process_id = $1",
    [process],
  );
  return rows.map((r) => r.status);
}

async function incidents(engine: RunningEngine): Promise<string[]> {
  const { rows } = await engine.database.query<{ code: string }>("select code from incidents");
  return rows.map((r) => r.code);
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

Deno.test("the sender's row waits for the receiving instance to complete, then goes", () =>
  withEngine({}, async (engine) => {
    assert.equal((await post(engine, "/channels/ld-order", { orderId: "A-1" })).status, 200);
    await until(async () => (await instancesOf(engine, "fulfil")).length === 1);
    assert.deepEqual(await instancesOf(engine, "fulfil"), ["RUNNING"]);
    await pause(300);
    // Handed over once, held: not retried, not deleted.
    assert.deepEqual(await outbox(engine), [{ attempts: 1, last_error: null, poisoned: false }]);
    const decided = await post(engine, "/channels/ld-decision", { orderId: "A-1", ok: true });
    assert.equal(decided.status, 200, JSON.stringify(decided.body));
    await until(async () => (await outbox(engine)).length === 0);
    assert.deepEqual(await instancesOf(engine, "fulfil"), ["COMPLETED"]);
    assert.deepEqual(await incidents(engine), []);
  }));

Deno.test("a receiving instance that fails refuses the hand-off for good", () =>
  withEngine({}, async (engine) => {
    await post(engine, "/channels/ld-order", { orderId: "B-1" });
    await until(async () => (await instancesOf(engine, "fulfil")).length === 1);
    await post(engine, "/channels/ld-decision", { orderId: "B-1", ok: false });
    await until(async () => (await outbox(engine)).some((r) => r.poisoned));
    const [row] = await outbox(engine);
    assert.match(row.last_error ?? "", /SUTRA\.ACK\.DEFERRED_NACKED.*failed/);
    assert.deepEqual(await instancesOf(engine, "fulfil"), ["FAILED"]);
    assert.ok((await incidents(engine)).includes("SUTRA.OUTBOUND.DELIVERY_REFUSED"));
  }));

Deno.test("past the timeout the row is handed over again, deduplicated, and no attempt is spent", () =>
  withEngine({
    SUTRA_ACK_DEFERRED_TIMEOUT: "PT0.2S",
    SUTRA_ACK_DEFERRED_SWEEP_INTERVAL: "PT0.1S",
    SUTRA_OUTBOX_RETRY_MAX_ATTEMPTS: "1",
  }, async (engine) => {
    await post(engine, "/channels/ld-order", { orderId: "C-1" });
    await until(async () =>
      (await outbox(engine)).some((r) => /SUTRA\.ACK\.DEFERRED_TIMEOUT/.test(r.last_error ?? ""))
    );
    // Several timeouts later: still one receiver, still one attempt, never poisoned.
    await pause(700);
    assert.deepEqual(await instancesOf(engine, "fulfil"), ["RUNNING"]);
    const [row] = await outbox(engine);
    assert.equal(row.poisoned, false);
    assert.ok(row.attempts <= 1, `attempts ${row.attempts}`);
    await post(engine, "/channels/ld-decision", { orderId: "C-1", ok: true });
    await until(async () => (await outbox(engine)).length === 0);
    assert.deepEqual(await instancesOf(engine, "fulfil"), ["COMPLETED"]);
  }));

Deno.test("an on-persist local channel settles the row once the message is captured", () =>
  withEngine({}, async (engine) => {
    await post(engine, "/channels/ld-order", { orderId: "D-1", queued: true });
    await until(async () => (await instancesOf(engine, "queued")).length === 1);
    await until(async () => (await outbox(engine)).length === 0);
    assert.deepEqual(await instancesOf(engine, "queued"), ["RUNNING"]);
  }));

Deno.test("a stopping engine gives a held row back; the next one holds it again and settles it", async () => {
  const dir = await Deno.makeTempDir({ prefix: "sutra-deferred-" });
  const boot = () =>
    bootEngine({ url: `file://${dir}`, env: { SUTRA_OUTBOX_POLL_INTERVAL: "PT0.05S" } });
  try {
    const first = await boot();
    try {
      await first.deployments.deploy(await sealDir("tests/fixtures/runtime/local_deferred"));
      await post(first, "/channels/ld-order", { orderId: "E-1" });
      await until(async () => (await instancesOf(first, "fulfil")).length === 1);
      await pause(200);
    } finally {
      await first.stop();
    }
    const second = await boot();
    try {
      // Given back, so handed over again at once (kept claimed, nothing would move for minutes):
      // dedup answers with the parked instance, the row is held anew, its attempt given back.
      await pause(300);
      assert.deepEqual(await outbox(second), [{ attempts: 1, last_error: null, poisoned: false }]);
      assert.deepEqual(await instancesOf(second, "fulfil"), ["RUNNING"]);
      await post(second, "/channels/ld-decision", { orderId: "E-1", ok: true });
      await until(async () => (await outbox(second)).length === 0);
      assert.deepEqual(await instancesOf(second, "fulfil"), ["COMPLETED"]);
    } finally {
      await second.stop();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

tier2Test(
  "a receiver finished on another replica is learned of through the timeout's redelivery [postgres]",
  () =>
    withServerDatabase(async (_db, target) => {
      const env = {
        SUTRA_OUTBOX_POLL_INTERVAL: "PT0.05S",
        SUTRA_ACK_DEFERRED_TIMEOUT: "PT0.5S",
        SUTRA_ACK_DEFERRED_SWEEP_INTERVAL: "PT0.1S",
      };
      const sender = await bootEngine({ ...target, env });
      try {
        await sender.deployments.deploy(await sealDir("tests/fixtures/runtime/local_deferred"));
        await post(sender, "/channels/ld-order", { orderId: "F-1" });
        // Handed over and held by the sender before the other replica exists.
        await until(async () => (await instancesOf(sender, "fulfil")).length === 1);
        const other = await bootEngine({ ...target, env });
        try {
          // The decision reaches the other replica, whose registry holds nothing for it.
          const decided = await post(other, "/channels/ld-decision", { orderId: "F-1", ok: true });
          assert.equal(decided.status, 200, JSON.stringify(decided.body));
          await until(async () => (await outbox(sender)).length === 0);
          assert.deepEqual(await instancesOf(sender, "fulfil"), ["COMPLETED"]);
          assert.deepEqual(await incidents(sender), []);
        } finally {
          await other.stop();
        }
      } finally {
        await sender.stop();
      }
    }),
);
