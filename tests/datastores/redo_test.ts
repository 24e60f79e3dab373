/**
 * Replaying a step's lost store writes (`engine/datastore/redo.ts`) on every
 * provider: writes whose mark the store holds are left alone, missing ones
 * are applied back, and a key another step wrote since makes the replay
 * write nothing and say which key moved.
 */
import assert from "node:assert/strict";
import { replayInto } from "../../engine/datastore/mod.ts";
import { eachProvider } from "./_providers.ts";

const mark = (redoId: string) => ({ redoId, at: Date.now() });

eachProvider("a replay finds committed writes by their mark and leaves them", async (kit) => {
  const ds = await kit.open("ledger");
  await ds.put("alice", { balance: 100 });
  const m = mark("r-committed");
  // The step: its writes and its mark, committed together.
  const tx = await ds.connection.begin();
  await tx.put("alice", { balance: 90 }, { expectRev: 1 });
  assert.equal(await tx.mark(m), true);
  await tx.commit();
  const outcome = await replayInto(ds, m, [{ key: "alice", value: { balance: 90 }, from: 1 }]);
  assert.deepEqual(outcome, { kind: "present" });
  assert.deepEqual(await ds.get("alice"), { value: { balance: 90 }, rev: 2 });
});

eachProvider("a replay applies lost writes once, and finds them the second time", async (kit) => {
  const ds = await kit.open("ledger");
  await ds.put("alice", { balance: 100 });
  const m = mark("r-lost");
  const writes = [
    { key: "alice", value: { balance: 90 }, from: 1 },
    { key: "bob", value: { balance: 10 }, from: 0 },
  ];
  assert.deepEqual(await replayInto(ds, m, writes), { kind: "applied" });
  assert.deepEqual(await ds.get("alice"), { value: { balance: 90 }, rev: 2 });
  assert.deepEqual(await ds.get("bob"), { value: { balance: 10 }, rev: 1 });
  // Replayed again (the engine died before it deleted its row): nothing happens twice.
  assert.deepEqual(await replayInto(ds, m, writes), { kind: "present" });
  assert.deepEqual(await ds.get("alice"), { value: { balance: 90 }, rev: 2 });
});

eachProvider("a key written since makes the replay write nothing", async (kit) => {
  const ds = await kit.open("ledger");
  await ds.put("alice", { balance: 100 });
  await ds.put("alice", { balance: 80 }); // another step, after the lost one
  const m = mark("r-moved");
  const outcome = await replayInto(ds, m, [
    { key: "carol", value: { balance: 1 }, from: 0 },
    { key: "alice", value: { balance: 90 }, from: 1 },
  ]);
  assert.deepEqual(outcome, { kind: "diverged", key: "alice", from: 1 });
  assert.equal(await ds.get("carol"), undefined, "the whole replay rolled back");
  assert.deepEqual(await ds.get("alice"), { value: { balance: 80 }, rev: 2 });
  // A key created since counts as moved too.
  await ds.put("dave", "theirs");
  const created = await replayInto(ds, mark("r-created"), [
    { key: "dave", value: "ours", from: 0 },
  ]);
  assert.deepEqual(created, { kind: "diverged", key: "dave", from: 0 });
  assert.deepEqual(await ds.get("dave"), { value: "theirs", rev: 1 });
  // Nothing was recorded: a later replay of the same row answers the same.
  assert.deepEqual(
    await replayInto(ds, m, [{ key: "alice", value: { balance: 90 }, from: 1 }]),
    { kind: "diverged", key: "alice", from: 1 },
  );
});
