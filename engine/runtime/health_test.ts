import assert from "node:assert/strict";
import { createLogger } from "../core/mod.ts";
import { withMemoryDatabase } from "../../tests/support/test_database.ts";
import { addHealthRoutes } from "./health.ts";
import { Router } from "./http_router.ts";
import { Lanes } from "./dispatch/lanes.ts";

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

Deno.test("a lane held by one item past the stall timeout is reported dead; it recovers when freed", async () => {
  const logger = createLogger("test", { write: () => {} });
  const router = new Router(logger);
  const lanes = new Lanes({ count: 3 });
  addHealthRoutes(router, [], logger, { deadLanes: () => lanes.deadLanes(20) });
  const live = async () => {
    const response = await router.handle(new Request("http://engine/sutra/health/live"));
    return { status: response.status, body: await response.json() };
  };
  assert.equal((await live()).status, 200);
  // A step that hangs while holding its lane (it never steps off it), with more work behind it.
  const hang = Promise.withResolvers<void>();
  const stuck = lanes.run("stuck-key", () => hang.promise);
  const queued = lanes.run("stuck-key", () => Promise.resolve());
  for (let i = 0; (await live()).status === 200 && i < 400; i++) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  const lane = lanes.laneOf("stuck-key");
  assert.deepEqual(await live(), {
    status: 503,
    body: { status: "DOWN", data: { deadLanes: [lane] } },
  });
  assert.equal(lanes.depth(lane), 2);
  hang.resolve();
  await Promise.all([stuck, queued]);
  assert.equal((await live()).status, 200);
  assert.equal(lanes.dispatched(lane), 2);
  assert.equal(lanes.depth(lane), 0);
});
