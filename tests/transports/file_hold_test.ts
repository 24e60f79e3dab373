/**
 * A file channel on `ack-mode: on-complete` keeps a file claimed until the
 * instance it started has ended, and a transient refusal (a full channel)
 * leaves the file claimed for a later try instead of failing it.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { bootEngine, post, until } from "../runtime/support.ts";
import { claimed, drop, fileDirs, filePackage, filesIn } from "./file_support.ts";

Deno.test("on-complete: a file moves to done/ when its instance ends; a full channel retries it", async () => {
  const dirs = await fileDirs();
  const done = join(dirs.inbox, "done");
  const processing = join(dirs.inbox, "processing");
  const engine = await bootEngine();
  const statuses = async () =>
    (await engine.database.query<{ status: string }>(
      "select status from instances order by created_at",
    )).rows.map((r) => r.status);
  try {
    await engine.deployments.deploy(await filePackage(dirs, "file_hold"));
    await drop(dirs.inbox, "a.json", { orderId: "A" });
    await until(async () => (await statuses()).length === 1);
    // The channel is full while A waits: B is claimed, refused as overloaded, and kept.
    await drop(dirs.inbox, "b.json", { orderId: "B" });
    await until(async () => (await claimed(processing)).length === 2);
    assert.deepEqual(await filesIn(done), [], "A's instance has not ended");
    assert.deepEqual(await filesIn(join(dirs.inbox, "failed")), []);
    assert.deepEqual(await statuses(), ["RUNNING"]);

    assert.equal((await post(engine, "/channels/fh-release", { orderId: "A" })).status, 200);
    await until(async () => (await filesIn(done)).includes("a.json"));
    // A's slot is free: B's retry starts its instance, and B waits in turn.
    await until(async () => (await statuses()).length === 2);
    assert.deepEqual(await filesIn(done), ["a.json"]);
    assert.deepEqual(await claimed(processing), ["b.json"]);

    assert.equal((await post(engine, "/channels/fh-release", { orderId: "B" })).status, 200);
    await until(async () => (await filesIn(done)).length === 2);
    assert.deepEqual(await claimed(processing), []);
    assert.deepEqual(await filesIn(join(dirs.inbox, "failed")), []);
  } finally {
    await engine.stop();
    await Deno.remove(dirs.root, { recursive: true });
  }
});
