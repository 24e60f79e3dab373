/**
 * The pull sink behind the real outbox worker, on PGlite and (tier 2)
 * PostgreSQL: a delivery moves from the outbox to `external_tasks` in one
 * transaction, stamped with its owner and stripped of the reserved headers.
 */
import assert from "node:assert/strict";
import "./mod.ts";
import "../http/mod.ts";
import { createLogger } from "../../../engine/core/mod.ts";
import { Registry } from "../../../engine/core/registry.ts";
import { collectSinks, type ParkingSink, type Sink } from "../../../engine/core/transport.ts";
import { type Database, ENGINE_MIGRATIONS, migrate } from "../../../engine/persistence/mod.ts";
import { retireQuiescent } from "../../../engine/runtime/deployments/store.ts";
import { OutboxWorker } from "../../../engine/runtime/outbox/worker.ts";
import { eachDatabase } from "../../../tests/support/test_database.ts";
import { pullSink } from "./sink.ts";

const quiet = createLogger("outbox", { filter: "error", write: () => {} });

function worker(db: Database, sinks: Registry<Sink> = collectSinks()) {
  return new OutboxWorker({ db, sinks, logger: quiet, owner: "replica-test", pollMs: 10 });
}

async function enqueue(
  db: Database,
  row: { id: string; destination: string; deployment?: string; headers: Record<string, string> },
): Promise<void> {
  await db.query(
    `insert into outbox (outbox_id, instance_id, deployment_id, destination, headers, body,
                         content_type, idempotency_key)
     values ($1, 'inst-1', $2, $3, $4, $5, 'application/json', $6)`,
    [
      row.id,
      row.deployment ?? null,
      row.destination,
      row.headers,
      new TextEncoder().encode(`{"id":"${row.id}"}`),
      `key-${row.id}`,
    ],
  );
}

const FORGED = {
  ref: "R-1",
  "sutra-park-deployment": "forged",
  "Sutra-Park-Instance": "forged",
};

eachDatabase(
  "pull sink: the delivery is parked with its owner and the outbox row is gone",
  async (db) => {
    await migrate(db, ENGINE_MIGRATIONS);
    await enqueue(db, {
      id: "o-1",
      destination: "pull://t/score",
      deployment: "dep-1",
      headers: FORGED,
    });
    assert.equal(await worker(db).drainOnce(), 1);
    assert.equal((await db.query("select 1 from outbox")).rowCount, 0);
    const { rows } = await db.query(
      `select deployment_id, instance_id, destination, headers, content_type, idempotency_key,
            retries_left, terminal from external_tasks`,
    );
    assert.deepEqual(rows, [{
      deployment_id: "dep-1",
      instance_id: "inst-1",
      destination: "pull://t/score",
      headers: { ref: "R-1" },
      content_type: "application/json",
      idempotency_key: "key-o-1",
      retries_left: null,
      terminal: false,
    }]);
  },
);

eachDatabase(
  "pull sink: a delivery with no owning deployment is poisoned, not parked",
  async (db) => {
    await migrate(db, ENGINE_MIGRATIONS);
    await enqueue(db, { id: "o-2", destination: "pull://t/score", headers: FORGED });
    await worker(db).drainOnce();
    const { rows } = await db.query<{ last_error: string; poisoned: boolean }>(
      "select last_error, poisoned_at is not null as poisoned from outbox",
    );
    assert.equal(rows[0].poisoned, true);
    assert.match(rows[0].last_error, /SUTRA\.EXTERNAL_TASK\.PARK_UNATTRIBUTED/);
    assert.equal((await db.query("select 1 from external_tasks")).rowCount, 0);
  },
);

eachDatabase("pull sink: a park whose outbox claim was lost meanwhile rolls back", async (db) => {
  await migrate(db, ENGINE_MIGRATIONS);
  await enqueue(db, { id: "o-3", destination: "pull://t/score", deployment: "dep-1", headers: {} });
  // Another replica takes the row over while this one is parking it.
  const racing: ParkingSink = {
    name: "pull",
    kind: "park",
    async park(message, tx) {
      await tx.query("update outbox set claimed_by = 'replica-other'");
      return await pullSink.park(message, tx);
    },
  };
  const sinks = new Registry<Sink>("sink");
  sinks.register(racing);
  await worker(db, sinks).drainOnce();
  // The whole transaction rolled back: no task, and the row is left as the claim left it.
  assert.equal((await db.query("select 1 from external_tasks")).rowCount, 0);
  const { rows } = await db.query<{ last_error: string | null; poisoned: boolean }>(
    "select last_error, poisoned_at is not null as poisoned from outbox",
  );
  assert.deepEqual(rows, [{ last_error: null, poisoned: false }]);
});

eachDatabase("reserved headers never leave on a network sink", async (db) => {
  await migrate(db, ENGINE_MIGRATIONS);
  const seen: string[][] = [];
  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen: () => {} }, (r) => {
    seen.push([...r.headers.keys()].filter((h) => h.startsWith("sutra-park") || h === "ref"));
    return new Response(null, { status: 204 });
  });
  try {
    await enqueue(db, {
      id: "o-4",
      destination: `http://127.0.0.1:${server.addr.port}/hook`,
      deployment: "dep-1",
      headers: FORGED,
    });
    assert.equal(await worker(db).drainOnce(), 1);
    assert.deepEqual(seen, [["ref"]]);
  } finally {
    await server.shutdown();
  }
});

eachDatabase(
  "a parked, non-terminal task keeps its draining deployment from retiring",
  async (db) => {
    await migrate(db, ENGINE_MIGRATIONS);
    await db.query(
      `insert into deployments (deployment_id, slot, labels, manifest, archive, status)
     values ('dep-1', 'test/pull', '{}', '{}', '\\x00', 'draining')`,
    );
    await enqueue(db, {
      id: "o-5",
      destination: "pull://t/score",
      deployment: "dep-1",
      headers: {},
    });
    await worker(db).drainOnce();
    assert.deepEqual(await retireQuiescent(db, undefined, new Date()), []);
    await db.query("update external_tasks set terminal = true");
    const retired = await retireQuiescent(db, undefined, new Date());
    assert.deepEqual(retired.map((r) => r.deploymentId), ["dep-1"]);
  },
);
