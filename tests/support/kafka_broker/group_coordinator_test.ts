import assert from "node:assert/strict";
import {
  GroupCoordinator,
  ILLEGAL_GENERATION,
  type JoinRequest,
  REBALANCE_IN_PROGRESS,
  UNKNOWN_MEMBER_ID,
} from "./group_coordinator.ts";

function request(memberId = "", clientId = "c"): JoinRequest {
  return {
    group: "g",
    memberId,
    clientId,
    sessionTimeoutMs: 10_000,
    rebalanceTimeoutMs: 10_000,
    protocols: [{ name: "RoundRobinAssigner", metadata: new Uint8Array([1]) }],
  };
}

Deno.test("a second member joining starts a new generation; leaving starts another", async () => {
  const groups = new GroupCoordinator();
  try {
    const a = await groups.join(request());
    assert.equal(a.generation, 1);
    assert.equal(a.leader, a.memberId);
    const assignment = new Uint8Array([9]);
    assert.deepEqual(
      await groups.sync("g", 1, a.memberId, [{ memberId: a.memberId, assignment }]),
      { error: 0, assignment },
    );
    assert.equal(groups.heartbeat("g", 1, a.memberId), 0);
    // b joins: the group waits for a to rejoin, which its heartbeat tells it to do.
    const bJoining = groups.join(request("", "b"));
    assert.equal(groups.heartbeat("g", 1, a.memberId), REBALANCE_IN_PROGRESS);
    assert.equal(groups.commitCheck("g", 1, a.memberId), 0);
    const [a2, b] = await Promise.all([groups.join(request(a.memberId)), bJoining]);
    assert.equal(a2.generation, 2);
    assert.equal(b.generation, 2);
    assert.equal(a2.members.length, 2);
    assert.equal(b.members.length, 0);
    assert.equal(groups.commitCheck("g", 1, a.memberId), REBALANCE_IN_PROGRESS);
    const syncs = Promise.all([
      groups.sync("g", 2, b.memberId, []),
      groups.sync("g", 2, a.memberId, [
        { memberId: a.memberId, assignment: new Uint8Array([1]) },
        { memberId: b.memberId, assignment: new Uint8Array([2]) },
      ]),
    ]);
    const [bSync, aSync] = await syncs;
    assert.deepEqual([...bSync.assignment], [2]);
    assert.deepEqual([...aSync.assignment], [1]);
    assert.equal(groups.commitCheck("g", 1, a.memberId), ILLEGAL_GENERATION);
    assert.equal(groups.leave("g", b.memberId), 0);
    assert.equal(groups.heartbeat("g", 2, b.memberId), UNKNOWN_MEMBER_ID);
    assert.equal(groups.heartbeat("g", 2, a.memberId), REBALANCE_IN_PROGRESS);
    assert.equal((await groups.join(request(a.memberId))).generation, 3);
    assert.equal(groups.describe("g").members, 1);
  } finally {
    groups.close();
  }
});

Deno.test("a member that stops heartbeating is dropped after its session timeout", async () => {
  const groups = new GroupCoordinator();
  try {
    const a = await groups.join({ ...request(), sessionTimeoutMs: 50 });
    await groups.sync("g", 1, a.memberId, []);
    for (let i = 0; i < 200 && groups.describe("g").members > 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    assert.equal(groups.describe("g").members, 0);
    assert.equal(groups.heartbeat("g", 1, a.memberId), UNKNOWN_MEMBER_ID);
  } finally {
    groups.close();
  }
});
