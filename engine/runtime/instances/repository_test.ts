import assert from "node:assert/strict";
import { type Effects, NO_EFFECTS, type WaitEffect } from "../../executor/effects.ts";
import { emptyState, type InstanceState } from "../../executor/state.ts";
import { type Database, ENGINE_MIGRATIONS, migrate } from "../../persistence/mod.ts";
import { eachDatabase } from "../../../tests/support/test_database.ts";
import { AliasConflictError, ClaimLostError, commitSteps, type StepCommit } from "./repository.ts";

const wait = (id: number, extra: Partial<WaitEffect> = {}): WaitEffect => ({
  id,
  kind: "message",
  purpose: "catch",
  process: "p",
  node: "decision",
  channel: "decisions",
  messageType: "Decision",
  ...extra,
});

const alias = (value: string) => ({
  name: "e2e",
  value,
  unique: true,
  onConflict: "reject" as const,
});

function step(
  tenant: string,
  instanceId: string,
  o: {
    status: InstanceState["status"];
    effects?: Partial<Effects>;
    owner?: string;
    snapshot?: string;
    failure?: InstanceState["failure"];
  },
): StepCommit {
  return {
    tenant,
    instanceId,
    deploymentId: "d-1",
    processId: "p",
    state: { ...emptyState(instanceId, "p"), status: o.status, failure: o.failure },
    snapshot: o.snapshot ?? `gen=1\nid=${instanceId}\n`,
    effects: { ...NO_EFFECTS, ...o.effects },
    outbox: [],
    owner: o.owner,
    journal: false,
  };
}

/** A parked instance of `tenant` claimed by `owner`, with wait 1 and the live alias e2e=`value`. */
async function parked(db: Database, tenant: string, id: string, owner: string, value: string) {
  await db.transaction((tx) =>
    commitSteps(tx, [
      step(tenant, id, {
        status: "WAITING",
        effects: { waitsArmed: [wait(1)], aliasesRecorded: [alias(value)] },
      }),
    ])
  );
  await db.query("update instances set owner = $3 where tenant = $1 and instance_id = $2", [
    tenant,
    id,
    owner,
  ]);
}

/** A migrated database with r-1 and r-2 parked, of the tenants given, on lanes 0 and 1. */
async function twoParked(db: Database, tenants: readonly [string, string]): Promise<void> {
  await migrate(db, ENGINE_MIGRATIONS);
  await parked(db, tenants[0], "r-1", `${tenants[0]}/lane-0`, "R1");
  await parked(db, tenants[1], "r-2", `${tenants[1]}/lane-1`, "R2");
}

async function rows(db: Database, sql: string): Promise<unknown[]> {
  return (await db.query(sql)).rows;
}

eachDatabase(
  "steps of several instances and tenants commit together, each with its own rows",
  async (db) => {
    await twoParked(db, ["a", "b"]);
    const due = Date.UTC(2030, 0, 2, 3, 4, 5);
    await db.transaction((tx) =>
      commitSteps(tx, [
        step("a", "n-1", {
          status: "WAITING",
          effects: { waitsArmed: [wait(1)], aliasesRecorded: [alias("N1")] },
        }),
        step("b", "n-2", {
          status: "FAILED",
          // A lone surrogate (JSON.parse makes them) is stored as U+FFFD, as a driver encodes it.
          failure: { code: "SUTRA.X", message: "boom \ud800", node: "task" },
          effects: { aliasesRecorded: [alias("N2")] },
        }),
        step("a", "r-1", {
          status: "COMPLETED",
          owner: "a/lane-0",
          snapshot: "var.n=s:Zoë\u0000\n",
        }),
        step("b", "r-2", {
          status: "WAITING",
          owner: "b/lane-1",
          effects: {
            waitsResolved: [1],
            waitsArmed: [wait(2, { kind: "timer", channel: undefined, due })],
            aliasesRetired: [alias("R2")],
            aliasesRecorded: [alias("R2b")],
          },
        }),
      ])
    );
    // tenant | id | status | owner | failure code and node | ended | snapshot sent as text (t/f)
    assert.deepEqual(
      await rows(
        db,
        `select concat_ws(' | ', tenant, instance_id, status, coalesce(owner, '-'),
           coalesce(failure_code || ' at ' || failure_node, '-'), ended_at is not null,
           encode(substr(snapshot, 1, 5), 'escape') = 'gen=1') as row
         from instances order by instance_id`,
      ),
      [
        { row: "a | n-1 | RUNNING | - | - | f | t" },
        { row: "b | n-2 | FAILED | - | SUTRA.X at task | t | t" },
        { row: "a | r-1 | COMPLETED | - | - | t | f" },
        { row: "b | r-2 | RUNNING | - | - | f | t" },
      ],
    );
    // The non-ASCII snapshot holds exactly its UTF-8 bytes.
    const { rows: [r1] } = await db.query<{ snapshot: Uint8Array }>(
      "select snapshot from instances where instance_id = 'r-1'",
    );
    assert.deepEqual(r1.snapshot, new TextEncoder().encode("var.n=s:Zoë\u0000\n"));
    assert.deepEqual(
      await rows(
        db,
        `select tenant, wait_id, kind, channel, due_at, detail->>'wait' as wait
         from waits order by wait_id`,
      ),
      [
        {
          tenant: "a",
          wait_id: "n-1:1",
          kind: "message",
          channel: "decisions",
          due_at: null,
          wait: "1",
        },
        {
          tenant: "b",
          wait_id: "r-2:2",
          kind: "timer",
          channel: null,
          due_at: new Date(due),
          wait: "2",
        },
      ],
    );
    assert.deepEqual(
      await rows(
        db,
        `select tenant, value, instance_id from aliases where retired_at is null order by value`,
      ),
      [
        { tenant: "a", value: "N1", instance_id: "n-1" },
        { tenant: "b", value: "R2b", instance_id: "r-2" },
      ],
    );
    assert.deepEqual(
      await rows(db, "select value from aliases where instance_id = 'n-2' order by value"),
      [{ value: "N2" }],
    );
    assert.deepEqual(
      await rows(db, "select failure_detail from instances where instance_id = 'n-2'"),
      [{ failure_detail: "boom \ufffd" }],
    );
  },
);

eachDatabase(
  "a lost claim or a held alias fails the whole set of steps, naming the step's own",
  async (db) => {
    await twoParked(db, ["a", "a"]);
    // What committing `steps` together throws.
    const failureOf = (steps: StepCommit[]) =>
      db.transaction((tx) => commitSteps(tx, steps)).then(() => undefined, (error) => error);
    const parking = (id: string, value: string) =>
      step("a", id, { status: "WAITING", effects: { aliasesRecorded: [alias(value)] } });
    const lost = await failureOf([
      parking("n-1", "N1"),
      step("a", "r-1", { status: "COMPLETED", owner: "a/lane-0" }),
      step("a", "r-2", { status: "COMPLETED", owner: "somebody-else" }),
    ]);
    assert.ok(lost instanceof ClaimLostError, String(lost));
    assert.match(lost.message, /instance r-2\b/);

    const clash = await failureOf([parking("n-1", "N1"), parking("n-2", "R1")]);
    assert.ok(clash instanceof AliasConflictError, String(clash));
    assert.equal(clash.value, "R1");

    const twice = await failureOf([parking("n-1", "N1"), parking("n-2", "N1")]);
    assert.ok(twice instanceof AliasConflictError, String(twice));
    assert.equal(twice.value, "N1");

    // Nothing of any of them was written; the parked ones are as they were.
    assert.deepEqual(
      await rows(db, "select instance_id, status, owner from instances order by instance_id"),
      [
        { instance_id: "r-1", status: "RUNNING", owner: "a/lane-0" },
        { instance_id: "r-2", status: "RUNNING", owner: "a/lane-1" },
      ],
    );
    assert.deepEqual(
      await rows(db, "select value from aliases where retired_at is null order by value"),
      [{ value: "R1" }, { value: "R2" }],
    );
  },
);
