/**
 * Tier 2 (PostgreSQL): two engine processes on one database, four workers
 * (two per engine) fetching at once. No task is handed out twice while its
 * lock lives, every task is handed out, and every completion lands —
 * whichever engine parked the task and whichever one the worker asks.
 */
import assert from "node:assert/strict";
import { type EngineChild, spawnEngine } from "../support/engine_process.ts";
import { tier2Test, withServerDatabase } from "../support/test_database.ts";
import { sealDir } from "./support.ts";

const FLOWS = 60;

async function call(port: number, path: string, body: unknown): Promise<Response> {
  return await fetch(`http://127.0.0.1:${port}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
}

async function startFlow(port: number, ref: string): Promise<void> {
  // The second engine learns of the deployment through the database; until then it answers 404.
  for (let i = 0; i < 100; i++) {
    const r = await call(port, "/channels/pc-start", { ref, amount: 1 });
    await r.body?.cancel();
    if (r.status === 200) return;
    assert.equal(r.status, 404);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  assert.fail(`flow ${ref} could not be started on port ${port}`);
}

/** Fetches until three long polls in a row come back empty; returns every task id received. */
async function work(port: number, workerId: string): Promise<string[]> {
  const seen: string[] = [];
  for (let empty = 0; empty < 3;) {
    const r = await call(port, "/sutra/external-tasks/fetch-and-lock", {
      workerId,
      channels: ["pc-score"],
      maxTasks: 3,
      lockDuration: "PT5M",
      asyncResponseTimeout: "PT1S",
    });
    assert.equal(r.status, 200);
    const tasks = await r.json() as { id: string }[];
    seen.push(...tasks.map((t) => t.id));
    empty = tasks.length === 0 ? empty + 1 : 0;
  }
  return seen;
}

tier2Test(
  "two engine processes, four workers: no task is handed out twice under a live lock",
  () =>
    withServerDatabase(async (db, target) => {
      const dir = await Deno.makeTempDir({ prefix: "sutra-pull-" });
      const env = {
        SUTRA_DATASOURCE_URL: target.url,
        SUTRA_DATASOURCE_SCHEMA: target.schema,
        SUTRA_ADMIN_OIDC_DEV_DISABLED: "true",
        SUTRA_OUTBOX_POLL_INTERVAL: "PT0.05S",
      };
      const engines: EngineChild[] = [
        spawnEngine({ cwd: dir, env }),
        spawnEngine({ cwd: dir, env }),
      ];
      try {
        const ports = await Promise.all(engines.map((e) => e.started));
        const deployed = await fetch(`http://127.0.0.1:${ports[0]}/admin/deployments`, {
          method: "POST",
          headers: { "content-type": "application/zip" },
          body: (await sealDir("tests/fixtures/runtime/pull_call")).slice(),
        });
        assert.equal(deployed.status, 200, await deployed.text());

        const workers = [
          work(ports[0], "a-1"),
          work(ports[0], "a-2"),
          work(ports[1], "b-1"),
          work(ports[1], "b-2"),
        ];
        for (let i = 0; i < FLOWS; i++) await startFlow(ports[i % 2], `R-${i}`);
        const received = (await Promise.all(workers)).flat();

        assert.equal(new Set(received).size, received.length, "a task was handed out twice");
        assert.equal(received.length, FLOWS);

        const answers = await Promise.all(received.map(async (id, i) => {
          const { rows } = await db.query<{ lock_owner: string; body: Uint8Array }>(
            "select lock_owner, body from external_tasks where task_id = $1",
            [id],
          );
          const request = JSON.parse(new TextDecoder().decode(rows[0].body));
          const r = await call(ports[i % 2], `/sutra/external-tasks/${id}/complete`, {
            workerId: rows[0].lock_owner,
            result: { ref: request.ref, score: i },
          });
          await r.body?.cancel();
          return r.status;
        }));
        assert.deepEqual(answers.filter((s) => s !== 200), []);
        const { rows } = await db.query<{ n: number }>(
          "select count(*)::int as n from instances where status = 'COMPLETED'",
        );
        assert.deepEqual(rows, [{ n: FLOWS }]);
      } finally {
        for (const e of engines) e.kill("SIGTERM");
        for (const e of engines) await e.exited;
        await Deno.remove(dir, { recursive: true });
      }
    }),
);
