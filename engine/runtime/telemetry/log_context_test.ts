import assert from "node:assert/strict";
import { createLogger } from "../../core/mod.ts";
import { registerContextManager } from "./context.ts";
import { type ExportedLog, LogExport, withTraceIds } from "./log_context.ts";
import { SutraTracer } from "./tracer.ts";

registerContextManager();

Deno.test("log records inside a span carry its traceId and spanId; outside, none", async () => {
  const records: Record<string, unknown>[] = [];
  const logger = withTraceIds(createLogger("engine", {
    filter: "info",
    write: (line) => records.push(JSON.parse(line)),
  })).child("dispatch");
  const tracer = new SutraTracer(() => {});
  logger.info("before");
  let ids: { traceId: string; spanId: string } | undefined;
  await tracer.startActiveSpan("sutra.dispatch", async (span) => {
    await Promise.resolve();
    logger.warn("inside", { channel: "c" });
    logger.debug("filtered out");
    ids = { traceId: span.spanContext().traceId, spanId: span.spanContext().spanId };
    span.end();
  });
  logger.info("after");
  assert.deepEqual(records.map((r) => [r.message, r.traceId, r.spanId]), [
    ["before", undefined, undefined],
    ["inside", ids!.traceId, ids!.spanId],
    ["after", undefined, undefined],
  ]);
  assert.equal(records[1].loggerName, "engine/dispatch");
  assert.equal(records[1].channel, "c");
});

Deno.test("with an export target set, each written record is handed on too; filtered ones are not", () => {
  const exports = new LogExport();
  const logger = withTraceIds(createLogger("engine", { filter: "info", write: () => {} }), exports);
  const child = logger.child("outbox");
  child.info("before the target is set");
  const exported: ExportedLog[] = [];
  exports.sink = { enqueueLog: (r) => exported.push(r) };
  child.warn("sent", { outboxId: "o-1", error: new Error("refused") });
  child.debug("filtered out");
  exports.sink = undefined;
  child.error("after it is cleared");
  assert.equal(exported.length, 1);
  assert.equal(exported[0].level, "warn");
  assert.equal(exported[0].loggerName, "engine/outbox");
  assert.equal(exported[0].message, "sent");
  assert.equal(exported[0].traceId, undefined);
  assert.deepEqual(Object.keys(exported[0].fields ?? {}), ["outboxId", "error"]);
});
