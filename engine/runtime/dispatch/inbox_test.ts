import assert from "node:assert/strict";
import { ENGINE_MIGRATIONS, migrate } from "../../persistence/mod.ts";
import { takeOrphanedCaptures } from "../sweeps/mod.ts";
import {
  type Capture,
  captureId,
  dropCaptured,
  markCaptured,
  storeCaptures,
  storedReplyRoute,
} from "./inbox.ts";
import type { Queryable } from "../../persistence/mod.ts";

const storeCapture = async (db: Queryable, c: Capture) => (await storeCaptures(db, [c])).has(c);
import { eachDatabase } from "../../../tests/support/test_database.ts";

const delivery = (key?: string) => ({
  channel: "in",
  body: new TextEncoder().encode("{}"),
  headers: { "message-id": "m-1" },
  ...(key === undefined ? {} : { idempotencyKey: key }),
});

eachDatabase(
  "inbox: a redelivered copy finds its capture; a redriven capture keeps its idempotency key",
  async (db) => {
    await migrate(db, ENGINE_MIGRATIONS);
    const first = {
      tenant: "default",
      eventId: captureId(delivery("m-1")),
      delivery: delivery("m-1"),
    };
    const copy = { ...first, eventId: captureId(delivery("m-1")) };
    assert.equal(await storeCapture(db, first), true);
    // Pending: the copy is acknowledged only, the first capture's run is due.
    assert.equal(await storeCapture(db, copy), false);
    await db.query("update inbox set received_at = now() - interval '1 hour'");
    const [redriven, ...more] = await takeOrphanedCaptures(db, { orphanAfterMs: 1000, limit: 10 });
    assert.equal(more.length, 0);
    // Without the key the redriven run would skip the dedup that keeps it exactly-once.
    assert.equal(redriven.delivery.idempotencyKey, "m-1");
    // Run into an instance: a later copy is not captured again.
    await markCaptured(db, [{
      tenant: "default",
      channel: "in",
      eventId: first.eventId,
      instanceId: "i",
    }]);
    assert.equal(await storeCapture(db, copy), false);
    // A message without a key gets a fresh capture each time.
    const bare = { tenant: "default", eventId: captureId(delivery()), delivery: delivery() };
    assert.equal(await storeCapture(db, bare), true);
    assert.notEqual(captureId(delivery()), bare.eventId);
  },
);

eachDatabase("inbox: a copy of a message refused before is captured again", async (db) => {
  await migrate(db, ENGINE_MIGRATIONS);
  const c = { tenant: "default", eventId: captureId(delivery("k")), delivery: delivery("k") };
  assert.equal(await storeCapture(db, c), true);
  await dropCaptured(db, { tenant: "default", channel: "in", eventId: c.eventId });
  assert.equal(await storeCapture(db, c), true);
  const { rows } = await db.query<{ state: string }>("select state from inbox");
  assert.deepEqual(rows, [{ state: "pending" }]);
});

eachDatabase(
  "inbox: captures stored in one statement; a twin in the same batch is a copy; routes kept",
  async (db) => {
    await migrate(db, ENGINE_MIGRATIONS);
    const replyTo = { destination: "rabbitmq:///replies?channel=in", headers: { "x": "1" } };
    const capture = (key: string) => ({
      tenant: "default",
      eventId: captureId(delivery(key)),
      delivery: { ...delivery(key), replyTo },
    });
    const [a, twin, b] = [capture("a"), capture("a"), capture("b")];
    const stored = await storeCaptures(db, [a, twin, b]);
    assert.deepEqual([a, twin, b].map((c) => stored.has(c)), [true, false, true]);
    assert.deepEqual(
      await storedReplyRoute(db, { tenant: "default", channel: "in", eventId: a.eventId }),
      replyTo,
    );
    await markCaptured(db, [
      { tenant: "default", channel: "in", eventId: a.eventId, instanceId: "i-a" },
      { tenant: "default", channel: "in", eventId: b.eventId, instanceId: "i-b" },
    ]);
    const { rows } = await db.query<{ instance_id: string; state: string; reply_to: unknown }>(
      "select instance_id, state, reply_to from inbox order by event_id",
    );
    assert.deepEqual(rows, [
      { instance_id: "i-a", state: "done", reply_to: null },
      { instance_id: "i-b", state: "done", reply_to: null },
    ]);
  },
);
