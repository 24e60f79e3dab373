/**
 * A small external worker for the `credit-score` pull channel: long-polls
 * the engine for scoring requests, scores each one, and completes it with
 * the score (or reports a failure for a request it cannot score). Stops on
 * Ctrl-C after the poll in flight.
 *
 *     npx -y deno@2.9.6 run --allow-net examples/external-worker/worker.ts [http://127.0.0.1:8080]
 *
 * @module
 */

interface Task {
  id: string;
  body: string;
  retriesLeft: number;
}

interface ScoreRequest {
  applicationId?: unknown;
  applicant?: unknown;
  amount?: unknown;
}

const engine = Deno.args[0] ?? "http://127.0.0.1:8080";
const workerId = `scorer-${crypto.randomUUID().slice(0, 8)}`;
let running = true;
Deno.addSignalListener("SIGINT", () => {
  running = false;
  console.error(`${workerId}: stopping after the current poll`);
});

async function call(path: string, body: unknown): Promise<Response> {
  return await fetch(`${engine}/sutra/external-tasks/${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
}

/** The demo's scoring rule: small loans score well, large ones do not. */
function score(request: ScoreRequest): number | string {
  if (typeof request.applicationId !== "string") return "the request has no applicationId";
  if (typeof request.amount !== "number") return "the request has no numeric amount";
  return request.amount <= 10_000 ? 720 : 610;
}

async function handle(task: Task): Promise<void> {
  const request = JSON.parse(task.body) as ScoreRequest;
  const result = score(request);
  const answer = typeof result === "number"
    ? await call(`${task.id}/complete`, {
      workerId,
      result: { applicationId: request.applicationId, score: result },
    })
    // The request can never be scored: spend the whole budget at once.
    : await call(`${task.id}/failure`, { workerId, errorMessage: result, retries: 0 });
  console.error(`${workerId}: task ${task.id} → ${answer.status} ${await answer.text()}`);
}

console.error(`${workerId}: polling ${engine} for credit-score tasks`);
while (running) {
  try {
    const response = await call("fetch-and-lock", {
      workerId,
      channels: ["credit-score"],
      maxTasks: 10,
      lockDuration: "PT1M",
      asyncResponseTimeout: "PT20S",
    });
    if (!response.ok) {
      console.error(`${workerId}: fetch refused ${response.status} ${await response.text()}`);
      break;
    }
    for (const task of await response.json() as Task[]) await handle(task);
  } catch (error) {
    // The engine is restarting or unreachable: wait a little and poll again.
    console.error(`${workerId}: ${error instanceof Error ? error.message : error}`);
    await new Promise((resolve) => setTimeout(resolve, 2_000));
  }
}
