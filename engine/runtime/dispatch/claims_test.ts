import assert from "node:assert/strict";
import { NO_EFFECTS } from "../../executor/effects.ts";
import { emptyState } from "../../executor/state.ts";
import { type Database, ENGINE_MIGRATIONS, migrate } from "../../persistence/mod.ts";
import { eachDatabase } from "../../../tests/support/test_database.ts";
import { commitSteps } from "../instances/repository.ts";
import { ClaimBatcher } from "./claims.ts";

/** Parks instance `id` of `tenant` holding the unique alias e2e=`value`. */
function park(db: Database, tenant: string, id: string, value: string): Promise<void> {
  return db.transaction((tx) =>
    commitSteps(tx, [{
      tenant,
      instanceId: id,
      deploymentId: "d-1",
      processId: "p",
      state: { ...emptyState(id, "p"), status: "WAITING" },
      snapshot: `gen=1\nid=${id}\n`,
      effects: {
        ...NO_EFFECTS,
        aliasesRecorded: [{ name: "e2e", value, unique: true, onConflict: "reject" }],
      },
      outbox: [],
      journal: false,
    }])
  );
}

/** `db` counting the statements sent outside transactions (claims are). */
function counting(db: Database): { db: Database; statements: () => number } {
  let statements = 0;
  const counted = {
    ...db,
    query: (sql: string, params?: readonly unknown[]) => {
      statements++;
      return db.query(sql, params);
    },
  } as Database;
  return { db: counted, statements: () => statements };
}

async function owners(db: Database): Promise<Record<string, string | null>> {
  const { rows } = await db.query<{ instance_id: string; owner: string | null }>(
    "select instance_id, owner from instances order by instance_id",
  );
  return Object.fromEntries(rows.map((r) => [r.instance_id, r.owner]));
}

eachDatabase("claims asked at one moment are taken together, each by its owner", async (db) => {
  await migrate(db, ENGINE_MIGRATIONS);
  const ids = Array.from({ length: 12 }, (_, n) => `i-${String(n).padStart(2, "0")}`);
  for (const id of ids) await park(db, id.endsWith("1") ? "acme" : "default", id, `V-${id}`);
  const { db: counted, statements } = counting(db);
  const batcher = new ClaimBatcher(counted);
  const claimed = await Promise.all(ids.map((id, n) =>
    batcher.claim({
      tenant: id.endsWith("1") ? "acme" : "default",
      instanceId: id,
      owner: `r/lane-${n}`,
    })
  ));
  for (const [n, c] of claimed.entries()) {
    assert.ok(typeof c === "object", `claim ${n} was refused: ${c}`);
    assert.equal(c.processId, "p");
    assert.equal(c.snapshot, `gen=1\nid=${ids[n]}\n`);
  }
  assert.deepEqual(await owners(db), Object.fromEntries(ids.map((id, n) => [id, `r/lane-${n}`])));
  assert.ok(statements() < ids.length, `${statements()} statements for ${ids.length} claims`);
});

eachDatabase("a batch refuses each claim for its own reason and takes the rest", async (db) => {
  await migrate(db, ENGINE_MIGRATIONS);
  for (const id of ["free", "held", "ended", "moved", "twin"]) await park(db, "default", id, id);
  await db.query("update instances set owner = 'other/lane-0' where instance_id = 'held'");
  await db.query("update instances set status = 'COMPLETED' where instance_id = 'ended'");
  await db.query("update aliases set retired_at = now() where instance_id = 'moved'");
  const batcher = new ClaimBatcher(db);
  const claim = (instanceId: string, owner = "me/lane-0", through?: string) =>
    batcher.claim(
      {
        tenant: "default",
        instanceId,
        owner,
        ...(through ? { through: { name: "e2e", value: through } } : {}),
      },
      { staleAfterMs: 60_000 },
    );
  const outcomes = await Promise.all([
    claim("free"),
    claim("held"),
    claim("ended"),
    claim("missing"),
    claim("moved", "me/lane-1", "moved"),
    claim("twin", "me/lane-2"),
    claim("twin", "me/lane-3"),
  ]);
  const refusals = outcomes.map((o) => typeof o === "string" ? o : "taken");
  assert.deepEqual(refusals.slice(0, 5), ["taken", "held", "not-active", "missing", "moved"]);
  // Two owners asking for one instance: one takes it, the other finds it held.
  assert.deepEqual(refusals.slice(5).sort(), ["held", "taken"]);
  const after = await owners(db);
  assert.equal(after.free, "me/lane-0");
  assert.equal(after.held, "other/lane-0");
  assert.equal(after.moved, null);
  assert.ok(["me/lane-2", "me/lane-3"].includes(after.twin!));
});
