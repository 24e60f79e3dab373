/**
 * The `local` transport: a `q:send` to a local channel is handed by the
 * outbox to this engine's own intake, starting the co-deployed process on
 * that channel; the handoff carries the emission's idempotency key (the
 * key inbox dedup absorbs a second delivery of one row by, as for external
 * tasks); an address no channel serves stays in the outbox for a later try
 * instead of being dropped.
 */
import assert from "node:assert/strict";
import { localSink } from "../../io/transports/local/mod.ts";
import type { RunningEngine } from "../../engine/runtime/mod.ts";
import type { BoundChannel, InboundDelivery } from "../../engine/core/transport.ts";
import { post, until, withDeployed } from "./support.ts";

function withEngine(run: (engine: RunningEngine) => Promise<void>): Promise<void> {
  const options = { env: { SUTRA_OUTBOX_POLL_INTERVAL: "PT0.05S" } };
  return withDeployed("tests/fixtures/runtime/local_handoff", options, run);
}

async function fulfilled(engine: RunningEngine): Promise<{ status: string }[]> {
  const { rows } = await engine.database.query<{ status: string }>(
    "select status from instances where process_id = 'fulfil'",
  );
  return rows;
}

Deno.test("a q:send to a local channel starts the co-deployed process once", () =>
  withEngine(async (engine) => {
    const sent = await post(engine, "/channels/lh-order", { orderId: "O-1", quantity: 3 });
    assert.equal(sent.status, 200, JSON.stringify(sent.body));
    await until(async () => (await fulfilled(engine)).length === 1);
    assert.deepEqual(await fulfilled(engine), [{ status: "COMPLETED" }]);
    await until(async () => {
      const { rows } = await engine.database.query("select 1 from outbox");
      return rows.length === 0;
    });
  }));

Deno.test("a committed q:send goes out at once, not at the outbox's next idle poll", () =>
  // An hour between idle polls: only the commit's wake-up can send the row in time.
  withDeployed(
    "tests/fixtures/runtime/local_handoff",
    { env: { SUTRA_OUTBOX_POLL_INTERVAL: "PT1H" } },
    async (engine) => {
      const sent = await post(engine, "/channels/lh-order", { orderId: "O-3", quantity: 2 });
      assert.equal(sent.status, 200, JSON.stringify(sent.body));
      await until(async () => (await fulfilled(engine)).length === 1, 10_000);
      assert.deepEqual(await fulfilled(engine), [{ status: "COMPLETED" }]);
    },
  ));

Deno.test("an address no local channel serves stays in the outbox with its reason", () =>
  withEngine(async (engine) => {
    await post(engine, "/channels/lh-order", { orderId: "O-2", quantity: 1, lost: true });
    await until(async () => {
      const { rows } = await engine.database.query<{ last_error: string | null }>(
        "select last_error from outbox",
      );
      return rows.length === 1 && rows[0].last_error !== null;
    });
    const { rows } = await engine.database.query<{ last_error: string; poisoned_at: Date | null }>(
      "select last_error, poisoned_at from outbox",
    );
    assert.match(rows[0].last_error, /SUTRA\.RESOLVE\.CHANNEL\.UNKNOWN.*unbound/);
    assert.equal(rows[0].poisoned_at, null);
    assert.deepEqual(await fulfilled(engine), []);
  }));

Deno.test("the sink hands over the channel bound to the address, under the row's idempotency key", async () => {
  const delivered: InboundDelivery[] = [];
  const channel: BoundChannel = {
    tenant: "test",
    deploymentId: "d",
    declaration: { name: "lh-handoff", transport: "local", bind: "local://x" },
    ackMode: "on-complete",
  };
  const sink = localSink({
    channels: () => [channel],
    deliver: (d) => {
      delivered.push(d);
      // The engine settles a deferral whose instances have all ended at once.
      d.deferral?.settle({ kind: "ack" });
      return Promise.resolve({ kind: "settled", instances: [] });
    },
    http: { add: () => {} },
    logger: undefined as never,
    resolveSecret: () => Promise.resolve(""),
    payloadCapBytes: 1_024,
    ackHoldMs: 1_000,
  });
  const message = {
    destination: "local://x",
    headers: { a: "b" },
    body: new Uint8Array([123, 125]),
    contentType: "application/json",
    idempotencyKey: "k-1",
    attempt: 1,
  };
  assert.deepEqual(await sink.send(message), { outcome: "delivered" });
  assert.equal(delivered[0].channel, "lh-handoff");
  assert.equal(delivered[0].idempotencyKey, "k-1");
  assert.deepEqual(await sink.send({ ...message, destination: "local://y" }), {
    outcome: "retry",
    error: "SUTRA.RESOLVE.CHANNEL.UNKNOWN: no active local channel is bound to local://y",
  });
});
