/**
 * Log records inside a span carry its `traceId` and `spanId`: a logger
 * wrapper that reads the current span from the trace context, so every
 * component logging through it needs no change.
 *
 * @module
 */
import { trace } from "@opentelemetry/api";
import type { LogFields, Logger, LogLevel } from "../../core/log.ts";
import { contexts } from "./context.ts";

function withIds(fields: LogFields | undefined): LogFields | undefined {
  const span = trace.getSpanContext(contexts.active());
  if (!span || !trace.isSpanContextValid(span)) return fields;
  return { traceId: span.traceId, spanId: span.spanId, ...fields };
}

/** `logger`, and every child of it, adding `traceId`/`spanId` to records written inside a span. */
export function withTraceIds(logger: Logger): Logger {
  const log = (level: LogLevel) => (message: string, fields?: LogFields) => {
    if (logger.enabled(level)) logger[level](message, withIds(fields));
  };
  return {
    name: logger.name,
    trace: log("trace"),
    debug: log("debug"),
    info: log("info"),
    warn: log("warn"),
    error: log("error"),
    enabled: (level) => logger.enabled(level),
    child: (name) => withTraceIds(logger.child(name)),
  };
}
