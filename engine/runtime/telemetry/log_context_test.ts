import assert from "node:assert/strict";
import { createLogger } from "../../core/mod.ts";
import { registerContextManager } from "./context.ts";
import { withTraceIds } from "./log_context.ts";
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
