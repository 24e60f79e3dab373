/**
 * One status vocabulary on every surface (docs/runtime.md, Instance status):
 * a parked instance is WAITING in the channel's reply, on the operate and
 * admin views, on a duplicate delivery's answer, and TERMINATED once
 * cancelled.
 */
import assert from "node:assert/strict";
import { bootEngine, get, post, sealDir } from "./support.ts";

Deno.test("a parked instance reads WAITING on the channel reply, the operate and admin views", async () => {
  const engine = await bootEngine();
  try {
    await engine.deployments.deploy(await sealDir("examples/approval-hold/package"));
    const key = { "x-api-key": "approval-demo-key" };
    const start = { ApprovalRequest: { E2EId: "E2E-S", Amount: "1.00" } };
    const parked = await post(engine, "/channels/approval-request", start, key);
    const [reply] = parked.body.instances as { instanceId: string; status: string }[];
    assert.equal(reply.status, "WAITING");
    const id = reply.instanceId;

    assert.equal((await get(engine, `/sutra/instances/${id}`)).body.status, "WAITING");
    assert.equal((await get(engine, `/admin/instances/${id}`)).body.status, "WAITING");
    const byAlias = await get(engine, `/admin/instances/by-alias/e2eId/E2E-S`);
    assert.deepEqual(
      (byAlias.body.instances as { status: string }[]).map((i) => i.status),
      ["WAITING"],
    );

    await post(engine, `/admin/instances/${id}/cancel`, "");
    assert.equal((await get(engine, `/sutra/instances/${id}`)).body.status, "TERMINATED");
  } finally {
    await engine.stop();
  }
});

Deno.test("a duplicate delivery is answered in the same words as the first", async () => {
  const engine = await bootEngine();
  try {
    await engine.deployments.deploy(await sealDir("tests/fixtures/runtime/typed_hold"));
    const start = {
      msgId: "M-1",
      ref: "D-1",
      amount: 1,
      approved: true,
      tags: [],
      due: "2026-01-01",
    };
    const first = await post(engine, "/channels/typed-request", start);
    const again = await post(engine, "/channels/typed-request", start);
    assert.equal(first.status, 200, JSON.stringify(first.body));
    assert.deepEqual(again.body.instances, first.body.instances);
    assert.equal((first.body.instances as { status: string }[])[0].status, "WAITING");
  } finally {
    await engine.stop();
  }
});
