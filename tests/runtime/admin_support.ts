/**
 * Helpers for the admin tests: revisions of the admin fixtures sealed with
 * one edit to their BPMN (each a new deployment of the same slot), a pull
 * worker completing an order's charge, and PATCH.
 *
 * @module
 */
import "../../io/transports/mod.ts";
import assert from "node:assert/strict";
import { transports } from "../../engine/core/transport.ts";
import { readPackageDir, sealPackage } from "../../engine/package/mod.ts";
import type { RunningEngine } from "../../engine/runtime/mod.ts";
import { type Answer, post } from "./support.ts";
import { pollUntil } from "./timers_support.ts";

/** An order whose one 5 s charge attempt is a pull task, then a wait for the shipping notice. */
export const ORDER = "tests/fixtures/runtime/admin_order";
/** A booking owed compensation, then a multi-instance body of two one-hour timers. */
export const BODIES = "tests/fixtures/runtime/admin_bodies";

/** Seals `fixture` with `edit` applied to its BPMN file, as a new revision of the same slot. */
export async function revision(
  fixture: string,
  edit: (bpmn: string) => string,
): Promise<Uint8Array> {
  const root = new URL(`../../${fixture}/`, import.meta.url).pathname;
  const dir = await Deno.makeTempDir({ prefix: "sutra-admin-revision-" });
  try {
    for (const name of ["package.yaml", "channels.yaml"]) {
      await Deno.copyFile(`${root}${name}`, `${dir}/${name}`);
    }
    await Deno.mkdir(`${dir}/bpmn`);
    for await (const e of Deno.readDir(`${root}bpmn`)) {
      const text = await Deno.readTextFile(`${root}bpmn/${e.name}`);
      const edited = edit(text);
      assert.notEqual(edited, text, "the edit changed the model");
      await Deno.writeTextFile(`${dir}/bpmn/${e.name}`, edited);
    }
    const read = await readPackageDir(dir);
    assert.ok(read.files, read.diagnostics.map((d) => d.message).join("\n"));
    const sealed = await sealPackage(read.files, { transports });
    assert.ok(sealed.archive, sealed.diagnostics.map((d) => `${d.code} ${d.message}`).join("\n"));
    return sealed.archive.bytes;
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** Deploys a revision (it becomes active; the previous one drains) and answers its id. */
export async function deployRevision(
  engine: RunningEngine,
  fixture: string,
  edit: (bpmn: string) => string,
): Promise<string> {
  return (await engine.deployments.deploy(await revision(fixture, edit))).deploymentId;
}

/** Fetches the one pending charge task, checks it is `orderId`'s and completes it. */
export async function completeCharge(engine: RunningEngine, orderId: string): Promise<void> {
  let tasks: { id: string; body: string }[] = [];
  assert.ok(
    await pollUntil(async () => {
      const fetched = await post(engine, "/sutra/external-tasks/fetch-and-lock", {
        workerId: "w-1",
        channels: ["ord-charge"],
        lockDuration: "PT1M",
      });
      tasks = fetched.body as unknown as { id: string; body: string }[];
      return Array.isArray(tasks) && tasks.length > 0;
    }),
    "no charge task was parked",
  );
  assert.deepEqual(tasks.map((t) => JSON.parse(t.body)), [{ orderId }]);
  const done = await post(engine, `/sutra/external-tasks/${tasks[0].id}/complete`, {
    workerId: "w-1",
    result: { orderId, charged: true },
  });
  assert.equal(done.status, 200, JSON.stringify(done.body));
}

/** Waits until instance `id` is parked at `node`. */
export async function parkedAt(engine: RunningEngine, id: string, node: string): Promise<void> {
  assert.ok(
    await pollUntil(async () =>
      (await engine.database.query(
        "select 1 from waits where instance_id = $1 and node_id = $2",
        [id, node],
      )).rows.length > 0
    ),
    `instance ${id} never parked at ${node}`,
  );
}

/** PATCHes `body` as JSON. */
export async function patch(engine: RunningEngine, path: string, body: unknown): Promise<Answer> {
  const response = await fetch(`${engine.url}${path}`, {
    method: "PATCH",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: await response.json(), headers: response.headers };
}
