/**
 * One channel feeding several waits (BPMN 2.0.2 §10.5.1: a message goes to
 * the node that waits for it): a note for a case reaches the user task
 * while the case waits there, the message catch after it once the case
 * waits there instead, and a memo's receive task in another process, on
 * PGlite and on the tier-2 server.
 */
import assert from "node:assert/strict";
import { tier2Test, withServerDatabase } from "../support/test_database.ts";
import { bootEngine, type BootOptions, post, sealDir } from "./support.ts";

async function notes(target: BootOptions): Promise<void> {
  const engine = await bootEngine(target);
  try {
    await engine.deployments.deploy(await sealDir("tests/fixtures/runtime/shared_channel"));
    const opened = await post(engine, "/channels/open-case", { id: "C-1" });
    assert.equal(opened.status, 200, JSON.stringify(opened.body));
    const first = await post(engine, "/channels/case-note", { id: "C-1", text: "one" });
    assert.equal(first.status, 200, JSON.stringify(first.body));
    assert.equal((first.body.instances as { status: string }[])[0].status, "WAITING");
    // The same channel and key, now for the catch the case waits at.
    const second = await post(engine, "/channels/case-note", { id: "C-1", text: "two" });
    assert.equal(second.status, 200, JSON.stringify(second.body));
    assert.equal((second.body.instances as { status: string }[])[0].status, "COMPLETED");
    const third = await post(engine, "/channels/case-note", { id: "C-1", text: "three" });
    assert.equal(third.status, 404, "nothing waits any more");
    // Another process's wait on the same channel is reached as well.
    const jotted = await post(engine, "/channels/open-memo", { id: "M-1" });
    assert.equal(jotted.status, 200, JSON.stringify(jotted.body));
    const filed = await post(engine, "/channels/case-note", { id: "M-1", text: "memo" });
    assert.equal(filed.status, 200, JSON.stringify(filed.body));
    assert.equal((filed.body.instances as { status: string }[])[0].status, "COMPLETED");
  } finally {
    await engine.stop();
  }
}

Deno.test("a channel feeding two waits reaches the one the instance waits at [pglite]", () =>
  notes({}));

tier2Test(
  "a channel feeding two waits reaches the one the instance waits at [postgres]",
  () => withServerDatabase((_db, target) => notes(target)),
);
