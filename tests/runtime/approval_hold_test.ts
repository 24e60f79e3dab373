/**
 * The book's approval-hold scenario against a real engine over HTTP, on
 * embedded PGlite and on the tier-2 PostgreSQL server: park, duplicate
 * refused, relay resume on the decision channel, alias retired, an
 * uncorrelated relay refused with every parked instance untouched.
 */
import assert from "node:assert/strict";
import type { RunningEngine } from "../../engine/runtime/mod.ts";
import { tier2Test, withServerDatabase } from "../support/test_database.ts";
import { bootEngine, codeOf, get, post, sealDir } from "./support.ts";

const KEY = { "x-api-key": "approval-demo-key" };
const request = (e2e: string) => ({ ApprovalRequest: { E2EId: e2e, Amount: "1500.00" } });
const decision = (e2e: string, verdict = "APPROVE") => ({
  ApprovalDecision: { E2EId: e2e, Decision: verdict },
});

async function snapshotOf(engine: RunningEngine, id: string) {
  const { rows } = await engine.database.query<{ snapshot: Uint8Array; status: string }>(
    "select snapshot, status from instances where instance_id = $1",
    [id],
  );
  return rows[0];
}

/** Runs the scenario; `journal` says whether the engine writes the audit journal. */
async function scenario(engine: RunningEngine, journal: boolean): Promise<void> {
  await engine.deployments.deploy(await sealDir("examples/approval-hold/package"));

  // 1. Park: 200, no business reply, the instance waits with its alias recorded.
  const parked = await post(engine, "/channels/approval-request", request("E2E-1"), KEY);
  assert.equal(parked.status, 200, JSON.stringify(parked.body));
  const [instance] = parked.body.instances as { instanceId: string; status: string }[];
  assert.equal(instance.status, "WAITING");
  const other = await post(engine, "/channels/approval-request", request("E2E-2"), KEY);
  const otherId = (other.body.instances as { instanceId: string }[])[0].instanceId;
  const byAlias = await get(engine, "/admin/instances/by-alias/e2eId/E2E-1");
  assert.equal(byAlias.status, 200);
  assert.deepEqual(
    (byAlias.body.instances as { instanceId: string }[]).map((i) => i.instanceId),
    [instance.instanceId],
  );

  // 2. A second request with the same E2EId while parked is refused; nothing is written.
  const duplicate = await post(engine, "/channels/approval-request", request("E2E-1"), KEY);
  assert.equal(duplicate.status, 409);
  assert.equal(codeOf(duplicate), "SUTRA.RUNTIME.ALIAS.DUPLICATE");
  const { rows: count } = await engine.database.query<{ n: number }>(
    "select count(*)::int as n from instances",
  );
  assert.equal(count[0].n, 2);

  // 5 (before 3, so the parked instances are there to be left untouched):
  // a decision for an unknown E2EId is refused and changes nothing.
  const before = await snapshotOf(engine, instance.instanceId);
  const beforeOther = await snapshotOf(engine, otherId);
  const stray = await post(engine, "/channels/approval-decision", decision("E2E-404"), KEY);
  assert.equal(stray.status, 404);
  assert.equal(codeOf(stray), "SUTRA.RUNTIME.RELAY.CORRELATION_NOT_FOUND");
  assert.deepEqual(await snapshotOf(engine, instance.instanceId), before);
  assert.deepEqual(await snapshotOf(engine, otherId), beforeOther);

  // 3. The decision on the separate channel resumes the parked instance.
  const resumed = await post(engine, "/channels/approval-decision", decision("E2E-1"), KEY);
  assert.equal(resumed.status, 200, JSON.stringify(resumed.body));
  assert.deepEqual(resumed.body.instances, [{
    instanceId: instance.instanceId,
    status: "COMPLETED",
  }]);
  const done = await get(engine, `/sutra/instances/${instance.instanceId}`);
  assert.equal(done.body.status, "COMPLETED");
  const history = await get(engine, `/admin/instances/${instance.instanceId}/history`);
  assert.equal(history.status, 200);
  const types = (history.body.events as { type: string }[]).map((e) => e.type);
  if (journal) {
    assert.equal(history.body.journal, "sql");
    assert.equal(types[0], "instance.started");
    assert.equal(types.at(-1), "instance.completed");
  } else {
    // Off by default: an empty journal that says so, and no audit rows written.
    assert.equal(history.body.journal, "off");
    assert.deepEqual(types, []);
    const { rows } = await engine.database.query<{ n: number }>(
      "select count(*)::int as n from audit_events",
    );
    assert.equal(rows[0].n, 0);
  }

  // 4. The alias was retired at completion: the same E2EId starts a new instance.
  const again = await post(engine, "/channels/approval-request", request("E2E-1"), KEY);
  assert.equal(again.status, 200, JSON.stringify(again.body));
  assert.notEqual(
    (again.body.instances as { instanceId: string }[])[0].instanceId,
    instance.instanceId,
  );
  // A second decision for the completed instance's key now reaches the new one only.
  assert.equal(await snapshotOf(engine, otherId).then((r) => r.status), "RUNNING");
}

Deno.test("approval-hold over HTTP on embedded PGlite (audit journal off)", async () => {
  const engine = await bootEngine();
  try {
    await scenario(engine, false);
  } finally {
    await engine.stop();
  }
});

tier2Test(
  "approval-hold over HTTP on PostgreSQL (audit journal on)",
  () =>
    withServerDatabase(async (_db, target) => {
      const engine = await bootEngine({
        url: target.url,
        schema: target.schema,
        env: { SUTRA_AUDIT_SQL: "true" },
      });
      try {
        await scenario(engine, true);
      } finally {
        await engine.stop();
      }
    }),
);

Deno.test("approval-hold refuses a message that breaks its schema with 422, before anything runs", async () => {
  const engine = await bootEngine();
  try {
    await engine.deployments.deploy(await sealDir("examples/approval-hold/package"));
    const count = async () =>
      (await engine.database.query<{ n: number }>("select count(*)::int as n from instances"))
        .rows[0].n;

    // A request without its E2EId starts nothing.
    const noKey = await post(engine, "/channels/approval-request", {
      ApprovalRequest: { Amount: "1500.00" },
    }, KEY);
    assert.deepEqual([noKey.status, codeOf(noKey)], [422, "SUTRA.INBOUND.VALIDATION_REJECTED"]);
    assert.match(JSON.stringify(noKey.body.diagnostics), /E2EId/);
    assert.equal(await count(), 0);

    // A decision outside the schema's enum leaves the parked instance waiting.
    const parked = await post(engine, "/channels/approval-request", request("E2E-V"), KEY);
    const id = (parked.body.instances as { instanceId: string }[])[0].instanceId;
    const before = await snapshotOf(engine, id);
    const maybe = await post(
      engine,
      "/channels/approval-decision",
      decision("E2E-V", "MAYBE"),
      KEY,
    );
    assert.deepEqual([maybe.status, codeOf(maybe)], [422, "SUTRA.INBOUND.VALIDATION_REJECTED"]);
    assert.match(JSON.stringify(maybe.body.diagnostics), /\/ApprovalDecision\/Decision/);
    assert.deepEqual(await snapshotOf(engine, id), before);
    const approved = await post(engine, "/channels/approval-decision", decision("E2E-V"), KEY);
    assert.deepEqual(approved.body.instances, [{ instanceId: id, status: "COMPLETED" }]);
  } finally {
    await engine.stop();
  }
});

Deno.test("a decision never resumes another process's instance that holds the same alias value", async () => {
  // A twin of the example under other names: its own process and channels, the same node ids
  // and the same alias name.
  await withCopies([twinNames], async ([twin]) => {
    const engine = await bootEngine();
    try {
      await engine.deployments.deploy(await sealDir("examples/approval-hold/package"));
      await engine.deployments.deploy(await sealDir(twin));
      const parked = await post(engine, "/channels/twin-request", request("E2E-T"), KEY);
      assert.equal(parked.status, 200, JSON.stringify(parked.body));
      const [held] = parked.body.instances as { instanceId: string; status: string }[];
      assert.equal(held.status, "WAITING");

      const stray = await post(engine, "/channels/approval-decision", decision("E2E-T"), KEY);
      assert.equal(stray.status, 404, JSON.stringify(stray.body));
      assert.equal(codeOf(stray), "SUTRA.RUNTIME.RELAY.CORRELATION_NOT_FOUND");
      assert.ok(
        !JSON.stringify(stray.body).includes(held.instanceId),
        "the other instance is not named",
      );
      assert.equal((await snapshotOf(engine, held.instanceId)).status, "RUNNING");

      const own = await post(engine, "/channels/twin-decision", decision("E2E-T"), KEY);
      assert.equal(own.status, 200, JSON.stringify(own.body));
      assert.equal((own.body.instances as { status: string }[])[0].status, "COMPLETED");
    } finally {
      await engine.stop();
    }
  });
});

Deno.test("a value two processes both hold resumes the instance of the process the decision is for", async () => {
  const shared = (text: string) => text.replace('unique="true"', 'unique="false"');
  await withCopies([(text) => twinNames(shared(text)), shared], async ([twin, example]) => {
    const engine = await bootEngine();
    try {
      await engine.deployments.deploy(await sealDir(example));
      await engine.deployments.deploy(await sealDir(twin));
      // The twin's instance holds the value first, so a lookup names it first.
      const first = await post(engine, "/channels/twin-request", request("E2E-S"), KEY);
      const second = await post(engine, "/channels/approval-request", request("E2E-S"), KEY);
      const [twinId, ownId] = [first, second].map((r) =>
        (r.body.instances as { instanceId: string }[])[0].instanceId
      );
      for (let n = 0; n < 2; n++) {
        // Twice: the second decision must not take a remembered holder at its word either.
        const decided = await post(engine, "/channels/approval-decision", decision("E2E-S"), KEY);
        assert.equal(decided.status, n === 0 ? 200 : 404, JSON.stringify(decided.body));
        if (n === 0) {
          assert.deepEqual(decided.body.instances, [{ instanceId: ownId, status: "COMPLETED" }]);
        }
      }
      assert.equal((await snapshotOf(engine, twinId)).status, "RUNNING");
      const twinDecided = await post(engine, "/channels/twin-decision", decision("E2E-S"), KEY);
      assert.deepEqual(twinDecided.body.instances, [{ instanceId: twinId, status: "COMPLETED" }]);
    } finally {
      await engine.stop();
    }
  });
});

/** The example's text renamed: its own process and channels, the same node ids and alias. */
function twinNames(text: string): string {
  return text.replaceAll("approval-hold", "approval-twin")
    .replaceAll("approval-request", "twin-request")
    .replaceAll("approval-decision", "twin-decision")
    .replaceAll('process id="approval"', 'process id="twin"');
}

/** Runs `use` on copies of the example package, each file's text passed through its edit. */
async function withCopies(
  edits: readonly ((text: string) => string)[],
  use: (dirs: string[]) => Promise<void>,
): Promise<void> {
  const source = new URL("../../examples/approval-hold/package/", import.meta.url).pathname;
  const dirs: string[] = [];
  try {
    for (const edit of edits) {
      const dir = await Deno.makeTempDir({ prefix: "sutra_twin_" });
      dirs.push(dir);
      for await (const entry of walkFiles(source)) {
        const text = edit(await Deno.readTextFile(`${source}${entry}`));
        await Deno.mkdir(`${dir}/${entry.split("/").slice(0, -1).join("/")}`, { recursive: true });
        await Deno.writeTextFile(`${dir}/${entry}`, text);
      }
    }
    await use(dirs);
  } finally {
    for (const dir of dirs) await Deno.remove(dir, { recursive: true });
  }
}

/** The files under `dir`, as paths relative to it. */
async function* walkFiles(dir: string, prefix = ""): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(`${dir}${prefix}`)) {
    const path = `${prefix}${entry.name}`;
    if (entry.isDirectory) yield* walkFiles(dir, `${path}/`);
    else yield path;
  }
}
