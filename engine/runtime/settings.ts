/**
 * The configuration keys the engine process itself reads at boot.
 *
 * @module
 */
import { defineKey, parseLogFilter } from "../core/mod.ts";

/** TCP port of the single HTTP listener (0 picks a free port). */
export const HTTP_PORT = defineKey({
  key: "sutra.http.port",
  type: "integer",
  default: 8080,
  min: 0,
  max: 65535,
  description: "TCP port of the engine's HTTP listener (channels, operate and admin routes).",
});

/** Interface address the HTTP listener binds. */
export const HTTP_HOST = defineKey({
  key: "sutra.http.host",
  type: "string",
  default: "0.0.0.0",
  description: "Address the HTTP listener binds (0.0.0.0 for all interfaces).",
  validate: (v) => v.trim() === "" ? "must not be empty" : undefined,
});

/** The engine database URL; unset selects the embedded database. */
export const DATASOURCE_URL = defineKey({
  key: "sutra.datasource.url",
  type: "string",
  description:
    "Engine database: postgres://… for a server, memory:// for a throwaway in-memory database; unset uses the embedded database.",
});

/** User name merged into a server URL that carries none. */
export const DATASOURCE_USERNAME = defineKey({
  key: "sutra.datasource.username",
  type: "string",
  description: "User for the engine database server (merged into the URL).",
});

/** Password (a secret reference) merged into a server URL. */
export const DATASOURCE_PASSWORD = defineKey({
  key: "sutra.datasource.password",
  type: "string",
  secret: true,
  description: "Password for the engine database server; use env:, secret: or ${…}.",
});

/** Where the embedded database keeps its files. */
export const DATASOURCE_EMBEDDED_DIR = defineKey({
  key: "sutra.datasource.embedded-dir",
  type: "string",
  default: ".sutra/engine-db",
  description: "Directory of the embedded database used when sutra.datasource.url is unset.",
});

/** Log filter: a default level plus per-logger overrides. */
export const LOG_FILTER = defineKey({
  key: "sutra.log",
  type: "string",
  default: "info",
  description: "Log filter, e.g. info or warn,engine/runtime=debug.",
  validate: (v) => {
    const parsed = parseLogFilter(v);
    return typeof parsed === "string" ? parsed : undefined;
  },
});

/** How long shutdown waits for in-flight requests. */
export const SHUTDOWN_GRACE = defineKey({
  key: "sutra.shutdown.grace-period",
  type: "duration",
  default: 10_000,
  min: 0,
  max: 3_600_000,
  description: "How long a SIGINT/SIGTERM shutdown waits for in-flight requests before closing.",
});

/** The OTLP collector endpoint; unset means no telemetry export at all. */
export const OTLP_ENDPOINT = defineKey({
  key: "sutra.telemetry.otlp.endpoint",
  type: "string",
  description: "OTLP collector endpoint. Unset (the default) means nothing is exported.",
});

/** The service.name stamped on every log record. */
export const SERVICE_NAME = defineKey({
  key: "sutra.service.name",
  type: "string",
  default: "sutra-engine",
  description: "service.name on every log record.",
  validate: (v) => v.trim() === "" ? "must not be empty" : undefined,
});

/** Schema the engine's tables live in on a server (unset: the server's default search path). */
export const DATASOURCE_SCHEMA = defineKey({
  key: "sutra.datasource.schema",
  type: "string",
  description: "Schema for the engine's tables on a PostgreSQL server (created if missing).",
  validate: (v) => /^[a-z_][a-z0-9_]*$/.test(v) ? undefined : "must be a lower-case SQL identifier",
});
