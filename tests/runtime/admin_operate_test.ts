/**
 * The operator's loop on a real engine (PGlite and the tier-2 server): an
 * order whose charge goes unanswered fails at `Charge`; the failure shows
 * in `GET /admin/incidents` and in the instance search; the operator fixes
 * a variable (typed, journaled by name, refused while a claim is held) and
 * retries; the retried charge is a fresh pull task a worker completes, and
 * the order then finishes on its shipping notice.
 */
import assert from "node:assert/strict";
import { ManualClock } from "../../engine/core/mod.ts";
import type { RunningEngine } from "../../engine/runtime/mod.ts";
import { type Answer, codeOf, get, post } from "./support.ts";
import {
  advanceTo,
  deployDir,
  eachTarget,
  pollUntil,
  startOn,
  statusOf,
  T0,
  withEngine,
} from "./timers_support.ts";

const FIXTURE = "tests/fixtures/runtime/admin_order";

/** PATCHes `body` as JSON. */
export async function patch(engine: RunningEngine, path: string, body: unknown): Promise<Answer> {
  const response = await fetch(`${engine.url}${path}`, {
    method: "PATCH",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: await response.json(), headers: response.headers };
}

/** Starts order `orderId` and lets its one charge attempt time out: the instance is FAILED. */
async function failedOrder(
  engine: RunningEngine,
  clock: ManualClock,
  orderId: string,
): Promise<string> {
  const id = await startOn(engine, "ord-start", { orderId });
  await advanceTo(engine, clock, clock.now() + 5_000);
  assert.deepEqual(await statusOf(engine.database, id), {
    status: "FAILED",
    code: "SUTRA.RUNTIME.RETRY.EXHAUSTED",
  });
  return id;
}

/** Fetches the one charge task for `orderId` and completes it. */
async function completeCharge(engine: RunningEngine, orderId: string): Promise<void> {
  let tasks: { id: string; body: string }[] = [];
  assert.ok(
    await pollUntil(async () => {
      const fetched = await post(engine, "/sutra/external-tasks/fetch-and-lock", {
        workerId: "w-1",
        channels: ["ord-charge"],
        lockDuration: "PT1M",
      });
      tasks = fetched.body as unknown as { id: string; body: string }[];
      return Array.isArray(tasks) && tasks.length > 0;
    }),
    "no charge task was parked",
  );
  assert.deepEqual(JSON.parse(tasks[0].body), { orderId });
  const done = await post(engine, `/sutra/external-tasks/${tasks[0].id}/complete`, {
    workerId: "w-1",
    result: { orderId, charged: true },
  });
  assert.equal(done.status, 200, JSON.stringify(done.body));
}

eachTarget("a FAILED order is found, fixed, retried and completes", async (target) => {
  const clock = new ManualClock(T0);
  await withEngine({ target, clock }, async (engine) => {
    await deployDir(engine, FIXTURE);
    const id = await failedOrder(engine, clock, "O-1");

    const incidents = await get(engine, "/admin/incidents?kind=instance");
    assert.equal(incidents.status, 200);
    const [incident] = incidents.body.incidents as Record<string, unknown>[];
    assert.equal(incident.instanceId, id);
    assert.equal(incident.code, "SUTRA.RUNTIME.RETRY.EXHAUSTED");
    assert.equal(incident.node, "Charge");
    assert.match(String(incident.message), /Charge/);

    const found = await get(
      engine,
      "/admin/instances?status=FAILED&failureCode=SUTRA.RUNTIME.RETRY.EXHAUSTED&alias=orderId=O-1",
    );
    assert.deepEqual((found.body.instances as { instanceId: string }[]).map((i) => i.instanceId), [
      id,
    ]);

    // Typed: a number for the declared number, every problem named at once.
    const wrong = await patch(engine, `/admin/instances/${id}/variables`, {
      variables: { amount: "twelve", scratch: "x" },
    });
    assert.equal(wrong.status, 400);
    assert.deepEqual(
      (wrong.body.diagnostics as { code: string; attributes: { variable: string } }[])
        .map((d) => [d.code, d.attributes.variable]),
      [
        ["SUTRA.ADMIN.VARIABLES.TYPE_MISMATCH", "amount"],
        ["SUTRA.ADMIN.VARIABLES.TRANSIENT", "scratch"],
      ],
    );
    // A claim held elsewhere refuses the change and leaves the row alone.
    await engine.database.query(
      "update instances set owner = 'replica-x/lane-0' where instance_id = $1",
      [
        id,
      ],
    );
    const held = await patch(engine, `/admin/instances/${id}/variables`, {
      variables: { amount: 12.5 },
    });
    assert.equal(held.status, 409);
    assert.equal(codeOf(held), "SUTRA.ADMIN.INSTANCE.CLAIM_HELD");
    await engine.database.query("update instances set owner = null where instance_id = $1", [id]);
    const fixed = await patch(engine, `/admin/instances/${id}/variables`, {
      variables: { amount: 12.5, due: { "@d": "2026-09-01" } },
    });
    assert.equal(fixed.status, 200, JSON.stringify(fixed.body));
    assert.deepEqual(fixed.body.changed, ["amount", "due"]);
    const inspected = await get(engine, `/admin/instances/${id}`);
    assert.equal((inspected.body.variables as Record<string, string>).amount, "12.5");
    assert.equal((inspected.body.variables as Record<string, string>).due, 'date("2026-09-01")');
    const history = await get(engine, `/admin/instances/${id}/history`);
    const changed = (history.body.events as { type: string; data?: unknown }[])
      .find((e) => e.type === "variables.changed");
    assert.deepEqual(changed?.data, { variables: ["amount", "due"], by: "admin" });

    const retried = await post(engine, `/admin/instances/${id}/retry`, "");
    assert.equal(retried.status, 200, JSON.stringify(retried.body));
    assert.deepEqual(retried.body, { instanceId: id, status: "WAITING", retrying: "Charge" });
    await completeCharge(engine, "O-1");
    assert.ok(
      await pollUntil(async () =>
        (await get(engine, `/sutra/instances/${id}`)).body.status === "WAITING" &&
        (await engine.database.query(
            "select 1 from waits where instance_id = $1 and node_id = 'AwaitShip'",
            [id],
          )).rows.length === 1
      ),
      "the retried charge never moved the order on",
    );
    // Back on its way, it is no longer FAILED: a second retry is refused.
    const again = await post(engine, `/admin/instances/${id}/retry`, "");
    assert.equal(again.status, 409);
    assert.equal(codeOf(again), "SUTRA.ADMIN.RETRY.NOT_FAILED");
    const shipped = await post(engine, "/channels/ord-ship", { orderId: "O-1" });
    assert.equal(shipped.status, 200, JSON.stringify(shipped.body));
    assert.equal((await get(engine, `/sutra/instances/${id}`)).body.status, "COMPLETED");
    assert.deepEqual(
      (await get(engine, "/admin/incidents?kind=instance")).body.incidents,
      [],
      "a completed instance is no incident",
    );
  });
});

eachTarget("retry and variable changes refuse what they cannot do", async (target) => {
  const clock = new ManualClock(T0);
  await withEngine({ target, clock }, async (engine) => {
    await deployDir(engine, FIXTURE);
    const live = await startOn(engine, "ord-start", { orderId: "O-2" });
    const notFailed = await post(engine, `/admin/instances/${live}/retry`, "");
    assert.equal(notFailed.status, 409);
    assert.equal(codeOf(notFailed), "SUTRA.ADMIN.RETRY.NOT_FAILED");
    const unknown = await post(engine, "/admin/instances/nope/retry", "");
    assert.equal(unknown.status, 404);
    const badBody = await patch(engine, `/admin/instances/${live}/variables`, { vars: {} });
    assert.equal(badBody.status, 400);
    assert.deepEqual(
      (badBody.body.diagnostics as { code: string; attributes: { field: string } }[])
        .map((d) => [d.code, d.attributes.field]),
      [["SUTRA.ADMIN.BODY.INVALID", "vars"], ["SUTRA.ADMIN.BODY.INVALID", "variables"]],
    );
    const cancelled = await post(engine, `/admin/instances/${live}/cancel`, "");
    assert.equal(cancelled.status, 200);
    const ended = await patch(engine, `/admin/instances/${live}/variables`, {
      variables: { amount: 1 },
    });
    assert.equal(ended.status, 409);
    assert.equal(codeOf(ended), "SUTRA.RUNTIME.INSTANCE.NOT_ACTIVE");

    // A unique alias taken by a newer order while the first one lay FAILED.
    const failed = await failedOrder(engine, clock, "O-3");
    const taker = await startOn(engine, "ord-start", { orderId: "O-3" });
    assert.notEqual(taker, failed);
    const conflict = await post(engine, `/admin/instances/${failed}/retry`, "");
    assert.equal(conflict.status, 409);
    assert.equal(codeOf(conflict), "SUTRA.ADMIN.RETRY.ALIAS_CONFLICT");
    assert.deepEqual(await statusOf(engine.database, failed), {
      status: "FAILED",
      code: "SUTRA.RUNTIME.RETRY.EXHAUSTED",
    });
  });
});
