import assert from "node:assert/strict";
import { createLogger } from "../../../engine/core/mod.ts";
import { responseOf } from "./transport.ts";

Deno.test("a failure inside the engine is answered 500 with its code only; the detail goes to the log", async () => {
  const records: Record<string, unknown>[] = [];
  const logger = createLogger("test", { write: (line) => records.push(JSON.parse(line)) });
  const detail = 'duplicate key value violates unique constraint "instances_pkey"';
  const response = responseOf({
    kind: "refused",
    refusal: "failed",
    diagnostics: [{
      code: "SUTRA.DB.COMMIT_IN_DOUBT",
      severity: "ERROR",
      message: detail,
      attributes: { sql: "insert into instances" },
    }],
  }, logger);
  const text = await response.text();
  assert.equal(response.status, 500);
  assert.doesNotMatch(text, /duplicate key|instances_pkey|insert into/);
  const [d] = JSON.parse(text).diagnostics;
  assert.equal(d.code, "SUTRA.DB.COMMIT_IN_DOUBT");
  const logged = records.find((r) => r.incidentId === d.attributes.incidentId);
  assert.match(JSON.stringify(logged), /instances_pkey/);
});
