/**
 * `q:retry` and `q:timeout` on a channel call at runtime, on a manual
 * clock. The failing attempt is the route-less `q:timeout` firing (the
 * request's destination never answers): with `maxAttempts="4"
 * initialDelay="PT1S" backoffCoefficient="2.0"` the backoffs are 1 s, 2 s
 * and 4 s, each a durable timer row, each re-drive sends a fresh
 * idempotency key and withdraws the dead attempt's outbox row, and the
 * fourth timeout fails the instance with SUTRA.RUNTIME.RETRY.EXHAUSTED. A
 * response posted on the call's response channel for a dead attempt is
 * refused with RETRY_PENDING while the next attempt's response completes
 * the task; a poisoned request delivery
 * counts as a failed attempt at once. Without `q:retry` the timeout is a
 * BPMN error a boundary catches.
 */
import assert from "node:assert/strict";
import type { Database } from "../../engine/persistence/mod.ts";
import { codeOf, post } from "./support.ts";
import {
  advanceTo,
  eachDeployed,
  enteredNodes,
  pollUntil,
  startOn,
  statusOf,
  T0,
  timersOf,
} from "./timers_support.ts";

const FIXTURE = "tests/fixtures/runtime/timers";
const SECOND = 1_000;
const TIMEOUT = 5 * SECOND;

/** The idempotency keys of the instance's outstanding request rows. */
async function requestKeys(db: Database, instanceId: string): Promise<string[]> {
  const { rows } = await db.query<{ idempotency_key: string }>(
    "select idempotency_key from outbox where instance_id = $1 order by created_at",
    [instanceId],
  );
  return rows.map((r) => r.idempotency_key);
}

const attemptOf = (key: string) => Number(key.split(":").at(-1));

eachDeployed(
  "q:retry 4 × PT1S × 2.0 on a timing-out call: backoffs of 1 s, 2 s, 4 s, then FAILED",
  { fixture: FIXTURE },
  async ({ engine, clock }) => {
    const id = await startOn(engine, "score-start", { ref: "s-1" });
    let sent = T0;
    const seenKeys: string[] = [];
    for (const [attempt, backoff] of [[1, 1 * SECOND], [2, 2 * SECOND], [3, 4 * SECOND]]) {
      assert.deepEqual(await timersOf(engine.database, id), [
        { purpose: "timeout", node: "Score", due: sent + TIMEOUT },
      ]);
      const [key] = await requestKeys(engine.database, id);
      assert.equal(attemptOf(key), attempt);
      seenKeys.push(key);
      await advanceTo(engine, clock, sent + TIMEOUT);
      assert.deepEqual(await timersOf(engine.database, id), [
        { purpose: "retry", node: "Score", due: sent + TIMEOUT + backoff },
      ]);
      // The dead attempt's request is withdrawn with the backoff park.
      assert.deepEqual(await requestKeys(engine.database, id), []);
      sent += TIMEOUT + backoff;
      await advanceTo(engine, clock, sent);
    }
    const [last] = await requestKeys(engine.database, id);
    assert.equal(attemptOf(last), 4);
    assert.equal(new Set([...seenKeys, last]).size, 4, "every attempt has a fresh key");
    await advanceTo(engine, clock, sent + TIMEOUT);
    assert.deepEqual(await statusOf(engine.database, id), {
      status: "FAILED",
      code: "SUTRA.RUNTIME.RETRY.EXHAUSTED",
    });
    assert.deepEqual(await timersOf(engine.database, id), []);
    assert.deepEqual(await requestKeys(engine.database, id), []);
  },
);

eachDeployed(
  "a late response to a timed-out attempt is refused with RETRY_PENDING; the re-issued request's response completes",
  { fixture: FIXTURE },
  async ({ engine, clock }) => {
    const id = await startOn(engine, "score-start", { ref: "s-2" });
    await advanceTo(engine, clock, T0 + TIMEOUT);
    const late = await post(engine, "/channels/score-response", { ref: "s-2", score: 1 });
    assert.deepEqual(
      [late.status, codeOf(late)],
      [422, "SUTRA.DISPATCH.CHANNEL_CALL.RETRY_PENDING"],
    );
    assert.equal((await statusOf(engine.database, id)).status, "RUNNING");

    await advanceTo(engine, clock, T0 + TIMEOUT + SECOND);
    const [key] = await requestKeys(engine.database, id);
    assert.equal(attemptOf(key), 2);
    const answered = await post(engine, "/channels/score-response", { ref: "s-2", score: 720 });
    assert.equal(answered.status, 200, JSON.stringify(answered.body));
    assert.equal((await statusOf(engine.database, id)).status, "COMPLETED");
    assert.deepEqual(await timersOf(engine.database, id), []);
  },
);

eachDeployed(
  "a poisoned request delivery fails the attempt at once, without waiting for the timeout",
  {
    fixture: FIXTURE,
    env: {
      SUTRA_OUTBOX_RETRY_MAX_ATTEMPTS: "1",
      SUTRA_OUTBOX_POLL_INTERVAL: "PT0.01S",
    },
  },
  async ({ engine, clock }) => {
    const id = await startOn(engine, "score-start", { ref: "s-3" });
    // The destination refuses connections: one attempt poisons the row,
    // and the wake parks the call in its first backoff — the clock never moved.
    await pollUntil(async () => (await timersOf(engine.database, id))[0]?.purpose === "retry");
    assert.deepEqual(await timersOf(engine.database, id), [
      { purpose: "retry", node: "Score", due: T0 + SECOND },
    ]);
    assert.equal(clock.now(), T0);
    // The poisoned row was withdrawn with the park; its incident stays on record.
    assert.deepEqual(await requestKeys(engine.database, id), []);
    const { rows } = await engine.database.query<{ code: string }>(
      "select code from incidents where instance_id = $1",
      [id],
    );
    assert.deepEqual(rows.map((r) => r.code), ["SUTRA.OUTBOUND.DELIVERY_ATTEMPTS_EXHAUSTED"]);
  },
);

eachDeployed(
  "without q:retry a fired q:timeout is a BPMN error its boundary catches",
  { fixture: FIXTURE },
  async ({ engine, clock }) => {
    const id = await startOn(engine, "lookup-start", {});
    assert.deepEqual(await timersOf(engine.database, id), [
      { purpose: "timeout", node: "Lookup", due: T0 + 30 * SECOND },
    ]);
    await advanceTo(engine, clock, T0 + 30 * SECOND);
    assert.deepEqual(await statusOf(engine.database, id), { status: "COMPLETED", code: null });
    const entered = await enteredNodes(engine.database, id);
    assert.ok(entered.includes("Fallback"), JSON.stringify(entered));
    assert.ok(!entered.includes("Found"), JSON.stringify(entered));
    // The abandoned request is withdrawn with the timeout.
    assert.deepEqual(await requestKeys(engine.database, id), []);
  },
);
