/**
 * The pull worker surface end to end on a real engine (in-memory PGlite):
 * requests parked by the pull sink, fetched and locked by workers over
 * HTTP, completed back through the intake path, failed down to terminal,
 * and every refusal a worker can meet.
 */
import assert from "node:assert/strict";
import { DiagnosticError } from "../../engine/core/mod.ts";
import type { RunningEngine } from "../../engine/runtime/mod.ts";
import { type Answer, bootEngine, codeOf, get, post, sealDir } from "./support.ts";

const PACKAGE = "tests/fixtures/runtime/pull_call";
// The outbox worker parks promptly, so a test waits on the surface, not on a poll.
const FAST_OUTBOX = { SUTRA_OUTBOX_POLL_INTERVAL: "PT0.02S" };

interface Task {
  id: string;
  channel: string;
  instanceId: string;
  headers: Record<string, string>;
  body: string;
  contentType: string;
  attempts: number;
  retriesLeft: number;
  lockExpiresAt: string;
}

async function withEngine(
  fn: (engine: RunningEngine) => Promise<void>,
  env: Record<string, string> = {},
): Promise<void> {
  const engine = await bootEngine({ env: { ...FAST_OUTBOX, ...env } });
  try {
    await engine.deployments.deploy(await sealDir(PACKAGE));
    await fn(engine);
  } finally {
    await engine.stop();
  }
}

async function startFlow(engine: RunningEngine, ref: string): Promise<string> {
  const started = await post(engine, "/channels/pc-start", { ref, amount: 120 });
  assert.equal(started.status, 200, JSON.stringify(started.body));
  return (started.body.instances as { instanceId: string }[])[0].instanceId;
}

/** One fetch; a long poll when `wait` is given. */
async function fetchTasks(
  engine: RunningEngine,
  workerId: string,
  channel: string,
  extra: Record<string, unknown> = {},
): Promise<Task[]> {
  const answer = await post(engine, "/sutra/external-tasks/fetch-and-lock", {
    workerId,
    channels: [channel],
    ...extra,
  });
  assert.equal(answer.status, 200, JSON.stringify(answer.body));
  return answer.body as unknown as Task[];
}

/** Long-polls until one task arrives (the poll is bounded; an empty answer fails the test). */
async function fetchOne(
  engine: RunningEngine,
  workerId: string,
  channel: string,
  extra: Record<string, unknown> = {},
): Promise<Task> {
  const tasks = await fetchTasks(engine, workerId, channel, {
    asyncResponseTimeout: "PT10S",
    maxTasks: 1,
    ...extra,
  });
  assert.equal(tasks.length, 1, `no task arrived on ${channel}`);
  return tasks[0];
}

function complete(engine: RunningEngine, id: string, body: Record<string, unknown>) {
  return post(engine, `/sutra/external-tasks/${encodeURIComponent(id)}/complete`, body);
}

function failure(engine: RunningEngine, id: string, body: Record<string, unknown>) {
  return post(engine, `/sutra/external-tasks/${encodeURIComponent(id)}/failure`, body);
}

async function instanceStatus(engine: RunningEngine, id: string): Promise<string> {
  return (await get(engine, `/sutra/instances/${id}`)).body.status as string;
}

function codes(answer: Answer): string[] {
  return (answer.body.diagnostics as { code: string }[]).map((d) => d.code);
}

Deno.test("fetch and complete: the result resumes the instance through its q:alias", async () => {
  await withEngine(async (engine) => {
    const instanceId = await startFlow(engine, "R-1");
    const task = await fetchOne(engine, "scorer-1", "pc-score");
    assert.equal(task.channel, "pc-score");
    assert.equal(task.instanceId, instanceId);
    assert.deepEqual(JSON.parse(task.body), { ref: "R-1", amount: 120 });
    assert.equal(task.contentType, "application/json");
    assert.deepEqual([task.attempts, task.retriesLeft], [1, 3]);
    const done = await complete(engine, task.id, {
      workerId: "scorer-1",
      result: { ref: "R-1", score: 710 },
    });
    assert.equal(done.status, 200, JSON.stringify(done.body));
    assert.deepEqual(done.body.instances, [{ instanceId, status: "COMPLETED" }]);
    assert.equal(await instanceStatus(engine, instanceId), "COMPLETED");
    const report = await fetchOne(engine, "reporter", "pc-done");
    assert.deepEqual(JSON.parse(report.body), { ref: "R-1", score: 710 });
    const { rows } = await engine.database.query<{ task_id: string }>(
      "select task_id from external_tasks",
    );
    assert.deepEqual(rows.map((r) => r.task_id), [report.id]);
  });
});

Deno.test("reserved park headers never reach a worker, and a forged copy has no effect", async () => {
  await withEngine(async (engine) => {
    const instanceId = await startFlow(engine, "R-H");
    const task = await fetchOne(engine, "w", "pc-score");
    // The model set sutra-park-deployment itself; the outbox's own stamp won and was stripped.
    assert.deepEqual(task.headers, { ref: "R-H" });
    const { rows } = await engine.database.query<{ deployment_id: string; instance_id: string }>(
      "select deployment_id, instance_id from external_tasks where task_id = $1",
      [task.id],
    );
    const [deployment] = engine.deployments.registry.list();
    assert.deepEqual(rows, [{ deployment_id: deployment.deploymentId, instance_id: instanceId }]);
  });
});

Deno.test("fire-and-forget: a completion without a result re-delivers the request", async () => {
  await withEngine(async (engine) => {
    const instanceId = await startFlow(engine, "R-2");
    const task = await fetchOne(engine, "w", "pc-score");
    const done = await complete(engine, task.id, { workerId: "w" });
    assert.equal(done.status, 200, JSON.stringify(done.body));
    assert.equal(await instanceStatus(engine, instanceId), "COMPLETED");
    const report = await fetchOne(engine, "w", "pc-done");
    assert.deepEqual(JSON.parse(report.body), { ref: "R-2", score: null });
  });
});

Deno.test("an inbound refusal answers 422 with the engine's code and leaves the task fetchable", async () => {
  await withEngine(async (engine) => {
    await startFlow(engine, "R-3");
    const task = await fetchOne(engine, "w", "pc-score");
    await complete(engine, task.id, { workerId: "w", result: { ref: "R-3", score: 1 } });
    // Nothing consumes pc-done: its completion can only be refused.
    const report = await fetchOne(engine, "w", "pc-done");
    const refused = await complete(engine, report.id, { workerId: "w" });
    assert.equal(refused.status, 422);
    const [first] = refused.body.diagnostics as {
      code: string;
      attributes: Record<string, string>;
    }[];
    assert.equal(first.code, "SUTRA.EXTERNAL_TASK.COMPLETION_REFUSED");
    assert.equal(first.attributes.causeCode, "SUTRA.RUNTIME.DISPATCH.NO_MATCH");
    const again = await fetchTasks(engine, "other", "pc-done");
    assert.deepEqual(again.map((t) => [t.id, t.attempts]), [[report.id, 2]]);
  });
});

Deno.test("a completion for an instance another step holds is deferred with Retry-After; the lock stays", async () => {
  await withEngine(async (engine) => {
    const instanceId = await startFlow(engine, "R-9");
    const task = await fetchOne(engine, "w", "pc-score");
    // A replica that died mid-step still holds the instance's claim.
    await engine.database.query(
      "update instances set owner = 'gone/lane-0' where instance_id = $1",
      [
        instanceId,
      ],
    );
    const busy = await complete(engine, task.id, {
      workerId: "w",
      result: { ref: "R-9", score: 2 },
    });
    assert.equal(busy.status, 503, JSON.stringify(busy.body));
    assert.equal(busy.headers.get("retry-after"), "1");
    assert.deepEqual(codes(busy).slice(0, 2), [
      "SUTRA.EXTERNAL_TASK.COMPLETION_DEFERRED",
      "SUTRA.RUNTIME.RESUME.CLAIM_HELD",
    ]);
    assert.deepEqual(await fetchTasks(engine, "other", "pc-score"), [], "the lock is still w's");
    await engine.database.query("update instances set owner = null where instance_id = $1", [
      instanceId,
    ]);
    const done = await complete(engine, task.id, {
      workerId: "w",
      result: { ref: "R-9", score: 2 },
    });
    assert.equal(done.status, 200, JSON.stringify(done.body));
  });
});

Deno.test("failures spend the budget down to terminal; a terminal task is never fetched", async () => {
  await withEngine(async (engine) => {
    await startFlow(engine, "R-4");
    let task = await fetchOne(engine, "w", "pc-score");
    const left: unknown[] = [];
    for (let i = 0; i < 3; i++) {
      if (i > 0) task = await fetchOne(engine, "w", "pc-score");
      const failed = await failure(engine, task.id, {
        workerId: "w",
        errorMessage: `downstream 500 #${i + 1}`,
        retryTimeout: "PT0S",
      });
      assert.equal(failed.status, 200, JSON.stringify(failed.body));
      left.push([failed.body.retriesLeft, failed.body.terminal]);
    }
    assert.deepEqual(left, [[2, false], [1, false], [0, true]]);
    assert.deepEqual(await fetchTasks(engine, "w", "pc-score"), []);
    const { rows } = await engine.database.query<{ last_error: string; terminal: boolean }>(
      "select last_error, terminal from external_tasks where task_id = $1",
      [task.id],
    );
    assert.deepEqual(rows, [{ last_error: "downstream 500 #3", terminal: true }]);
    const late = await complete(engine, task.id, { workerId: "w" });
    assert.deepEqual([late.status, codeOf(late)], [409, "SUTRA.EXTERNAL_TASK.TERMINAL"]);
    const lateFailure = await failure(engine, task.id, { workerId: "w", errorMessage: "x" });
    assert.deepEqual([lateFailure.status, codeOf(lateFailure)], [
      409,
      "SUTRA.EXTERNAL_TASK.TERMINAL",
    ]);
  });
});

Deno.test("a failure may set the budget and defers the next fetch by the retry timeout", async () => {
  await withEngine(async (engine) => {
    await startFlow(engine, "R-5");
    const task = await fetchOne(engine, "w", "pc-score");
    const failed = await failure(engine, task.id, {
      workerId: "w",
      errorMessage: "busy",
      retries: 7,
    });
    assert.deepEqual([failed.body.retriesLeft, failed.body.terminal], [7, false]);
    // The default retry timeout (PT10S) holds the task back.
    assert.deepEqual(await fetchTasks(engine, "w", "pc-score"), []);
    await engine.database.query("update external_tasks set fetchable_at = now()");
    const again = await fetchOne(engine, "w", "pc-score");
    assert.deepEqual([again.id, again.retriesLeft], [task.id, 7]);
    const spent = await failure(engine, task.id, { workerId: "w", errorMessage: "no", retries: 0 });
    assert.deepEqual([spent.body.retriesLeft, spent.body.terminal], [0, true]);
  });
});

Deno.test("lock expiry: a second worker takes the task, the first one's completion is refused", async () => {
  await withEngine(async (engine) => {
    const instanceId = await startFlow(engine, "R-6");
    const first = await fetchOne(engine, "slow", "pc-score", { lockDuration: "PT0.2S" });
    // The second worker's long poll is answered once the first lock lapses.
    const second = await fetchOne(engine, "fast", "pc-score");
    assert.equal(second.id, first.id);
    const stale = await complete(engine, first.id, { workerId: "slow", result: { ref: "R-6" } });
    assert.deepEqual([stale.status, codeOf(stale)], [409, "SUTRA.EXTERNAL_TASK.LOCK_EXPIRED"]);
    const staleFailure = await failure(engine, first.id, { workerId: "slow", errorMessage: "x" });
    assert.deepEqual([staleFailure.status, codeOf(staleFailure)], [
      409,
      "SUTRA.EXTERNAL_TASK.LOCK_EXPIRED",
    ]);
    assert.equal(await instanceStatus(engine, instanceId), "WAITING");
    const done = await complete(engine, second.id, { workerId: "fast", result: { ref: "R-6" } });
    assert.equal(done.status, 200, JSON.stringify(done.body));
  });
});

Deno.test("the four verdicts: unknown, locked by another worker, lock expired, terminal", async () => {
  await withEngine(async (engine) => {
    const unknown = await complete(engine, "no-such-task", { workerId: "w" });
    assert.deepEqual([unknown.status, codeOf(unknown)], [404, "SUTRA.EXTERNAL_TASK.UNKNOWN"]);
    const unknownFailure = await failure(engine, "no-such-task", {
      workerId: "w",
      errorMessage: "x",
    });
    assert.deepEqual([unknownFailure.status, codeOf(unknownFailure)], [
      404,
      "SUTRA.EXTERNAL_TASK.UNKNOWN",
    ]);

    await startFlow(engine, "R-7");
    const task = await fetchOne(engine, "owner", "pc-score");
    for (
      const answer of [
        await complete(engine, task.id, { workerId: "intruder" }),
        await failure(engine, task.id, { workerId: "intruder", errorMessage: "x" }),
      ]
    ) {
      assert.deepEqual([answer.status, codeOf(answer)], [
        409,
        "SUTRA.EXTERNAL_TASK.LOCKED_BY_OTHER",
      ]);
    }

    await engine.database.query(
      "update external_tasks set lock_expires_at = now() - interval '1 second'",
    );
    const expired = await complete(engine, task.id, { workerId: "owner" });
    assert.deepEqual([expired.status, codeOf(expired)], [409, "SUTRA.EXTERNAL_TASK.LOCK_EXPIRED"]);

    await engine.database.query("update external_tasks set terminal = true");
    const terminal = await complete(engine, task.id, { workerId: "owner" });
    assert.deepEqual([terminal.status, codeOf(terminal)], [409, "SUTRA.EXTERNAL_TASK.TERMINAL"]);
  });
});

Deno.test("bounds over their ceilings and malformed requests are 400s, never clamped", async () => {
  await withEngine(async (engine) => {
    const fetch = (body: unknown) => post(engine, "/sutra/external-tasks/fetch-and-lock", body);
    const over = await fetch({
      workerId: "w",
      channels: ["pc-score"],
      lockDuration: "PT2H",
      maxTasks: 101,
      asyncResponseTimeout: "PT31S",
    });
    assert.equal(over.status, 400);
    assert.deepEqual(
      (over.body.diagnostics as { code: string; attributes: { field: string } }[])
        .map((d) => [d.code, d.attributes.field]),
      [
        ["SUTRA.EXTERNAL_TASK.BOUND_EXCEEDED", "lockDuration"],
        ["SUTRA.EXTERNAL_TASK.BOUND_EXCEEDED", "maxTasks"],
        ["SUTRA.EXTERNAL_TASK.BOUND_EXCEEDED", "asyncResponseTimeout"],
      ],
    );
    const atCeiling = await fetch({
      workerId: "w",
      channels: ["pc-score"],
      lockDuration: "PT1H",
      maxTasks: 100,
      asyncResponseTimeout: "PT0S",
    });
    assert.equal(atCeiling.status, 200);
    const malformed = await fetch({ channels: [], lockDuration: "30s", maxTasks: 0 });
    assert.equal(malformed.status, 400);
    assert.deepEqual(codes(malformed), Array(4).fill("SUTRA.EXTERNAL_TASK.REQUEST_INVALID"));
    const zeroLock = await fetch({ workerId: "w", channels: ["pc-score"], lockDuration: "PT0S" });
    assert.deepEqual([zeroLock.status, codeOf(zeroLock)], [
      400,
      "SUTRA.EXTERNAL_TASK.REQUEST_INVALID",
    ]);
    const notJson = await fetch("{nope");
    assert.deepEqual([notJson.status, codeOf(notJson)], [
      400,
      "SUTRA.EXTERNAL_TASK.REQUEST_INVALID",
    ]);
    const badFailure = await failure(engine, "t", { workerId: "w", retries: -1 });
    assert.deepEqual(codes(badFailure), [
      "SUTRA.EXTERNAL_TASK.REQUEST_INVALID",
      "SUTRA.EXTERNAL_TASK.REQUEST_INVALID",
    ]);
    const badComplete = await complete(engine, "t", { result: 1 });
    assert.deepEqual([badComplete.status, codeOf(badComplete)], [
      400,
      "SUTRA.EXTERNAL_TASK.REQUEST_INVALID",
    ]);
  });
});

Deno.test("the engine refuses to boot with a zero or over-ceiling default lock duration", async () => {
  const envs: Record<string, string>[] = [
    { SUTRA_EXTERNAL_TASK_DEFAULT_LOCK_DURATION: "PT0S" },
    {
      SUTRA_EXTERNAL_TASK_DEFAULT_LOCK_DURATION: "PT2M",
      SUTRA_EXTERNAL_TASK_MAX_LOCK_DURATION: "PT1M",
    },
  ];
  for (const env of envs) {
    await assert.rejects(
      () => bootEngine({ env }),
      (error: unknown) =>
        error instanceof DiagnosticError &&
        error.diagnostics[0].code === "SUTRA.CONFIG.PROPERTY.INVALID" &&
        error.diagnostics[0].attributes?.key === "sutra.external-task.default-lock-duration",
    );
  }
});

Deno.test("a long poll is woken by a park before its timeout, and answers [] at its timeout", async () => {
  await withEngine(async (engine) => {
    const empty = await fetchTasks(engine, "w", "pc-score", { asyncResponseTimeout: "PT0.2S" });
    assert.deepEqual(empty, []);
    const waiting = fetchTasks(engine, "w", "pc-score", { asyncResponseTimeout: "PT30S" });
    const started = performance.now();
    const instanceId = await startFlow(engine, "R-8");
    const tasks = await waiting;
    const waited = performance.now() - started;
    assert.deepEqual(tasks.map((t) => t.instanceId), [instanceId]);
    assert.ok(waited < 30_000, `the poll ran to its timeout (${waited} ms)`);
  });
});

Deno.test("a crash between dispatch and delete re-offers the task; the duplicate is absorbed", async () => {
  await withEngine(async (engine) => {
    const instanceId = await startFlow(engine, "R-9");
    const task = await fetchOne(engine, "w1", "pc-score");
    const { rows: [parked] } = await engine.database.query<Record<string, unknown>>(
      "select * from external_tasks where task_id = $1",
      [task.id],
    );
    const done = await complete(engine, task.id, {
      workerId: "w1",
      result: { ref: "R-9", score: 1 },
    });
    assert.equal(done.status, 200, JSON.stringify(done.body));
    const report = await fetchOne(engine, "r", "pc-done");
    assert.deepEqual(JSON.parse(report.body), { ref: "R-9", score: 1 });
    // The state a crash after the dispatch and before the delete leaves behind:
    // the step committed, the task row still there with its lapsed lock.
    const columns = Object.keys(parked);
    await engine.database.query(
      `insert into external_tasks (${columns.join(", ")})
       values (${columns.map((_, i) => `$${i + 1}`).join(", ")})`,
      columns.map((c) => c === "lock_expires_at" ? new Date(0) : parked[c]),
    );
    const again = await fetchOne(engine, "w2", "pc-score");
    assert.equal(again.id, task.id);
    const duplicate = await complete(engine, again.id, {
      workerId: "w2",
      result: { ref: "R-9", score: 2 },
    });
    assert.equal(duplicate.status, 200, JSON.stringify(duplicate.body));
    assert.deepEqual(duplicate.body.instances, [{ instanceId, status: "COMPLETED" }]);
    // The instance advanced once: the duplicate ran no step, so it emitted nothing.
    const { rowCount: emitted } = await engine.database.query("select 1 from outbox");
    assert.equal(emitted, 0);
    assert.deepEqual(await fetchTasks(engine, "r2", "pc-done"), []);
    const { rowCount } = await engine.database.query(
      "select 1 from external_tasks where task_id = $1",
      [task.id],
    );
    assert.equal(rowCount, 0);
  });
});
