/**
 * Structured JSON logging: one object per line with timestamp, level,
 * loggerName, message and service.name, filtered by a `SUTRA_LOG` spec such
 * as `info` or `warn,engine/runtime=debug`.
 *
 * @module
 */
import { type Clock, systemClock } from "./clock.ts";

/** Log levels, most verbose first. */
export const LOG_LEVELS = ["trace", "debug", "info", "warn", "error"] as const;

/** One log level. */
export type LogLevel = typeof LOG_LEVELS[number];

/** Extra structured fields on a record. */
export type LogFields = Record<string, unknown>;

/** A named logger. */
export interface Logger {
  readonly name: string;
  trace(message: string, fields?: LogFields): void;
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
  /** True when a record at `level` would be written (skip building costly fields otherwise). */
  enabled(level: LogLevel): boolean;
  /** A logger for a sub-component, e.g. `engine/runtime` → `engine/runtime/http`. */
  child(name: string): Logger;
}

/** A parsed filter: a default level plus per-logger-prefix overrides. */
export interface LogFilter {
  readonly defaultLevel: LogLevel;
  /** Longest prefix first. */
  readonly overrides: readonly { prefix: string; level: LogLevel }[];
}

/**
 * Parses a filter spec. Returns a reason string when it is malformed, so a
 * config key can reject it.
 */
export function parseLogFilter(spec: string): LogFilter | string {
  let defaultLevel: LogLevel = "info";
  const overrides: { prefix: string; level: LogLevel }[] = [];
  for (const part of spec.split(",").map((p) => p.trim()).filter((p) => p !== "")) {
    const eq = part.indexOf("=");
    const levelText = (eq < 0 ? part : part.slice(eq + 1)).trim().toLowerCase();
    if (!isLevel(levelText)) {
      return `'${levelText}' is not a log level (${LOG_LEVELS.join(", ")})`;
    }
    if (eq < 0) defaultLevel = levelText;
    else {
      const prefix = part.slice(0, eq).trim();
      if (prefix === "") return `'${part}' names no logger`;
      overrides.push({ prefix, level: levelText });
    }
  }
  overrides.sort((a, b) => b.prefix.length - a.prefix.length);
  return { defaultLevel, overrides };
}

function isLevel(text: string): text is LogLevel {
  return (LOG_LEVELS as readonly string[]).includes(text);
}

/** The level that applies to a logger name under a filter. */
export function levelFor(filter: LogFilter, name: string): LogLevel {
  for (const o of filter.overrides) {
    if (name === o.prefix || name.startsWith(o.prefix + "/") || name.startsWith(o.prefix + ".")) {
      return o.level;
    }
  }
  return filter.defaultLevel;
}

/** Options for {@link createLogger}. */
export interface LoggerOptions {
  /** Filter spec or parsed filter (default `info`). */
  readonly filter?: string | LogFilter;
  /** Where each JSON line goes (default: stdout). */
  readonly write?: (line: string) => void;
  readonly clock?: Clock;
  /** The `service.name` field (default `sutra-engine`). */
  readonly serviceName?: string;
}

const encoder = new TextEncoder();

function writeStdout(line: string): void {
  Deno.stdout.writeSync(encoder.encode(line + "\n"));
}

/** Creates a root logger. */
export function createLogger(name: string, options: LoggerOptions = {}): Logger {
  const parsed = typeof options.filter === "string" || options.filter === undefined
    ? parseLogFilter(options.filter ?? "info")
    : options.filter;
  if (typeof parsed === "string") throw new Error(`invalid log filter: ${parsed}`);
  return new JsonLogger(name, {
    filter: parsed,
    write: options.write ?? writeStdout,
    clock: options.clock ?? systemClock,
    serviceName: options.serviceName ?? "sutra-engine",
  });
}

interface Sink {
  readonly filter: LogFilter;
  readonly write: (line: string) => void;
  readonly clock: Clock;
  readonly serviceName: string;
}

class JsonLogger implements Logger {
  readonly #threshold: number;

  constructor(readonly name: string, private readonly sink: Sink) {
    this.#threshold = LOG_LEVELS.indexOf(levelFor(sink.filter, name));
  }

  enabled(level: LogLevel): boolean {
    return LOG_LEVELS.indexOf(level) >= this.#threshold;
  }

  trace(message: string, fields?: LogFields): void {
    this.#log("trace", message, fields);
  }
  debug(message: string, fields?: LogFields): void {
    this.#log("debug", message, fields);
  }
  info(message: string, fields?: LogFields): void {
    this.#log("info", message, fields);
  }
  warn(message: string, fields?: LogFields): void {
    this.#log("warn", message, fields);
  }
  error(message: string, fields?: LogFields): void {
    this.#log("error", message, fields);
  }

  child(name: string): Logger {
    return new JsonLogger(`${this.name}/${name}`, this.sink);
  }

  #log(level: LogLevel, message: string, fields?: LogFields): void {
    if (!this.enabled(level)) return;
    const record: Record<string, unknown> = {
      timestamp: new Date(this.sink.clock.now()).toISOString(),
      level: level.toUpperCase(),
      loggerName: this.name,
      message,
      "service.name": this.sink.serviceName,
    };
    if (fields) {
      for (const [k, v] of Object.entries(fields)) {
        if (!(k in record)) record[k] = v instanceof Error ? v.message : v;
      }
    }
    this.sink.write(JSON.stringify(record));
  }
}
