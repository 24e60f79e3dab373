/**
 * The configuration keys the engine process itself reads at boot.
 *
 * @module
 */
import { type Config, defineKey, parseLogFilter } from "../core/mod.ts";
import { METRIC_LABELS, parseLabelAllowlist } from "./telemetry/metrics.ts";
import { TEMPORALITIES } from "./telemetry/temporality.ts";
import { parseTenantLimits } from "./tenancy/tenant_limits.ts";

/** TCP port of the single HTTP listener (0 picks a free port). */
export const HTTP_PORT = defineKey({
  key: "sutra.http.port",
  type: "integer",
  default: 8080,
  min: 0,
  max: 65535,
  description: "TCP port of the engine's HTTP listener (channels, operate and admin routes).",
});

/** Interface address the HTTP listener binds: loopback unless told otherwise. */
export const HTTP_HOST = defineKey({
  key: "sutra.http.host",
  type: "string",
  default: "127.0.0.1",
  description:
    "Address the HTTP listener binds: loopback by default; 0.0.0.0 for every interface (a container sets it).",
  validate: (v) => v.trim() === "" ? "must not be empty" : undefined,
});

/** A Unix domain socket the HTTP listener binds instead of a TCP port. */
export const HTTP_SOCKET = defineKey({
  key: "sutra.http.socket",
  type: "string",
  description:
    "Path of a Unix domain socket the HTTP listener binds instead of sutra.http.host and sutra.http.port (empty or unset: TCP). A socket file left by a stopped engine is replaced; one another process listens on is refused.",
});

/** The socket `sutra.http.socket` names, or undefined (unset or empty) for a TCP listener. */
export function httpSocketPath(config: Config): string | undefined {
  const path = config.get(HTTP_SOCKET)?.trim();
  return path ? path : undefined;
}

/** Connections the HTTP listener holds at once. */
export const HTTP_MAX_CONNECTIONS = defineKey({
  key: "sutra.http.max-connections",
  type: "integer",
  default: 1_024,
  min: 1,
  max: 1_000_000,
  description:
    "Connections the HTTP listener holds open at once; one more is answered 503 SUTRA.HTTP.CONNECTION_LIMIT and closed. Keep it below the process's file-descriptor limit.",
});

/** How long a connection may wait between requests. */
export const HTTP_IDLE_TIMEOUT = defineKey({
  key: "sutra.http.idle-timeout",
  type: "duration",
  default: 30_000,
  min: 100,
  max: 3_600_000,
  description:
    "A connection with no request in progress this long after its last answer is closed (a new one: the shorter of this and sutra.http.header-timeout).",
});

/** How long a request's head may take to arrive. */
export const HTTP_HEADER_TIMEOUT = defineKey({
  key: "sutra.http.header-timeout",
  type: "duration",
  default: 10_000,
  min: 100,
  max: 3_600_000,
  description:
    "A new connection that has not sent a complete request head this long after it opened is closed without an answer.",
});

/** How long a request's body may take to arrive. */
export const HTTP_BODY_TIMEOUT = defineKey({
  key: "sutra.http.body-timeout",
  type: "duration",
  default: 60_000,
  min: 100,
  max: 3_600_000,
  description:
    "A request body not complete this long after the engine starts reading it is answered 408 SUTRA.HTTP.REQUEST_TIMEOUT and the connection closed.",
});

/** The longest request line plus headers. */
export const HTTP_MAX_HEADER_BYTES = defineKey({
  key: "sutra.http.max-header-bytes",
  type: "integer",
  default: 65_536,
  min: 1_024,
  max: 1_048_576,
  description:
    "Longest request line plus headers in bytes; a longer head is answered 431 SUTRA.HTTP.HEADERS_TOO_LARGE.",
});

/** A listener of its own for the admin surface; unset serves it on the main listener. */
export const ADMIN_PORT = defineKey({
  key: "sutra.admin.port",
  type: "integer",
  min: 0,
  max: 65535,
  description:
    "TCP port of a second listener that alone serves /admin/* and the console (the main listener then answers them 404); 0 picks a free port. Unset: one listener serves everything.",
});

/** Interface address of the admin listener. */
export const ADMIN_HOST = defineKey({
  key: "sutra.admin.host",
  type: "string",
  default: "127.0.0.1",
  description:
    "Address the admin listener (sutra.admin.port) binds: loopback by default, whatever sutra.http.host is; an internal interface to reach it from elsewhere.",
  validate: (v) => v.trim() === "" ? "must not be empty" : undefined,
});

/** The engine database URL; unset selects the embedded database. */
export const DATASOURCE_URL = defineKey({
  key: "sutra.datasource.url",
  type: "string",
  description:
    "Engine database: postgres://… for a server, memory:// for a throwaway in-memory database; unset uses the embedded database.",
});

/** A separate, table-owning role's URL that runs the engine migrations. */
export const DATASOURCE_MIGRATION_URL = defineKey({
  key: "sutra.datasource.migration-url",
  type: "string",
  secret: true,
  description:
    "postgres://… URL of the role that owns the engine tables and runs the migrations (then grants the engine role its rights); set, the engine refuses to run as a role row-level security does not confine (superuser, BYPASSRLS, table owner). Unset: the engine migrates with its own role.",
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

/** Whether `GET /sutra/metrics` serves the meters in Prometheus text format. */
export const METRICS_PROMETHEUS = defineKey({
  key: "sutra.telemetry.metrics.prometheus",
  type: "boolean",
  default: false,
  description:
    "Serve the engine's meters at GET /sutra/metrics in Prometheus text format (off by default; no OTLP endpoint is needed for it).",
});

/** The label names meters may carry. */
export const METRICS_LABELS = defineKey({
  key: "sutra.telemetry.metrics.labels",
  type: "string",
  default: METRIC_LABELS.join(","),
  description:
    "Comma-separated allowlist of metric label names, a subset of the default; a label left out is dropped and its series merge. Instance ids and business keys are never labels.",
  validate: (v) => {
    const parsed = parseLabelAllowlist(v);
    return typeof parsed === "string" ? parsed : undefined;
  },
});

/** How OTLP metric export counts sums and histograms. */
export const METRICS_TEMPORALITY = defineKey({
  key: "sutra.telemetry.metrics.temporality",
  type: "enum",
  values: TEMPORALITIES,
  default: "cumulative",
  description:
    "How sums and histograms are exported over OTLP: cumulative (totals since the engine started) or delta (what was added since the last export the collector took; unchanged series are left out). GET /sutra/metrics is always cumulative.",
});

/** How often telemetry is sent to the collector. */
export const TELEMETRY_EXPORT_INTERVAL = defineKey({
  key: "sutra.telemetry.export-interval",
  type: "duration",
  default: 5_000,
  min: 10,
  max: 3_600_000,
  description:
    "How often queued spans and the meters are sent to the OTLP endpoint (one request at a time, each with a 10 s deadline).",
});

/** Spans held for export before new ones are dropped. */
export const TELEMETRY_QUEUE_CAPACITY = defineKey({
  key: "sutra.telemetry.queue-capacity",
  type: "integer",
  default: 2_048,
  min: 1,
  max: 1_000_000,
  description:
    "Ended spans held while waiting to be sent; when full, new spans are dropped (and counted) rather than slow a message down.",
});

/** How long a lane may be held by one item before it counts as dead. */
export const SHARD_STALL_TIMEOUT = defineKey({
  key: "sutra.engine.shard-stall-timeout",
  type: "duration",
  default: 300_000,
  min: 1,
  max: 86_400_000,
  description:
    "A lane whose current item has held it this long without finishing or stepping off it (a data-store wait steps off) is dead: /sutra/health/live answers 503 with data.deadLanes and readiness goes DOWN.",
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

/** Execution lanes per replica. */
export const ENGINE_SHARDS = defineKey({
  key: "sutra.engine.shards",
  type: "integer",
  default: 1,
  min: 1,
  max: 256,
  description:
    "Execution lanes in this replica; work is routed to a lane by a stable hash of the instance id.",
});

/** The transports deployments may use (unset: every linked one). */
export const ALLOWED_TRANSPORTS = defineKey({
  key: "sutra.allowed-transports",
  type: "string",
  description:
    "Comma-separated transports this engine accepts channels on (unset: every transport the build links); a deployment with a channel on another one is refused.",
});

/** Items a lane holds before new work waits for room (unset: unbounded). */
export const SHARD_QUEUE_CAPACITY = defineKey({
  key: "sutra.engine.shard-queue-capacity",
  type: "integer",
  min: 1,
  max: 1_000_000,
  description:
    "Items a lane may hold (running and queued); when full, whoever offers more work waits for room, so backpressure reaches the transport. Unset: unbounded.",
});

/** Delivery attempts before an outbox row is poisoned (unset: retry forever). */
export const OUTBOX_MAX_ATTEMPTS = defineKey({
  key: "sutra.outbox.retry.max-attempts",
  type: "integer",
  min: 1,
  max: 1_000_000,
  description:
    "Attempts before an outbox delivery is poisoned with SUTRA.OUTBOUND.DELIVERY_ATTEMPTS_EXHAUSTED; unset retries forever.",
});

/** How often the outbox worker polls when idle. */
export const OUTBOX_POLL_INTERVAL = defineKey({
  key: "sutra.outbox.poll-interval",
  type: "duration",
  default: 1_000,
  min: 10,
  max: 3_600_000,
  description: "How often the outbox worker looks for due deliveries when idle.",
});

/** How long terminal instances are kept. */
export const INSTANCE_RETENTION = defineKey({
  key: "sutra.instance.retention",
  type: "duration",
  default: 7 * 24 * 3_600_000,
  min: 0,
  max: 10 * 365 * 24 * 3_600_000,
  description:
    "How long COMPLETED and TERMINATED instances (and their history) are kept before the purge; PT0S deletes them as they complete. FAILED ones are kept until resolved.",
});

/** Age after which a held claim counts as stuck and is released. */
export const CLAIM_STUCK_AFTER = defineKey({
  key: "sutra.instance.claim-timeout",
  type: "duration",
  default: 300_000,
  min: 1_000,
  max: 86_400_000,
  description:
    "A claim older than this is presumed abandoned by a dead replica and released by the stuck-instance sweep.",
});

/** How often the stuck-instance sweep runs. */
export const INSTANCE_SWEEP_INTERVAL = defineKey({
  key: "sutra.instance.sweep-interval",
  type: "duration",
  default: 60_000,
  min: 100,
  max: 86_400_000,
  description:
    "How often the replica holding the sweep lease releases claims older than the claim timeout.",
});

/** How often the retention purge runs. */
export const RETENTION_SWEEP_INTERVAL = defineKey({
  key: "sutra.instance.retention-sweep-interval",
  type: "duration",
  default: 3_600_000,
  min: 100,
  max: 86_400_000,
  description:
    "How often the replica holding the retention lease purges terminal instances past the retention window.",
});

/** The sweeper's tick: the inbox redrive runs on every one, the other sweeps when they are due. */
export const ENGINE_SWEEP_INTERVAL = defineKey({
  key: "sutra.engine.sweep-interval",
  type: "duration",
  default: 10_000,
  min: 100,
  max: 3_600_000,
  description:
    "How often each replica looks for orphaned on-persist captures to run again; the stuck-instance sweep and the retention purge run on this tick once their own interval has passed.",
});

/** Age at which a step's unretired data-store redo row is presumed lost and replayed. */
export const DATASTORE_REDO_AFTER = defineKey({
  key: "sutra.datastore.redo-after",
  type: "duration",
  default: 30_000,
  min: 100,
  max: 86_400_000,
  description:
    "A step's data-store writes not known to be committed after this long are replayed by any replica.",
});

/** Age at which a pending on-persist capture is presumed orphaned and run again. */
export const INBOX_REDRIVE_AFTER = defineKey({
  key: "sutra.inbox.redrive-after",
  type: "duration",
  default: 30_000,
  min: 100,
  max: 86_400_000,
  description:
    "An acknowledged on-persist message still pending after this long is run again by any replica.",
});

/** How long an outbox claim protects a row being sent. */
export const OUTBOX_CLAIM_TIMEOUT = defineKey({
  key: "sutra.outbox.claim-timeout",
  type: "duration",
  default: 60_000,
  min: 100,
  max: 3_600_000,
  description: "A delivery claimed longer ago than this (its replica died mid-send) is sent again.",
});

/** Whether steps write the audit journal to the engine database. */
export const AUDIT_SQL = defineKey({
  key: "sutra.audit.sql",
  type: "boolean",
  default: false,
  description:
    "Write every instance's audit journal (started, node entered/left, completed …) to the engine database's audit_events table, in each step's transaction; off, GET /admin/instances/{id}/history answers an empty journal that says so.",
});

/** Root directory of the JSONL audit sink. */
export const AUDIT_JSONL_DIR = defineKey({
  key: "sutra.audit.jsonl.dir",
  type: "string",
  description:
    "Directory of the JSONL audit sink: every committed step's audit events are appended under <dir>/<tenant>/[<q:audit target>/] in one file per UTC day and replica, rotated by size (unset or empty: off). Read back with sutra audit-replay.",
});

/** Size at which a JSONL audit file is rotated. */
export const AUDIT_JSONL_MAX_FILE_BYTES = defineKey({
  key: "sutra.audit.jsonl.max-file-bytes",
  type: "integer",
  default: 64 * 1024 * 1024,
  min: 4096,
  max: 1024 * 1024 * 1024 * 1024,
  description:
    "A JSONL audit file is closed and the next number opened before a write would take it past this size (a new UTC day also starts a new file).",
});

/** The keyring that turns on encryption at rest. */
export const CRYPTO_KEYRING = defineKey({
  key: "sutra.crypto.keyring",
  type: "string",
  description:
    "Keyring file of per-tenant data keys (sutra crypto provision-dek); set, sensitive variables are stored encrypted (AES-256-GCM) and a tenant without a key cannot store one. Unset or empty: stored in clear.",
});

/** How many deferred acknowledgements one replica holds at once. */
export const ACK_DEFERRED_CAPACITY = defineKey({
  key: "sutra.ack.deferred.capacity",
  type: "integer",
  default: 10_000,
  min: 1,
  max: 10_000_000,
  description:
    "Deliveries an engine holds unacknowledged until their instances end (ack-mode on-complete on a transport that acknowledges late); beyond it the oldest is released for redelivery (SUTRA.ACK.DEFERRED_OVERFLOW).",
});

/** How long a deferred acknowledgement waits for its instances. */
export const ACK_DEFERRED_TIMEOUT = defineKey({
  key: "sutra.ack.deferred.timeout",
  type: "duration",
  default: 300_000,
  min: 100,
  max: 86_400_000,
  description:
    "A deferred acknowledgement whose instances have not all ended after this long is released for redelivery, which inbox dedup answers from the instance's state (SUTRA.ACK.DEFERRED_TIMEOUT).",
});

/** How often deferred acknowledgements are checked against their timeout. */
export const ACK_DEFERRED_SWEEP_INTERVAL = defineKey({
  key: "sutra.ack.deferred.sweep-interval",
  type: "duration",
  default: 10_000,
  min: 100,
  max: 3_600_000,
  description: "How often the engine looks for deferred acknowledgements past their timeout.",
});

function tenantLimitsInvalid(text: string): string | undefined {
  const parsed = parseTenantLimits(text);
  return typeof parsed === "string" ? parsed : undefined;
}

/** Per-tenant caps on live instances (`tenant=cap` pairs). */
export const TENANT_MAX_CONCURRENT_INSTANCES = defineKey({
  key: "sutra.tenant.max-concurrent-instances",
  type: "string",
  description:
    "Comma-separated tenant=cap pairs: a message that would start an instance of a tenant already holding cap RUNNING or SUSPENDED instances (counted in the engine database, so across every replica) is refused, 429 SUTRA.INBOUND.TENANT_CONCURRENCY_LIMIT on HTTP, a delayed requeue on a broker. A tenant not named is unlimited.",
  validate: tenantLimitsInvalid,
});

/** Per-tenant inbound message rates per replica (`tenant=messages` pairs). */
export const TENANT_MAX_INBOUND_RATE = defineKey({
  key: "sutra.tenant.max-inbound-rate-per-minute",
  type: "string",
  description:
    "Comma-separated tenant=messages pairs: each replica admits at most that many inbound messages of the tenant in any sliding 60 seconds (its own count, not the fleet's); one more is refused, 429 SUTRA.INBOUND.TENANT_RATE_LIMIT with Retry-After on HTTP, a delayed requeue on a broker. A tenant not named is unlimited.",
  validate: tenantLimitsInvalid,
});
