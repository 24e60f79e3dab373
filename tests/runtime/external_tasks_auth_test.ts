/**
 * A pull channel's `auth` guards its tasks (docs/external-tasks.md,
 * Authentication): a worker fetches, completes and fails a task only with
 * that channel's credentials; a fetch naming several channels must open
 * every one of them.
 */
import assert from "node:assert/strict";
import type { RunningEngine } from "../../engine/runtime/mod.ts";
import { type Answer, bootEngine, codeOf, post, sealDir } from "./support.ts";

const SCORE_KEY = { "x-worker-key": "score-key" };
const DONE_TOKEN = { authorization: "Bearer done-token" };

async function withEngine(fn: (engine: RunningEngine) => Promise<void>): Promise<void> {
  const engine = await bootEngine({ env: { SUTRA_OUTBOX_POLL_INTERVAL: "PT0.02S" } });
  try {
    await engine.deployments.deploy(await sealDir("tests/fixtures/runtime/pull_auth"));
    await fn(engine);
  } finally {
    await engine.stop();
  }
}

function fetchAndLock(
  engine: RunningEngine,
  channels: string[],
  headers: Record<string, string>,
  wait = "PT0S",
): Promise<Answer> {
  return post(engine, "/sutra/external-tasks/fetch-and-lock", {
    workerId: "w",
    channels,
    asyncResponseTimeout: wait,
  }, headers);
}

function refusal(answer: Answer): [number, string | undefined, unknown] {
  const d = (answer.body.diagnostics as { attributes?: { channel?: string } }[] | undefined)?.[0];
  return [answer.status, codeOf(answer), d?.attributes?.channel];
}

Deno.test("a pull channel with auth hands out, completes and fails its tasks only with its credentials", async () => {
  await withEngine(async (engine) => {
    const started = await post(engine, "/channels/pa-start", { ref: "A-1", amount: 5 });
    assert.equal(started.status, 200, JSON.stringify(started.body));

    assert.deepEqual(refusal(await fetchAndLock(engine, ["pa-score"], {})), [
      401,
      "SUTRA.INBOUND.AUTH.MISSING",
      "pa-score",
    ]);
    const wrong = await fetchAndLock(engine, ["pa-score"], { "x-worker-key": "guess" });
    assert.deepEqual(refusal(wrong), [401, "SUTRA.INBOUND.AUTH.INVALID", "pa-score"]);
    assert.equal(wrong.headers.get("www-authenticate"), "ApiKey");

    const fetched = await fetchAndLock(engine, ["pa-score"], SCORE_KEY, "PT10S");
    assert.equal(fetched.status, 200, JSON.stringify(fetched.body));
    const [task] = fetched.body as unknown as { id: string }[];
    assert.ok(task, "no task was handed out");

    const path = `/sutra/external-tasks/${task.id}`;
    const result = { workerId: "w", result: { ref: "A-1", score: 1 } };
    assert.equal((await post(engine, `${path}/failure`, { workerId: "w" })).status, 401);
    assert.equal((await post(engine, `${path}/complete`, result, DONE_TOKEN)).status, 401);
    const done = await post(engine, `${path}/complete`, result, SCORE_KEY);
    assert.equal(done.status, 200, JSON.stringify(done.body));
  });
});

Deno.test("a fetch naming several channels needs the credentials of each", async () => {
  await withEngine(async (engine) => {
    const both = ["pa-score", "pa-done"];
    assert.deepEqual(refusal(await fetchAndLock(engine, both, SCORE_KEY)), [
      401,
      "SUTRA.INBOUND.AUTH.MISSING",
      "pa-done",
    ]);
    const answer = await fetchAndLock(engine, both, { ...SCORE_KEY, ...DONE_TOKEN });
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
  });
});
