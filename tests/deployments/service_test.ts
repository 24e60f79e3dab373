import assert from "node:assert/strict";
import { ManualClock } from "../../engine/core/mod.ts";
import { type Database, MEMORY_URL, openDatabase } from "../../engine/persistence/mod.ts";
import { createAdminGate } from "../../engine/runtime/admin_auth.ts";
import {
  createDeploymentService,
  DeploymentError,
  type DeploymentService,
} from "../../engine/runtime/deployments/mod.ts";
import * as store from "../../engine/runtime/deployments/store.ts";
import { eachDatabase } from "../support/test_database.ts";
import {
  configOf,
  migrateRuntime,
  recordingLogger,
  sealLintFailure,
  sealRevision,
  SLOT,
  TRANSPORTS,
} from "./_support.ts";

async function serviceOn(
  db: Database,
  options: { tenant?: string; clock?: ManualClock } = {},
): Promise<DeploymentService> {
  const config = await configOf();
  const { logger } = recordingLogger();
  const service = createDeploymentService({
    db,
    logger,
    clock: options.clock ?? new ManualClock("2026-01-01T00:00:00Z"),
    config,
    admin: await createAdminGate({ config, logger, env: {} }),
    transports: TRANSPORTS,
    sweepIntervalMs: 0,
    ...(options.tenant ? { tenant: options.tenant } : {}),
  });
  await service.boot();
  return service;
}

async function withService(db: Database, fn: (s: DeploymentService) => Promise<void>) {
  await migrateRuntime(db);
  const service = await serviceOn(db);
  try {
    await fn(service);
  } finally {
    await service.close();
  }
}

async function refusal(promise: Promise<unknown>): Promise<DeploymentError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof DeploymentError) return error;
    throw error;
  }
  throw new Error("expected a DeploymentError");
}

eachDatabase(
  "deploy activates, stores and registers; identical bytes are a no-op",
  (db) =>
    withService(db, async (service) => {
      const a = await sealRevision();
      let changes = 0;
      service.registry.subscribe(() => changes++);
      const first = await service.deploy(a.bytes);
      assert.equal(first.phase, "Active");
      assert.equal(first.deploymentId, a.deploymentId);
      assert.equal(first.slot, SLOT);
      assert.equal(first.unchanged, false);
      const registered = service.registry.get(a.deploymentId);
      assert.equal(registered?.status, "active");
      assert.equal(registered?.tenant, "acme");
      assert.deepEqual([...registered!.plans.keys()], ["hello"]);
      assert.equal(registered!.plans.get("hello")!.processById.get("hello")?.name, "Hello");
      assert.deepEqual(registered!.package.channels.entries?.map((c) => c.name), ["greet"]);
      assert.equal(changes, 1);

      const again = await service.deploy(a.bytes);
      assert.equal(again.unchanged, true);
      assert.equal(changes, 1);
      const { rows } = await db.query<{ n: number }>("select count(*)::int as n from deployments");
      assert.equal(rows[0].n, 1);
      const status = await service.status(a.deploymentId);
      assert.equal(status?.phase, "Active");
      assert.equal(status?.activatedAt, "2026-01-01T00:00:00.000Z");
    }),
);

eachDatabase(
  "hot-deploy drains the old revision and rollback resurrects it",
  (db) =>
    withService(db, async (service) => {
      const a = await sealRevision("Hello");
      const b = await sealRevision("Hello again");
      assert.notEqual(a.deploymentId, b.deploymentId);
      await service.deploy(a.bytes);
      const hot = await service.deploy(b.bytes);
      assert.deepEqual(hot.drained, [a.deploymentId]);
      assert.deepEqual(
        service.registry.list().map((d) => [d.deploymentId, d.status]),
        [[b.deploymentId, "active"], [a.deploymentId, "draining"]],
      );
      assert.equal((await service.status(a.deploymentId))?.phase, "Draining");

      const back = await service.deploy(a.bytes);
      assert.equal(back.unchanged, false);
      assert.deepEqual(back.drained, [b.deploymentId]);
      assert.equal(service.registry.get(a.deploymentId)?.status, "active");
      assert.equal(service.registry.get(b.deploymentId)?.status, "draining");
      const { rows } = await db.query<{ n: number }>(
        "select count(*)::int as n from deployments where status = 'active'",
      );
      assert.equal(rows[0].n, 1);
    }),
);

eachDatabase(
  "a draining revision retires only once the three-part gate holds",
  (db) =>
    withService(db, async (service) => {
      const a = await sealRevision("Hello");
      const b = await sealRevision("Hello again");
      await service.deploy(a.bytes);
      const instance = (id: string, status: string) =>
        db.query(
          `insert into instances (tenant, instance_id, deployment_id, process_id, status, snapshot)
         values ('acme', $1, $2, 'hello', $3, '\\x00')`,
          [id, a.deploymentId, status],
        );
      await instance("i-running", "RUNNING");
      await instance("i-failed", "FAILED");
      await instance("i-done", "COMPLETED");
      await db.query(
        `insert into outbox (tenant, outbox_id, deployment_id, destination, headers, body,
         idempotency_key) values ('acme', 'o1', $1, 'http://peer', '{}', '\\x00', 'k1')`,
        [a.deploymentId],
      );
      await service.deploy(b.bytes);

      assert.equal(await service.retireSweep(), 0, "running and failed instances hold it");
      await db.query("update instances set status = 'COMPLETED' where instance_id = 'i-running'");
      assert.equal(await service.retireSweep(), 0, "a failed instance still holds it");
      await db.query("update instances set status = 'TERMINATED' where instance_id = 'i-failed'");
      assert.equal(await service.retireSweep(), 0, "a pending outbox row still holds it");
      await db.query("update outbox set poisoned_at = now() where outbox_id = 'o1'");
      assert.equal(await service.retireSweep(), 1);

      assert.equal(service.registry.get(a.deploymentId), undefined);
      const status = await service.status(a.deploymentId);
      assert.equal(status?.phase, "Retired");
      assert.ok(status?.retiredAt);
      assert.equal(service.registry.get(b.deploymentId)?.status, "active");
    }),
);

eachDatabase(
  "undeploy by slot drains; by id of a draining one is accepted; unknown is 404",
  (db) =>
    withService(db, async (service) => {
      const a = await sealRevision();
      await service.deploy(a.bytes);
      const out = await service.undeploy(SLOT);
      assert.deepEqual(out, { deploymentId: a.deploymentId, slot: SLOT, phase: "Draining" });
      assert.equal(service.registry.get(a.deploymentId)?.status, "draining");
      assert.equal((await service.undeploy(a.deploymentId)).phase, "Draining");
      const unknown = await refusal(service.undeploy(SLOT));
      assert.equal(unknown.status, 404);
      assert.equal(unknown.diagnostics[0].code, "SUTRA.DEPLOY.UNKNOWN");
      assert.equal(await service.retireSweep(), 1);
      assert.equal((await refusal(service.undeploy(a.deploymentId))).status, 404);
    }),
);

eachDatabase(
  "a lint failure is refused with every finding and recorded as failed",
  (db) =>
    withService(db, async (service) => {
      const bad = await sealLintFailure();
      const error = await refusal(service.deploy(bad.bytes));
      assert.equal(error.status, 422);
      assert.equal(error.diagnostics[0].code, "SUTRA.DEPLOY.LINT_FAILED");
      assert.ok(error.diagnostics.slice(1).some((d) => d.severity === "ERROR"));
      const status = await service.status(bad.deploymentId);
      assert.equal(status?.phase, "Failed");
      assert.equal(status?.failure?.code, "SUTRA.DEPLOY.LINT_FAILED");
      assert.match(status!.failure!.detail, /carrier-pigeon/);
      assert.equal(service.registry.list().length, 0);
      // Refusing the same bytes again keeps one failed row.
      await refusal(service.deploy(bad.bytes));
      const { rows } = await db.query<{ n: number }>("select count(*)::int as n from deployments");
      assert.equal(rows[0].n, 1);
    }),
);

eachDatabase(
  "a tampered or malformed archive is refused and nothing is stored",
  (db) =>
    withService(db, async (service) => {
      const a = await sealRevision();
      const tampered = a.bytes.slice();
      // Flip a byte inside the stored (uncompressed or deflated) payload area.
      tampered[200] ^= 0xff;
      for (const bytes of [tampered, new TextEncoder().encode("not a zip")]) {
        const error = await refusal(service.deploy(bytes));
        assert.equal(error.status, 400);
        assert.ok(error.diagnostics.every((d) => d.code.startsWith("SUTRA.")));
        assert.ok(error.diagnostics.length > 0);
      }
      const { rows } = await db.query<{ n: number }>("select count(*)::int as n from deployments");
      assert.equal(rows[0].n, 0);
    }),
);

eachDatabase("boot loads the active and draining set from the database", async (db) => {
  await migrateRuntime(db);
  const a = await sealRevision("Hello");
  const b = await sealRevision("Hello again");
  const first = await serviceOn(db);
  await first.deploy(a.bytes);
  await first.deploy(b.bytes);
  await first.close();

  const second = await serviceOn(db);
  try {
    assert.deepEqual(
      second.registry.list().map((d) => [d.deploymentId, d.status]),
      [[b.deploymentId, "active"], [a.deploymentId, "draining"]],
    );
    assert.ok(second.registry.get(a.deploymentId)?.plans.has("hello"));
  } finally {
    await second.close();
  }
});

/** Waits (bounded) until `check` holds. */
async function eventually(check: () => boolean | Promise<boolean>): Promise<void> {
  for (let i = 0; i < 500 && !(await check()); i++) await new Promise((r) => setTimeout(r, 10));
}

/** Waits (bounded) until `service` reports `phase` for `id`. */
async function settles(service: DeploymentService, id: string, phase: string): Promise<void> {
  await eventually(async () => (await service.status(id))?.phase === phase);
  assert.equal((await service.status(id))?.phase, phase);
}

eachDatabase(
  "async deploy answers Pending and settles to Active",
  (db) =>
    withService(db, async (service) => {
      const a = await sealRevision();
      const pending = await service.deploy(a.bytes, { async: true });
      assert.equal(pending.phase, "Pending");
      assert.equal((await service.status(a.deploymentId))?.phase, "Pending");
      await settles(service, a.deploymentId, "Active");
      assert.equal((await service.deploy(a.bytes, { async: true })).phase, "Active");
    }),
);

eachDatabase(
  "async deploy of a failing package settles to Failed",
  (db) =>
    withService(db, async (service) => {
      const bad = await sealLintFailure();
      assert.equal((await service.deploy(bad.bytes, { async: true })).phase, "Pending");
      await settles(service, bad.deploymentId, "Failed");
      const status = await service.status(bad.deploymentId);
      assert.equal(status?.phase, "Failed");
      assert.equal(status?.failure?.code, "SUTRA.DEPLOY.LINT_FAILED");
    }),
);

eachDatabase("an async deploy is recorded before it is answered, for every replica", async (db) => {
  await migrateRuntime(db);
  const accepting = await serviceOn(db);
  const other = await serviceOn(db);
  try {
    const a = await sealRevision();
    assert.equal((await accepting.deploy(a.bytes, { async: true })).phase, "Pending");
    // The row exists the moment 202 is answered: the other replica never says 404.
    assert.ok(["Pending", "Active"].includes((await other.status(a.deploymentId))?.phase ?? ""));
    await settles(other, a.deploymentId, "Active");
    const { rows } = await db.query<{ pending_since: Date | null }>(
      "select pending_since from deployments where deployment_id = $1",
      [a.deploymentId],
    );
    assert.deepEqual(rows, [{ pending_since: null }]);
  } finally {
    await accepting.close();
    await other.close();
  }
});

eachDatabase("a pending deploy whose replica died is taken over after the window", async (db) => {
  await migrateRuntime(db);
  const clock = new ManualClock("2026-01-01T00:00:00Z");
  const a = await sealRevision();
  assert.equal(
    await store.markPending(db, store.newDeployment(a), "dead-replica", new Date(clock.now())),
    true,
  );
  // A second mark (a retried async call) starts nothing new.
  assert.equal(
    await store.markPending(db, store.newDeployment(a), "other", new Date(clock.now())),
    false,
  );
  clock.advance(10_000);
  const survivor = await serviceOn(db, { clock });
  try {
    assert.equal((await survivor.status(a.deploymentId))?.phase, "Pending");
    assert.equal(
      await survivor.resumePending(),
      0,
      "inside the window the activation is left alone",
    );
    assert.equal(survivor.registry.get(a.deploymentId), undefined);
    clock.advance(60_000);
    assert.equal(await survivor.resumePending(), 1);
    assert.equal(await survivor.resumePending(), 0, "a taken-over activation is stamped anew");
    await settles(survivor, a.deploymentId, "Active");
    // The registry follows the flip once the activation has announced it.
    await eventually(() => survivor.registry.get(a.deploymentId) !== undefined);
    assert.equal(survivor.registry.get(a.deploymentId)?.status, "active");
  } finally {
    await survivor.close();
  }
});

/**
 * Leaves `row` pending as a replica that died mid-activation would, then
 * boots a replica after the takeover window; answers it and its clock.
 */
async function bootAfterDeadReplica(db: Database, row: store.NewDeployment) {
  await migrateRuntime(db);
  const clock = new ManualClock("2026-01-01T00:00:00Z");
  await store.markPending(db, row, "dead-replica", new Date(clock.now()));
  clock.advance(61_000);
  return { service: await serviceOn(db, { clock }), clock };
}

eachDatabase("a pending deploy whose stored archive is unreadable fails once", async (db) => {
  const a = await sealRevision();
  const broken = { ...store.newDeployment(a), archive: new Uint8Array([1, 2, 3]) };
  const { service: survivor, clock } = await bootAfterDeadReplica(db, broken);
  try {
    const status = await survivor.status(a.deploymentId);
    assert.equal(status?.phase, "Failed");
    assert.equal(status?.failure?.code, "SUTRA.DEPLOY.LOAD_FAILED");
    clock.advance(61_000);
    assert.equal(await survivor.resumePending(), 0, "it is not taken over again");
  } finally {
    await survivor.close();
  }
});

eachDatabase("a replica booting after the window finishes a stale pending deploy", async (db) => {
  const bad = await sealLintFailure();
  const { service: restarted } = await bootAfterDeadReplica(db, store.newDeployment(bad));
  try {
    await settles(restarted, bad.deploymentId, "Failed");
    assert.equal(
      (await restarted.status(bad.deploymentId))?.failure?.code,
      "SUTRA.DEPLOY.LINT_FAILED",
    );
  } finally {
    await restarted.close();
  }
});

eachDatabase(
  "a draining revision re-deployed async keeps serving while it is pending",
  (db) =>
    withService(db, async (service) => {
      const a = await sealRevision();
      const b = await sealRevision("Hello again");
      await service.deploy(a.bytes);
      await service.deploy(b.bytes);
      assert.equal(service.registry.get(a.deploymentId)?.status, "draining");
      await store.markPending(
        db,
        store.newDeployment(a),
        "dead-replica",
        new Date("2026-01-01T00:00:00Z"),
      );
      assert.equal((await service.status(a.deploymentId))?.phase, "Pending");
      // A replica loading the set now still serves it to its pinned instances.
      const booted = await serviceOn(db);
      try {
        assert.equal(booted.registry.get(a.deploymentId)?.status, "draining");
      } finally {
        await booted.close();
      }
    }),
);

eachDatabase("a tenant-scoped engine refuses another tenant's archive", async (db) => {
  await migrateRuntime(db);
  const service = await serviceOn(db, { tenant: "globex" });
  try {
    const error = await refusal(service.deploy((await sealRevision()).bytes));
    assert.equal(error.status, 422);
    assert.equal(error.diagnostics[0].code, "SUTRA.DEPLOY.TENANT_MISMATCH");
    const { rows } = await db.query<{ n: number }>("select count(*)::int as n from deployments");
    assert.equal(rows[0].n, 0);
  } finally {
    await service.close();
  }
});

eachDatabase(
  "another replica converges on a deploy through NOTIFY",
  async (db) => {
    await migrateRuntime(db);
    const one = await serviceOn(db);
    const two = await serviceOn(db);
    try {
      const a = await sealRevision();
      const changed = new Promise<void>((resolve) => two.registry.subscribe(resolve));
      await one.deploy(a.bytes);
      await changed;
      assert.equal(two.registry.get(a.deploymentId)?.status, "active");
    } finally {
      await one.close();
      await two.close();
    }
  },
);

eachDatabase(
  "concurrent deploys into one slot leave exactly one active revision",
  (db) =>
    withService(db, async (service) => {
      const revisions = await Promise.all(["r1", "r2", "r3"].map((r) => sealRevision(r)));
      const results = await Promise.all(revisions.map((r) => service.deploy(r.bytes)));
      assert.ok(results.every((r) => r.phase === "Active"));
      const { rows } = await db.query<{ status: string; n: number }>(
        "select status, count(*)::int as n from deployments group by status order by status",
      );
      assert.deepEqual(rows, [{ status: "active", n: 1 }, { status: "draining", n: 2 }]);
      const listed = service.registry.list();
      assert.equal(listed.filter((d) => d.status === "active").length, 1);
      assert.equal(listed.length, 3);
    }),
);

Deno.test("the sweep timer retires a quiescent draining revision on its own", async () => {
  const db = await openDatabase(MEMORY_URL);
  await migrateRuntime(db);
  const config = await configOf({ SUTRA_DEPLOYMENTS_SWEEP_INTERVAL: "PT0.05S" });
  const { logger } = recordingLogger();
  const service = createDeploymentService({
    db,
    logger,
    clock: new ManualClock("2026-01-01T00:00:00Z"),
    config,
    admin: await createAdminGate({ config, logger, env: {} }),
    transports: TRANSPORTS,
  });
  try {
    await service.boot();
    const a = await sealRevision();
    await service.deploy(a.bytes);
    await service.undeploy(SLOT);
    for (let i = 0; i < 100 && service.registry.list().length > 0; i++) {
      await new Promise((r) => setTimeout(r, 20));
    }
    assert.equal((await service.status(a.deploymentId))?.phase, "Retired");
    assert.equal(service.registry.list().length, 0);
  } finally {
    await service.close();
    await db.close();
  }
});

eachDatabase("a stored deployment this build cannot load is logged and not served", async (db) => {
  await migrateRuntime(db);
  const first = await serviceOn(db);
  const a = await sealRevision();
  await first.deploy(a.bytes);
  await first.close();

  const config = await configOf();
  const { logger, lines } = recordingLogger();
  // A build that links no http transport cannot run the fixture's channel.
  const second = createDeploymentService({
    db,
    logger,
    clock: new ManualClock(0),
    config,
    admin: await createAdminGate({ config, logger, env: {} }),
    sweepIntervalMs: 0,
  });
  try {
    await second.boot();
    assert.equal(second.registry.list().length, 0);
    const failure = lines().find((l) => l.code === "SUTRA.DEPLOY.LOAD_FAILED");
    assert.equal(failure?.deploymentId, a.deploymentId);
    assert.equal((await second.status(a.deploymentId))?.phase, "Active", "the row is untouched");
  } finally {
    await second.close();
  }
});

/** The completion events queued in the outbox: destination, type and data. */
async function completionEvents(db: Database) {
  const { rows } = await db.query<{ destination: string; body: Uint8Array; content_type: string }>(
    "select destination, body, content_type from outbox order by destination",
  );
  return rows.map((r) => {
    const event = JSON.parse(new TextDecoder().decode(r.body));
    assert.equal(r.content_type, "application/cloudevents+json");
    return { destination: r.destination, type: event.type, data: event.data };
  });
}

eachDatabase(
  "a taken-over deploy still sends the completion event its caller asked for",
  async (db) => {
    await migrateRuntime(db);
    const clock = new ManualClock("2026-01-01T00:00:00Z");
    const a = await sealRevision();
    const row = store.newDeployment(a);
    await store.markPending(db, row, "dead-replica", new Date(clock.now()), [
      "https://hooks.example/deployed",
    ]);
    // A second caller of the same pending deploy adds its own destination.
    assert.equal(await store.addNotify(db, row, ["https://other.example/hook"]), true);
    clock.advance(120_000);
    // Booting past the takeover window, the survivor takes the activation over.
    const survivor = await serviceOn(db, { clock });
    try {
      await settles(survivor, a.deploymentId, "Active");
      const data = {
        deploymentId: a.deploymentId,
        slot: SLOT,
        revision: "1.0.0",
        status: "Active",
      };
      assert.deepEqual(await completionEvents(db), [
        {
          destination: "https://hooks.example/deployed",
          type: "com.sutra.deployment.activated",
          data,
        },
        { destination: "https://other.example/hook", type: "com.sutra.deployment.activated", data },
      ]);
      // Sent once: the destinations went with the settled row.
      await survivor.deploy(a.bytes);
      assert.equal((await completionEvents(db)).length, 2);
    } finally {
      await survivor.close();
    }
  },
);
