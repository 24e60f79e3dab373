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
import { codeOf, get, post } from "./support.ts";
import { completeCharge, deployRevision, ORDER, patch } from "./admin_support.ts";
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

/** Whether order `id` waits for its shipping notice (its charge went through). */
async function awaitsShipping(engine: RunningEngine, id: string): Promise<boolean> {
  const { rows } = await engine.database.query(
    "select 1 from waits where instance_id = $1 and node_id = 'AwaitShip'",
    [id],
  );
  return rows.length === 1;
}

eachTarget("a FAILED order is found, fixed, retried and completes", async (target) => {
  const clock = new ManualClock(T0);
  await withEngine({ target, clock }, async (engine) => {
    await deployDir(engine, ORDER);
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
        await awaitsShipping(engine, id)
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
    await deployDir(engine, ORDER);
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
    // A value nested past the payload limit, or holding a lone surrogate, is refused by name.
    let deep: unknown = 1;
    for (let n = 0; n < 600; n++) deep = [deep];
    const unfit = await patch(engine, `/admin/instances/${live}/variables`, {
      variables: { deep, odd: "x\ud800" },
    });
    assert.equal(unfit.status, 400);
    assert.deepEqual(
      (unfit.body.diagnostics as { message: string }[]).map((d) => d.message.split(": ")[1]),
      [
        "the value nests deeper than 512 levels",
        "the value holds a lone surrogate, which is not text",
      ],
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

    // A parallel branch parked elsewhere lost its wait with the failure: no silent hang.
    await deployRevision(engine, ORDER, forked);
    const branched = await failedOrder(engine, clock, "O-4");
    const stranded = await post(engine, `/admin/instances/${branched}/retry`, "");
    assert.equal(stranded.status, 409);
    assert.equal(codeOf(stranded), "SUTRA.ADMIN.RETRY.UNSUPPORTED");
    assert.match(JSON.stringify(stranded.body), /'AwaitShip'/);
  });
});

eachTarget(
  "a gateway that found no path runs again once the operator fixed its variable",
  async (target) => {
    const clock = new ManualClock(T0);
    await withEngine({ target, clock }, async (engine) => {
      await deployRevision(engine, ORDER, noPath);
      const gated = await startOn(engine, "ord-start", { orderId: "O-5" });
      const noPathYet = { status: "FAILED", code: "SUTRA.RUNTIME.GATEWAY.NO_PATH" };
      assert.deepEqual(await statusOf(engine.database, gated), noPathYet);
      // Retried as it is, the gateway is entered again and finds no path again.
      const unchanged = await post(engine, `/admin/instances/${gated}/retry`, "");
      assert.deepEqual(unchanged.body, { instanceId: gated, status: "WAITING", retrying: "Check" });
      await advanceTo(engine, clock, clock.now());
      assert.deepEqual(await statusOf(engine.database, gated), noPathYet);
      const fixed = await patch(engine, `/admin/instances/${gated}/variables`, {
        variables: { amount: 12.5 },
      });
      assert.equal(fixed.status, 200, JSON.stringify(fixed.body));
      const retried = await post(engine, `/admin/instances/${gated}/retry`, "");
      assert.equal(retried.status, 200, JSON.stringify(retried.body));
      await completeCharge(engine, "O-5");
      assert.ok(
        await pollUntil(() => awaitsShipping(engine, gated)),
        "the order never went on past the gateway and its charge",
      );
      const history = await get(engine, `/admin/instances/${gated}/history`);
      assert.deepEqual(
        (history.body.events as { type: string; node: string | null }[])
          .filter((e) => e.node === "Check").map((e) => e.type),
        ["instance.failed", "instance.retried", "instance.failed", "instance.retried"],
      );

      // A parallel branch the failure stopped before it ran is run on the retry too.
      await deployRevision(engine, ORDER, noPathBeside);
      const beside = await startOn(engine, "ord-start", { orderId: "O-7" });
      assert.deepEqual(await statusOf(engine.database, beside), noPathYet);
      await patch(engine, `/admin/instances/${beside}/variables`, { variables: { amount: 3 } });
      const both = await post(engine, `/admin/instances/${beside}/retry`, "");
      assert.equal(both.status, 200, JSON.stringify(both.body));
      await completeCharge(engine, "O-7");
      assert.ok(
        await pollUntil(() => awaitsShipping(engine, beside)),
        "the retried order never reached its shipping notice",
      );
      const noted = await get(engine, `/admin/instances/${beside}`);
      assert.equal((noted.body.variables as Record<string, string>).noted, "true");

      // A converging gateway cannot be entered again: the tokens it merged are gone.
      await deployRevision(engine, ORDER, joinWithNoPath);
      const joined = await startOn(engine, "ord-start", { orderId: "O-6" });
      assert.deepEqual(await statusOf(engine.database, joined), {
        status: "FAILED",
        code: "SUTRA.RUNTIME.GATEWAY.NO_PATH",
      });
      const refused = await post(engine, `/admin/instances/${joined}/retry`, "");
      assert.equal(refused.status, 409);
      assert.equal(codeOf(refused), "SUTRA.ADMIN.RETRY.UNSUPPORTED");
      assert.match(JSON.stringify(refused.body), /'Merge' is a converging inclusiveGateway/);
    });
  },
);

/** The order with its charge and its shipping notice awaited side by side. */
const forked = (bpmn: string) =>
  bpmn.replace(
    '<bpmn:sequenceFlow id="f1" sourceRef="Start" targetRef="Charge"/>',
    '<bpmn:sequenceFlow id="f1" sourceRef="Start" targetRef="Fork"/><bpmn:parallelGateway id="Fork"/>' +
      '<bpmn:sequenceFlow id="fa" sourceRef="Fork" targetRef="Charge"/>' +
      '<bpmn:sequenceFlow id="fb" sourceRef="Fork" targetRef="AwaitShip"/>',
  ).replace(
    '<bpmn:sequenceFlow id="f2" sourceRef="Charge" targetRef="AwaitShip"/>',
    '<bpmn:sequenceFlow id="f2" sourceRef="Charge" targetRef="Join"/>',
  ).replace(
    '<bpmn:sequenceFlow id="f3" sourceRef="AwaitShip" targetRef="End"/>',
    '<bpmn:sequenceFlow id="f3" sourceRef="AwaitShip" targetRef="Join"/>' +
      '<bpmn:parallelGateway id="Join"/><bpmn:sequenceFlow id="fj" sourceRef="Join" targetRef="End"/>',
  );

/** The order behind a gateway whose one condition holds only once `amount` is set. */
const noPath = (bpmn: string) =>
  bpmn.replace(
    '<bpmn:sequenceFlow id="f1" sourceRef="Start" targetRef="Charge"/>',
    '<bpmn:sequenceFlow id="f1" sourceRef="Start" targetRef="Check"/><bpmn:exclusiveGateway id="Check"/>' +
      '<bpmn:sequenceFlow id="fc" sourceRef="Check" targetRef="Charge">' +
      "<bpmn:conditionExpression>amount &gt; 0</bpmn:conditionExpression></bpmn:sequenceFlow>",
  );

/** {@link noPath} with a parallel branch beside the gateway that notes it ran. */
const noPathBeside = (bpmn: string) =>
  bpmn.replace(
    '<bpmn:sequenceFlow id="f1" sourceRef="Start" targetRef="Charge"/>',
    '<bpmn:sequenceFlow id="f1" sourceRef="Start" targetRef="Split"/><bpmn:parallelGateway id="Split"/>' +
      '<bpmn:sequenceFlow id="s1" sourceRef="Split" targetRef="Check"/><bpmn:exclusiveGateway id="Check"/>' +
      '<bpmn:sequenceFlow id="fc" sourceRef="Check" targetRef="Charge">' +
      "<bpmn:conditionExpression>amount &gt; 0</bpmn:conditionExpression></bpmn:sequenceFlow>" +
      '<bpmn:sequenceFlow id="s2" sourceRef="Split" targetRef="Note"/>' +
      '<bpmn:scriptTask id="Note" scriptFormat="feel"><bpmn:script>{noted: true}</bpmn:script></bpmn:scriptTask>' +
      '<bpmn:sequenceFlow id="s3" sourceRef="Note" targetRef="Noted"/><bpmn:endEvent id="Noted"/>',
  );

/** The order behind an inclusive split and merge, the merge leaving by a condition never true. */
const joinWithNoPath = (bpmn: string) =>
  bpmn.replace(
    '<bpmn:sequenceFlow id="f1" sourceRef="Start" targetRef="Charge"/>',
    '<bpmn:sequenceFlow id="f1" sourceRef="Start" targetRef="Split"/><bpmn:parallelGateway id="Split"/>' +
      '<bpmn:sequenceFlow id="s1" sourceRef="Split" targetRef="Merge"/>' +
      '<bpmn:sequenceFlow id="s2" sourceRef="Split" targetRef="Merge"/>' +
      '<bpmn:inclusiveGateway id="Merge"/><bpmn:sequenceFlow id="fm" sourceRef="Merge" targetRef="Charge">' +
      "<bpmn:conditionExpression>amount &gt; 0</bpmn:conditionExpression></bpmn:sequenceFlow>",
  );
