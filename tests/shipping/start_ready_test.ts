import assert from "node:assert/strict";
import { type Child, LISTENING, spawn, until } from "./_spawn.ts";

/** `deno task start` as the task runs it (without the task runner), on a throwaway database. */
function startScript(script = "examples/start.ts", extra: readonly string[] = []): Child {
  return spawn(Deno.execPath(), ["run", "-q", "-P=engine", script, "--port", "0", ...extra], {
    env: {
      SUTRA_HTTP_HOST: "127.0.0.1",
      SUTRA_HTTP_PORT: "0",
      SUTRA_DATASOURCE_URL: "memory://",
      // money-transfer's accounts would otherwise live in the checkout's .sutra, which another
      // test's engine (or a developer's) may hold at the same moment.
      ACCOUNTS_DB_URL: "pglite:memory://",
    },
  });
}

Deno.test("deno task start: once ready answers 200, the examples take requests (no 404)", async () => {
  const child = startScript(Deno.env.get("SUTRA_TEST_START_SCRIPT"));
  try {
    const [, port] = await child.waitFor(LISTENING);
    const base = `http://127.0.0.1:${port}`;
    const ready = await until(`${base}/sutra/health/ready`, 200, child);
    const res = await fetch(`${base}/channels/quote-request`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ item: "widget", quantity: 120, unitPrice: 2.5 }),
    });
    const body = await res.text();
    assert.equal(res.status, 200, body);
    const checks = (await ready.json()).checks as { name: string; status: string }[];
    assert.deepEqual(checks.find((c) => c.name === "examples")?.status, "UP");
    await child.waitFor(/^ready: 4 examples deployed at http:/);
  } finally {
    child.kill("SIGTERM");
    const { code, output } = await child.exited;
    assert.equal(code, 0, output);
  }
});
