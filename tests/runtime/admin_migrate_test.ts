/**
 * Instance migration on a real engine (PGlite and the tier-2 server). The
 * targets are revisions of the admin fixtures, each edited one way, so
 * every pair differs in exactly what it tests: for each locus kind — a
 * token, a message wait, a timer, an alias, a multi-instance body, a
 * compensation entry — one compatible and one incompatible target. A dry
 * run writes nothing; every violation comes back at once; a FAILED
 * instance resumed on a repaired revision completes there, and the
 * draining revision retires once its last instance has moved; a migration
 * meeting a held claim bounces without writing, and one racing a resume
 * leaves the instance whole on one revision or the other.
 */
import assert from "node:assert/strict";
import { ManualClock } from "../../engine/core/mod.ts";
import type { RunningEngine } from "../../engine/runtime/mod.ts";
import { type Answer, get, post } from "./support.ts";
import { BODIES, completeCharge, deployRevision, ORDER, parkedAt } from "./admin_support.ts";
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

const migrate = (engine: RunningEngine, id: string, body: unknown) =>
  post(engine, `/admin/instances/${id}/migrate`, body);

/** The codes and loci of a refusal. */
function violations(answer: Answer): string[] {
  return (answer.body.diagnostics as {
    code: string;
    severity: string;
    attributes?: { locus?: string; node?: string };
  }[])
    .filter((d) => d.severity === "ERROR")
    .map((d) =>
      `${d.code.replace("SUTRA.ADMIN.MIGRATE.", "")} ${d.attributes?.locus ?? ""} ${
        d.attributes?.node ?? ""
      }`.trim()
    )
    .sort();
}

/** What a migration may change: the pin, the snapshot and the wait rows. */
async function footprint(engine: RunningEngine, id: string): Promise<string> {
  const { rows } = await engine.database.query<Record<string, unknown>>(
    `select i.deployment_id, i.process_id, i.status, encode(i.snapshot, 'hex') as snapshot,
        (select string_agg(w.wait_id || '@' || w.node_id, ',' order by w.wait_id)
           from waits w where w.instance_id = i.instance_id) as waits
       from instances i where i.instance_id = $1`,
    [id],
  );
  return JSON.stringify(rows);
}

async function pinOf(engine: RunningEngine, id: string): Promise<string> {
  const { rows } = await engine.database.query<{ deployment_id: string }>(
    "select deployment_id from instances where instance_id = $1",
    [id],
  );
  return rows[0].deployment_id;
}

const renameCharge = (bpmn: string) =>
  bpmn.replaceAll('"Charge"', '"ChargeV2"').replace('sourceRef="Charge"', 'sourceRef="ChargeV2"')
    .replace('targetRef="Charge"', 'targetRef="ChargeV2"');

eachTarget("token, message wait, timer and alias loci: compatible and not", async (target) => {
  const clock = new ManualClock(T0);
  await withEngine({ target, clock }, async (engine) => {
    const v1 = await deployDir(engine, ORDER);
    // Parked at Charge: a token, the response wait on ord-charge, the q:timeout timer, alias orderId.
    const id = await startOn(engine, "ord-start", { orderId: "M-1" });

    const renamed = await deployRevision(engine, ORDER, renameCharge);
    const unmapped = await migrate(engine, id, { targetDeploymentId: renamed });
    assert.equal(unmapped.status, 422);
    assert.deepEqual(violations(unmapped), [
      "NODE_UNMAPPED timer Charge",
      "NODE_UNMAPPED token Charge",
      "NODE_UNMAPPED wait Charge",
    ]);
    const typo = await migrate(engine, id, {
      targetDeploymentId: renamed,
      nodeMapping: { Charge: "ChargeV2", Chrage: "ChargeV2" },
    });
    assert.deepEqual(violations(typo), ["MAPPING_INVALID  Chrage"]);

    const noTimeout = await deployRevision(
      engine,
      ORDER,
      (b) =>
        b.replace('<q:timeout duration="PT5S"/>', "")
          .replace('<q:retry maxAttempts="1" initialDelay="PT1S"/>', ""),
    );
    assert.deepEqual(violations(await migrate(engine, id, { targetDeploymentId: noTimeout })), [
      "NODE_INCOMPATIBLE timer Charge",
    ]);
    const otherChannel = await deployRevision(
      engine,
      ORDER,
      (b) =>
        b.replace('implementation="channel:ord-charge"', 'implementation="channel:ord-ship"')
          .replace(
            '<q:source channel="ord-charge" name="charge">',
            '<q:source channel="ord-ship" name="charge">',
          ),
    );
    assert.deepEqual(violations(await migrate(engine, id, { targetDeploymentId: otherChannel })), [
      "NODE_INCOMPATIBLE wait Charge",
    ]);
    const noAlias = await deployRevision(
      engine,
      ORDER,
      (b) => b.replaceAll('name="orderId"', 'name="orderRef"'),
    );
    assert.deepEqual(violations(await migrate(engine, id, { targetDeploymentId: noAlias })), [
      "ALIAS_UNDECLARED alias orderId",
    ]);
    const elsewhere = await migrate(engine, id, { targetDeploymentId: v1 });
    assert.deepEqual(violations(elsewhere), ["TARGET_NOT_ACTIVE"], "v1 is draining");
    const absent = await migrate(engine, id, {
      targetDeploymentId: noAlias,
      targetProcessId: "nope",
    });
    assert.deepEqual(violations(absent), ["PROCESS_ABSENT"]);
    // Re-homed into another process: identity is never implied across the boundary.
    const rehomed = await deployRevision(
      engine,
      ORDER,
      (b) => b.replace('<bpmn:process id="order"', '<bpmn:process id="orderV2"'),
    );
    const implicit = await migrate(engine, id, {
      targetDeploymentId: rehomed,
      targetProcessId: "orderV2",
    });
    assert.deepEqual(violations(implicit), [
      "CROSS_PROCESS_UNMAPPED timer Charge",
      "CROSS_PROCESS_UNMAPPED token Charge",
      "CROSS_PROCESS_UNMAPPED wait Charge",
    ]);
    const explicit = await migrate(engine, id, {
      targetDeploymentId: rehomed,
      targetProcessId: "orderV2",
      nodeMapping: { Charge: "Charge" },
      dryRun: true,
    });
    assert.equal(explicit.body.outcome, "VALID", JSON.stringify(explicit.body));

    // The compatible target: the rename, mapped. A dry run writes nothing.
    const fixed = await deployRevision(
      engine,
      ORDER,
      (b) => renameCharge(b).replace("one attempt", "one try"),
    );
    const before = await footprint(engine, id);
    const dry = await migrate(engine, id, {
      targetDeploymentId: fixed,
      nodeMapping: { Charge: "ChargeV2" },
      dryRun: true,
    });
    assert.equal(dry.status, 200, JSON.stringify(dry.body));
    assert.equal(dry.body.outcome, "VALID");
    assert.ok(violations(dry).length === 0);
    assert.equal(await footprint(engine, id), before, "a dry run writes nothing");

    const moved = await migrate(engine, id, {
      targetDeploymentId: fixed,
      nodeMapping: { Charge: "ChargeV2" },
    });
    assert.equal(moved.status, 200, JSON.stringify(moved.body));
    assert.equal(moved.body.outcome, "MIGRATED");
    assert.equal(moved.body.resumed, false);
    assert.equal(await pinOf(engine, id), fixed);
    const { rows: waits } = await engine.database.query<
      { node_id: string; kind: string; due_at: Date | null }
    >(
      "select node_id, kind, due_at from waits where instance_id = $1 order by kind",
      [id],
    );
    assert.deepEqual(waits.map((w) => [w.kind, w.node_id]), [["message", "ChargeV2"], [
      "timer",
      "ChargeV2",
    ]]);
    assert.equal(waits[1].due_at?.getTime(), T0 + 5_000, "the timer keeps its due instant");
    const same = await migrate(engine, id, { targetDeploymentId: fixed });
    assert.deepEqual(violations(same), ["TARGET_SAME_AS_SOURCE"]);

    // It runs on: the worker's answer and the shipping notice complete it on the new revision.
    await completeCharge(engine, "M-1");
    await parkedAt(engine, id, "AwaitShip");
    assert.equal((await post(engine, "/channels/ord-ship", { orderId: "M-1" })).status, 200);
    assert.equal((await get(engine, `/sutra/instances/${id}`)).body.status, "COMPLETED");
    const newer = await deployRevision(
      engine,
      ORDER,
      (b) => renameCharge(b).replace("one attempt", "a single attempt"),
    );
    const terminal = await migrate(engine, id, { targetDeploymentId: newer });
    assert.deepEqual(violations(terminal), ["INSTANCE_TERMINAL"]);
    const history = await get(engine, `/admin/instances/${id}`);
    assert.equal(history.body.deploymentId, fixed);
  });
});

eachTarget(
  "multi-instance body and compensation entry loci: compatible and not",
  async (target) => {
    const clock = new ManualClock(T0);
    await withEngine({ target, clock }, async (engine) => {
      await deployDir(engine, BODIES);
      const id = await startOn(engine, "bod-start", {});
      const plain = await deployRevision(engine, BODIES, (b) =>
        b.replace(
          /<bpmn:multiInstanceLoopCharacteristics[^]*?<\/bpmn:multiInstanceLoopCharacteristics>/,
          "",
        ));
      assert.deepEqual(violations(await migrate(engine, id, { targetDeploymentId: plain })), [
        "NODE_INCOMPATIBLE multi-instance body Fan",
      ]);
      const uncompensated = await deployRevision(
        engine,
        BODIES,
        (b) => b.replace(/<bpmn:boundaryEvent id="UndoBook"[^]*?<bpmn:association[^>]*\/>/, ""),
      );
      assert.deepEqual(
        violations(await migrate(engine, id, { targetDeploymentId: uncompensated })),
        [
          "NODE_INCOMPATIBLE compensation entry Book",
        ],
      );
      const same = await deployRevision(
        engine,
        BODIES,
        (b) => b.replace("an hour", "sixty minutes"),
      );
      const moved = await migrate(engine, id, { targetDeploymentId: same });
      assert.equal(moved.body.outcome, "MIGRATED", JSON.stringify(moved.body));
      // Both bodies' timers moved with it and still fire: the instance completes on the new pin.
      await advanceTo(engine, clock, T0 + 3_600_000);
      assert.ok(
        await pollUntil(async () => (await statusOf(engine.database, id)).status === "COMPLETED"),
      );
      assert.equal(await pinOf(engine, id), same);
    });
  },
);

eachTarget(
  "a FAILED instance resumed on a repaired revision completes; the old one retires",
  async (target) => {
    const clock = new ManualClock(T0);
    await withEngine(
      { target, clock, env: { SUTRA_DEPLOYMENTS_SWEEP_INTERVAL: "PT0.05S" } },
      async (engine) => {
        const v1 = await deployDir(engine, ORDER);
        const failed = await startOn(engine, "ord-start", { orderId: "F-1" });
        const live = await startOn(engine, "ord-start", { orderId: "F-2" });
        await advanceTo(engine, clock, T0 + 5_000);
        assert.equal((await statusOf(engine.database, failed)).status, "FAILED");
        assert.equal((await statusOf(engine.database, live)).status, "FAILED");
        // F-2 is repaired first by a retry in place, so only F-1 is left to migrate.
        assert.equal((await post(engine, `/admin/instances/${live}/retry`, "")).status, 200);
        await completeCharge(engine, "F-2");
        await parkedAt(engine, live, "AwaitShip");
        const repaired = await deployRevision(
          engine,
          ORDER,
          (b) => b.replace('duration="PT5S"', 'duration="PT1H"'),
        );
        const notFailed = await migrate(engine, live, {
          targetDeploymentId: repaired,
          resume: true,
        });
        assert.deepEqual(violations(notFailed), ["RESUME_NOT_FAILED"]);

        const batch = await post(engine, "/admin/instances/migrate", {
          targetDeploymentId: repaired,
          filter: { sourceDeploymentId: v1, status: "FAILED" },
          resume: true,
        });
        assert.equal(batch.status, 200, JSON.stringify(batch.body));
        assert.deepEqual(batch.body.totals, {
          MIGRATED: 1,
          VALID: 0,
          REFUSED: 0,
          BOUNCED: 0,
          FAILED: 0,
        });
        const [verdict] = batch.body.instances as { instanceId: string; resumed: boolean }[];
        assert.deepEqual([verdict.instanceId, verdict.resumed], [failed, true]);
        // Back among the live (the poller may be running its retry already).
        assert.equal((await statusOf(engine.database, failed)).status, "RUNNING");
        await completeCharge(engine, "F-1");
        await parkedAt(engine, failed, "AwaitShip");
        assert.equal((await post(engine, "/channels/ord-ship", { orderId: "F-1" })).status, 200);
        assert.deepEqual(await statusOf(engine.database, failed), {
          status: "COMPLETED",
          code: null,
        });
        assert.equal(await pinOf(engine, failed), repaired);

        // v1 still holds the live F-2: it drains until that one moves too.
        const deployments = async () =>
          Object.fromEntries(
            ((await get(engine, "/admin/deployments")).body.deployments as {
              deploymentId: string;
              status: string;
              instances: { live: number };
            }[])
              .map((d) => [d.deploymentId, `${d.status}/${d.instances.live}`]),
          );
        assert.equal((await deployments())[v1], "draining/1");
        const rest = await post(engine, "/admin/instances/migrate", {
          targetDeploymentId: repaired,
          filter: { sourceDeploymentId: v1 },
        });
        assert.deepEqual(rest.body.totals, {
          MIGRATED: 1,
          VALID: 0,
          REFUSED: 0,
          BOUNCED: 0,
          FAILED: 0,
        });
        assert.ok(
          await pollUntil(async () => (await deployments())[v1] === "retired/0"),
          "v1 never retired",
        );
      },
    );
  },
);

eachTarget(
  "a held claim bounces a migration; a racing resume leaves the instance whole",
  async (target) => {
    const clock = new ManualClock(T0);
    await withEngine({ target, clock }, async (engine) => {
      await deployDir(engine, ORDER);
      const ids: string[] = [];
      for (const orderId of ["C-1", "C-2", "C-3", "C-4"]) {
        const id = await startOn(engine, "ord-start", { orderId });
        ids.push(id);
        await completeCharge(engine, orderId);
        await parkedAt(engine, id, "AwaitShip");
      }
      const next = await deployRevision(engine, ORDER, (b) => b.replace("one attempt", "one try"));
      // A lane holding the claim: the migration bounces and writes nothing.
      await engine.database.query(
        "update instances set owner = 'replica-x/lane-0' where instance_id = $1",
        [ids[0]],
      );
      const before = await footprint(engine, ids[0]);
      const bounced = await migrate(engine, ids[0], { targetDeploymentId: next });
      assert.equal(bounced.status, 409);
      assert.deepEqual(violations(bounced), ["CLAIM_HELD"]);
      assert.equal(await footprint(engine, ids[0]), before);
      await engine.database.query("update instances set owner = null where instance_id = $1", [
        ids[0],
      ]);

      // Resumes racing migrations: each instance ends COMPLETED exactly once, on one pin or the other.
      const outcomes = await Promise.all(ids.map(async (id, i) => {
        const [ship, moved] = await Promise.all([
          post(engine, "/channels/ord-ship", { orderId: `C-${i + 1}` }),
          migrate(engine, id, { targetDeploymentId: next }),
        ]);
        assert.equal(ship.status, 200, JSON.stringify(ship.body));
        assert.ok([200, 409, 422].includes(moved.status), JSON.stringify(moved.body));
        return moved.body.outcome;
      }));
      for (const id of ids) {
        assert.deepEqual(await statusOf(engine.database, id), { status: "COMPLETED", code: null });
        const { rows } = await engine.database.query<{ n: number }>(
          "select count(*)::int as n from audit_events where instance_id = $1 and event_type = 'instance.completed'",
          [id],
        );
        assert.ok(rows[0].n <= 1, "completed at most once in the journal");
      }
      assert.ok(outcomes.every((o) => ["MIGRATED", "REFUSED", "BOUNCED"].includes(String(o))));
    });
  },
);

Deno.test("malformed and self-contradicting migration requests are refused before anything runs", async () => {
  const clock = new ManualClock(T0);
  await withEngine({ target: { url: "memory://" }, clock }, async (engine) => {
    const bad = await post(engine, "/admin/instances/x/migrate", {
      targetDeploymentId: 7,
      nodeMapping: { A: 1 },
      dryRun: "yes",
      extra: true,
    });
    assert.equal(bad.status, 400);
    assert.deepEqual(
      (bad.body.diagnostics as { attributes: { field: string } }[]).map((d) => d.attributes.field)
        .sort(),
      ["dryRun", "extra", "nodeMapping.A", "targetDeploymentId"],
    );
    const contradictions = await post(engine, "/admin/instances/migrate", {
      targetDeploymentId: "d",
      targetProcessId: "p",
      resume: true,
      filter: { sourceDeploymentId: "s", status: "SUSPENDED" },
    });
    assert.equal(contradictions.status, 400);
    assert.deepEqual(
      (contradictions.body.diagnostics as { code: string }[]).map((d) => d.code),
      ["SUTRA.ADMIN.MIGRATE.REQUEST_CONTRADICTS", "SUTRA.ADMIN.MIGRATE.REQUEST_CONTRADICTS"],
    );
    const notActive = await post(engine, "/admin/instances/migrate", {
      targetDeploymentId: "nothing-here",
      filter: { sourceDeploymentId: "s" },
    });
    assert.equal(notActive.status, 422);
    assert.equal(
      (notActive.body.diagnostics as { code: string }[])[0].code,
      "SUTRA.ADMIN.MIGRATE.TARGET_NOT_ACTIVE",
    );
  });
});
