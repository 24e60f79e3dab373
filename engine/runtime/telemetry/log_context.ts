/**
 * Log records inside a span carry its `traceId` and `spanId`: a logger
 * wrapper that reads the current span from the trace context, so every
 * component logging through it needs no change. When the engine exports
 * over OTLP, the wrapper also hands each record it writes to the exporter
 * (stdout stays the records' first destination; the export only adds one).
 *
 * @module
 */
import type { LogFields, Logger, LogLevel } from "../../core/log.ts";
import { contexts, validSpanContext } from "./context.ts";
import { nowMs } from "./tracer.ts";

/** A log record as exported. */
export interface ExportedLog {
  /** Epoch milliseconds. */
  readonly atMs: number;
  readonly level: LogLevel;
  readonly loggerName: string;
  readonly message: string;
  readonly traceId?: string;
  readonly spanId?: string;
  readonly fields?: LogFields;
}

/** Where exported log records go (the OTLP exporter). */
export interface LogSink {
  enqueueLog(record: ExportedLog): void;
}

/**
 * The export target shared by a logger and all its children; set once
 * telemetry has started, cleared when it stops. Records written while it
 * is unset only go to stdout.
 */
export class LogExport {
  sink: LogSink | undefined;
}

/** `logger`, and every child of it, adding `traceId`/`spanId` to records written inside a span. */
export function withTraceIds(logger: Logger, exports: LogExport = new LogExport()): Logger {
  const log = (level: LogLevel) => (message: string, fields?: LogFields) => {
    if (!logger.enabled(level)) return;
    const span = validSpanContext(contexts.active());
    const ids = span ? { traceId: span.traceId, spanId: span.spanId } : undefined;
    logger[level](message, ids ? { ...ids, ...fields } : fields);
    exports.sink?.enqueueLog({
      atMs: nowMs(),
      level,
      loggerName: logger.name,
      message,
      ...ids,
      ...(fields ? { fields } : {}),
    });
  };
  return {
    name: logger.name,
    trace: log("trace"),
    debug: log("debug"),
    info: log("info"),
    warn: log("warn"),
    error: log("error"),
    enabled: (level) => logger.enabled(level),
    child: (name) => withTraceIds(logger.child(name), exports),
  };
}
