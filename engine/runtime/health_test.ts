import assert from "node:assert/strict";
import { createLogger } from "../core/mod.ts";
import { withMemoryDatabase } from "../../tests/support/test_database.ts";
import { addHealthRoutes } from "./health.ts";
import { Router } from "./http_router.ts";

Deno.test("a readiness check whose database query fails shows a code and an incident id, never the database's text", async () => {
  const records: Record<string, unknown>[] = [];
  const logger = createLogger("test", { write: (line) => records.push(JSON.parse(line)) });
  await withMemoryDatabase(async (db) => {
    const router = new Router(logger);
    addHealthRoutes(router, [{
      name: "database",
      async check() {
        await db.query("select * from secret_missing_table");
        return { status: "UP" };
      },
    }], logger);
    const response = await router.handle(new Request("http://engine/sutra/health/ready"));
    const text = await response.text();
    assert.equal(response.status, 503);
    assert.doesNotMatch(text, /secret_missing_table|relation|does not exist/);
    const [check] = JSON.parse(text).checks;
    assert.equal(check.status, "DOWN");
    assert.equal(check.data.code, "SUTRA.RUNTIME.UNEXPECTED");
    const logged = records.find((r) => r.incidentId === check.data.incidentId);
    assert.match(JSON.stringify(logged), /secret_missing_table/);
  });
});

Deno.test("a dead lane makes liveness 503 with data.deadLanes and readiness DOWN at once", async () => {
  const logger = createLogger("test", { write: () => {} });
  const router = new Router(logger);
  let dead: number[] = [];
  addHealthRoutes(
    router,
    [{ name: "database", check: () => Promise.resolve({ status: "UP" }) }],
    logger,
    {
      deadLanes: () => dead,
    },
  );
  const probe = async (path: string) => {
    const response = await router.handle(new Request(`http://engine/sutra/health/${path}`));
    return { status: response.status, body: await response.json() };
  };
  assert.deepEqual(await probe("live"), { status: 200, body: { status: "UP" } });
  const ready = await probe("ready");
  assert.equal(ready.status, 200);
  assert.deepEqual(ready.body.checks.map((c: { name: string }) => c.name), ["database"]);

  dead = [3, 1];
  assert.deepEqual(await probe("live"), {
    status: 503,
    body: { status: "DOWN", data: { deadLanes: [1, 3] } },
  });
  const down = await probe("ready");
  assert.equal(down.status, 503);
  assert.equal(down.body.status, "DOWN");
  assert.deepEqual(down.body.checks.map((c: { status: string }) => c.status), ["UP", "DOWN"]);
  assert.deepEqual(down.body.checks[1].data, { deadLanes: [1, 3] });
});
