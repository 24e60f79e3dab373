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
