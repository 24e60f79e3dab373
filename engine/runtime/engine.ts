/**
 * Boots one engine: opens and migrates the engine database, loads the
 * deployed set, spawns every linked transport over one intake pipeline,
 * starts the outbox worker and the sweeps, serves the HTTP surfaces, and
 * stops cleanly (listener drained, transports, worker and sweeps stopped,
 * database closed).
 *
 * @module
 */
import { transportLeases } from "./transport_leases.ts";
import {
  type Clock,
  type Config,
  defaultResolveContext,
  diagnostic,
  DiagnosticError,
  ENGINE_VERSION,
  type Logger,
  newId,
  resolveReference,
  systemClock,
} from "../core/mod.ts";
import {
  type Database,
  ENGINE_MIGRATIONS,
  mergeCredentials,
  openDatabase,
} from "../persistence/mod.ts";
import { collectSinks, transports } from "../core/transport.ts";
import { PAYLOAD_CAP_BYTES } from "../intake/mod.ts";
import { allowedTransports, type TransportCatalog } from "../package/mod.ts";
import { createAdminGate } from "./admin_auth.ts";
import {
  createDeploymentService,
  type DeploymentService,
  startConfiguredSource,
} from "./deployments/mod.ts";
import { boundChannels } from "./dispatch/channels.ts";
import { cancelInstance } from "./dispatch/cancel.ts";
import { Dispatcher } from "./dispatch/intake.ts";
import { DeploymentStores } from "./dispatch/ports.ts";
import { addCoverageRoutes, attachCoverage, CoverageService } from "./coverage/mod.ts";
import { Lanes } from "./dispatch/lanes.ts";
import { addHealthRoutes, type ReadinessCheck } from "./health.ts";
import { Router } from "./http_router.ts";
import { type HttpServer, listenFailed, serveHttp, serveHttpSocket } from "./http_server.ts";
import { addInstanceRoutes } from "./instances/routes.ts";
import { OutboxWorker } from "./outbox/worker.ts";
import { DeferredAckRegistry } from "./acks/registry.ts";
import type { RuntimeContext } from "./services.ts";
import { startExternalTasks } from "./external_tasks/mod.ts";
import { startTimers } from "./timers/mod.ts";
import { signalSink } from "./signals/mod.ts";
import { releaseStuckClaims, Sweeper } from "./sweeps/mod.ts";
import { LogExport, startTelemetry, withTraceIds } from "./telemetry/mod.ts";
import {
  ACK_DEFERRED_CAPACITY,
  ACK_DEFERRED_SWEEP_INTERVAL,
  ACK_DEFERRED_TIMEOUT,
  ADMIN_HOST,
  ADMIN_PORT,
  ALLOWED_TRANSPORTS,
  AUDIT_SQL,
  CLAIM_STUCK_AFTER,
  DATASOURCE_EMBEDDED_DIR,
  DATASOURCE_PASSWORD,
  DATASOURCE_SCHEMA,
  DATASOURCE_URL,
  DATASOURCE_USERNAME,
  DATASTORE_REDO_AFTER,
  ENGINE_SHARDS,
  ENGINE_SWEEP_INTERVAL,
  HTTP_BODY_TIMEOUT,
  HTTP_HEADER_TIMEOUT,
  HTTP_HOST,
  HTTP_IDLE_TIMEOUT,
  HTTP_MAX_CONNECTIONS,
  HTTP_MAX_HEADER_BYTES,
  HTTP_PORT,
  httpSocketPath,
  INBOX_REDRIVE_AFTER,
  INSTANCE_RETENTION,
  INSTANCE_SWEEP_INTERVAL,
  OUTBOX_CLAIM_TIMEOUT,
  OUTBOX_MAX_ATTEMPTS,
  OUTBOX_POLL_INTERVAL,
  RETENTION_SWEEP_INTERVAL,
  SHARD_QUEUE_CAPACITY,
  SHARD_STALL_TIMEOUT,
  SHUTDOWN_GRACE,
} from "./settings.ts";
import { errorMessage } from "../core/errors.ts";
import {
  purgeStoreMarks,
  redoRetirerOf,
  replayAtBoot,
  replayLostWrites,
} from "./store_redo/mod.ts";
import { openProtection } from "./audit/mod.ts";
import { addTenantRoutes, prepareEngineDatabase, TenantQuotas } from "./tenancy/mod.ts";

/** Options for {@link startEngine}. */
export interface EngineOptions {
  readonly config: Config;
  readonly logger: Logger;
  readonly clock?: Clock;
  /** Environment consulted for secret references and OTEL_* variables. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** This replica's id in claims, leases and outbox claims (default: a fresh id). */
  readonly replicaId?: string;
  /** Further readiness checks (a start script's deployments, say). */
  readonly readiness?: readonly ReadinessCheck[];
}

/** A running engine. */
export interface RunningEngine {
  /** Base URL of the HTTP listener: `http://127.0.0.1:8080`, or `http+unix://<path>` on a socket. */
  readonly url: string;
  /** The TCP port listened on; 0 on a Unix socket (`sutra.http.socket`). */
  readonly port: number;
  /** Base URL of the admin listener, when `sutra.admin.port` gives `/admin/*` and the console their own. */
  readonly adminUrl?: string;
  readonly database: Database;
  /** The deployment service (deploy, undeploy, the registry dispatch serves from). */
  readonly deployments: DeploymentService;
  /** Stops accepting requests, waits for in-flight ones (up to the grace period), closes the database. */
  stop(): Promise<void>;
}

/** Starts an engine; a failing stage throws a DiagnosticError and leaves nothing running. */
export async function startEngine(options: EngineOptions): Promise<RunningEngine> {
  const { config } = options;
  // Records get trace ids inside a span, and are exported too once telemetry runs.
  const logExport = new LogExport();
  const logger = withTraceIds(options.logger, logExport);
  const env = options.env ?? Deno.env.toObject();
  const clock = options.clock ?? systemClock;

  const database = await openDatabase(await datasourceUrl(config, env), {
    dataDir: config.require(DATASOURCE_EMBEDDED_DIR),
    schema: config.get(DATASOURCE_SCHEMA),
  });
  const servers: HttpServer[] = [];
  const stoppers: (() => Promise<void>)[] = [];
  try {
    const applied = await prepareEngineDatabase(database, {
      config,
      logger: logger.child("database"),
    });
    const head = ENGINE_MIGRATIONS.reduce((max, m) => Math.max(max, m.version), 0);
    if (database.driver === "pglite") await releaseEarlierClaims(database, logger);
    const replicaId = options.replicaId ?? newId();
    const auditJournal = config.require(AUDIT_SQL);
    // Before anything can commit a step; closed last, after the lanes' final commits.
    const protection = await openProtection(config, {
      logger: logger.child("audit"),
      replicaId,
      resolve: defaultResolveContext(env),
    });
    stoppers.push(() => protection.close());
    const retentionMs = config.require(INSTANCE_RETENTION);
    const deleteAtCompletion = retentionMs === 0;
    const claimTimeoutMs = config.require(CLAIM_STUCK_AFTER);

    const router = new Router(logger.child("http"));
    const admin = await createAdminGate({ config, logger: logger.child("admin"), env });
    const deployments = createDeploymentService({
      db: database,
      logger: logger.child("deployments"),
      clock,
      config,
      admin,
      transports: allowedOf(config),
      replicaId,
      resolve: defaultResolveContext(env),
    });
    stoppers.push(() => deployments.close());
    await deployments.boot();
    deployments.routes(router);

    const lanes = new Lanes({
      count: config.require(ENGINE_SHARDS),
      capacity: config.get(SHARD_QUEUE_CAPACITY),
    });
    // Stopped after everything that makes spans, so the last ones are sent.
    const telemetry = startTelemetry({
      config,
      env,
      logger: logger.child("telemetry"),
      db: database,
      lanes,
      router,
      replicaId,
      logs: logExport,
    });
    stoppers.push(() => telemetry.stop());
    const acks = new DeferredAckRegistry({
      capacity: config.require(ACK_DEFERRED_CAPACITY),
      timeoutMs: config.require(ACK_DEFERRED_TIMEOUT),
      sweepMs: config.require(ACK_DEFERRED_SWEEP_INTERVAL),
      logger: logger.child("acks"),
    });
    acks.start();
    stoppers.push(() => Promise.resolve(acks.stop()));
    const stores = new DeploymentStores({
      registry: deployments.registry,
      resolve: defaultResolveContext(env),
      logger: logger.child("datastores"),
    });
    // Pushed before the lanes' stopper, so it runs after the last step has finished.
    stoppers.push(() => stores.close());
    stoppers.push(() => redoRetirerOf(database).drain());
    const redo = {
      db: database,
      registry: deployments.registry,
      stores,
      logger: logger.child("datastores"),
    };
    if (database.driver === "pglite") await replayAtBoot(redo);
    const coverage = new CoverageService({
      registry: deployments.registry,
      resolve: defaultResolveContext(env),
      logger: logger.child("coverage"),
    });
    attachCoverage(database, coverage);
    // Opening and seeding runs beside the boot; an unusable store is logged, not fatal.
    void coverage.start();
    stoppers.push(() => coverage.close());
    addCoverageRoutes(router, { registry: deployments.registry, admin, coverage });
    const quotas = TenantQuotas.fromConfig(config, { db: database, clock });
    addTenantRoutes(router, { admin, quotas });
    const dispatcher = new Dispatcher({
      stores,
      db: database,
      registry: deployments.registry,
      transports,
      clock,
      logger: logger.child("dispatch"),
      lanes,
      replicaId,
      capBytes: config.require(PAYLOAD_CAP_BYTES),
      auditJournal,
      protection,
      deleteAtCompletion,
      claimTimeoutMs,
      acks,
      quotas,
    });
    // Requests still queued on a lane finish before the database closes.
    stoppers.push(() => lanes.idle());
    const resolveSecret = (reference: string) =>
      resolveReference(reference, defaultResolveContext(env));
    const sinks = collectSinks(transports);
    for (const factory of transports.list()) {
      const instance = await factory.spawn({
        channels: () => boundChannels(dispatcher.table, factory.name),
        deliver: (delivery) => dispatcher.deliver(delivery),
        http: router,
        logger: logger.child(`transport/${factory.name}`),
        resolveSecret,
        payloadCapBytes: config.require(PAYLOAD_CAP_BYTES),
        // A hold is settled by the first sweep past its timeout.
        ackHoldMs: config.require(ACK_DEFERRED_TIMEOUT) +
          config.require(ACK_DEFERRED_SWEEP_INTERVAL),
        lease: transportLeases({ db: database, replicaId, logger: logger.child("leases") }),
      });
      stoppers.push(() => instance.stop());
      for (const sink of instance.sinks ?? []) sinks.register(sink);
    }
    addInstanceRoutes(router, {
      db: database,
      registry: deployments.registry,
      admin,
      auditJournal,
      protection,
      config,
      cancel: (id) =>
        cancelInstance({
          db: database,
          registry: deployments.registry,
          clock,
          stores,
          auditJournal,
          protection,
          deleteAtCompletion,
          claimTimeoutMs,
          acks,
          // Its own owner per call: never a lane's, and never re-entrant with another call.
          owner: `${replicaId}/admin-${newId()}`,
        }, id),
    });

    const context: RuntimeContext = {
      db: database,
      config,
      clock,
      logger,
      replicaId,
      deployments,
      dispatcher,
      lanes,
      router,
      admin,
      transports,
      stores,
      auditJournal,
      protection,
      deleteAtCompletion,
      claimTimeoutMs,
      acks,
      resolveSecret,
    };
    const timers = await startTimers(context);
    stoppers.push(() => timers.stop());
    const externalTasks = await startExternalTasks(context);
    stoppers.push(() => externalTasks.stop());

    sinks.register(signalSink(context));
    const outbox = new OutboxWorker({
      db: database,
      sinks,
      logger: logger.child("outbox"),
      owner: replicaId,
      maxAttempts: config.get(OUTBOX_MAX_ATTEMPTS),
      pollMs: config.require(OUTBOX_POLL_INTERVAL),
      claimMs: config.require(OUTBOX_CLAIM_TIMEOUT),
      onPoisoned: (delivery) => timers.poisoned(delivery),
    });
    outbox.start();
    stoppers.push(() => outbox.stop());
    const sweeper = new Sweeper({
      db: database,
      logger: logger.child("sweeps"),
      owner: replicaId,
      redrive: (capture) => dispatcher.runCaptured(capture),
      replayStoreWrites: () =>
        replayLostWrites({ ...redo, olderThanMs: config.require(DATASTORE_REDO_AFTER) }),
      purgeStoreMarks: () => purgeStoreMarks(redo),
      claimTimeoutMs,
      retentionMs,
      orphanAfterMs: config.require(INBOX_REDRIVE_AFTER),
      intervalMs: config.require(ENGINE_SWEEP_INTERVAL),
      claimSweepMs: config.require(INSTANCE_SWEEP_INTERVAL),
      retentionSweepMs: config.require(RETENTION_SWEEP_INTERVAL),
    });
    sweeper.start();
    stoppers.push(() => sweeper.stop());

    // Converges once the dispatch side and the transports follow the registry.
    const source = await startConfiguredSource(config, deployments, logger.child("deployments"));
    if (source) stoppers.push(() => source.stop());

    addHealthRoutes(
      router,
      [
        databaseCheck(database, clock),
        migrationCheck(head),
        loaderCheck(lanes, deployments),
        ...(options.readiness ?? []),
      ],
      logger,
      { deadLanes: () => lanes.deadLanes(config.require(SHARD_STALL_TIMEOUT)) },
    );

    const adminPort = config.get(ADMIN_PORT);
    const host = config.require(HTTP_HOST);
    const path = httpSocketPath(config);
    const server = await listen(
      router.handler(adminPort === undefined ? "all" : "public"),
      config,
      logger,
      path === undefined ? { hostname: host, port: config.require(HTTP_PORT) } : { path },
    );
    servers.push(server);
    const { addr } = server;
    // A Unix socket has no port: 0, and the URL names the socket (http+unix://<encoded path>).
    const socket = "path" in addr ? addr.path : undefined;
    const port = "port" in addr ? addr.port : 0;
    const adminHost = config.require(ADMIN_HOST);
    const adminServer = adminPort === undefined ? undefined : await listen(
      router.handler("admin"),
      config,
      logger,
      { hostname: adminHost, port: adminPort },
    );
    if (adminServer) servers.push(adminServer);
    const adminUrl = adminServer &&
      `http://${loopbackFor(adminHost)}:${(adminServer.addr as Deno.NetAddr).port}`;
    logger.info(
      `sutra-engine ${ENGINE_VERSION} started: database ${database.description}; ${telemetry.posture}; ${protection.posture}; listening on ${
        socket === undefined ? `http://${host}:${port}` : `unix:${socket}`
      }${adminUrl === undefined ? "" : `; admin surface on ${adminUrl}`}`,
      {
        database: database.description,
        driver: database.driver,
        migrationsApplied: applied.length,
        schemaVersion: head,
        ...(socket === undefined ? { port } : { socket }),
        ...(adminServer ? { adminPort: (adminServer.addr as Deno.NetAddr).port } : {}),
        replicaId,
        shards: lanes.count,
        deployments: deployments.registry.list().length,
      },
    );
    const graceMillis = config.require(SHUTDOWN_GRACE);
    let stopping: Promise<void> | undefined;
    return {
      url: socket === undefined
        ? `http://${loopbackFor(host)}:${port}`
        : `http+unix://${encodeURIComponent(socket)}`,
      port,
      ...(adminUrl === undefined ? {} : { adminUrl }),
      database,
      deployments,
      stop: () => stopping ??= stop({ servers, database, graceMillis, logger, stoppers }),
    };
  } catch (error) {
    for (const s of servers) await s.shutdown();
    for (const s of stoppers.reverse()) await s().catch(() => {});
    await database.close();
    throw error;
  }
}

async function datasourceUrl(
  config: Config,
  env: Readonly<Record<string, string | undefined>>,
): Promise<string | undefined> {
  const url = config.get(DATASOURCE_URL)?.trim();
  if (!url) return undefined;
  const passwordRef = config.get(DATASOURCE_PASSWORD);
  return mergeCredentials(url, {
    username: config.get(DATASOURCE_USERNAME),
    password: passwordRef === undefined
      ? undefined
      : await resolveReference(passwordRef, defaultResolveContext(env)),
  });
}

/** A wildcard address is reached through loopback from this machine. */
function loopbackFor(host: string): string {
  return host === "0.0.0.0" ? "127.0.0.1" : host;
}

async function listen(
  handler: (request: Request) => Promise<Response>,
  config: Config,
  logger: Logger,
  at: { readonly hostname: string; readonly port: number } | { readonly path: string },
): Promise<HttpServer> {
  const options = {
    logger: logger.child("http"),
    limits: {
      maxConnections: config.require(HTTP_MAX_CONNECTIONS),
      idleTimeoutMs: config.require(HTTP_IDLE_TIMEOUT),
      headerTimeoutMs: config.require(HTTP_HEADER_TIMEOUT),
      bodyTimeoutMs: config.require(HTTP_BODY_TIMEOUT),
      maxHeaderBytes: config.require(HTTP_MAX_HEADER_BYTES),
    },
  };
  try {
    return "path" in at
      ? await serveHttpSocket(handler, { path: at.path, ...options })
      : serveHttp(handler, { ...at, ...options });
  } catch (error) {
    if (error instanceof DiagnosticError) throw error;
    if (!("path" in at)) throw listenFailed(at.hostname, at.port, error);
    throw new DiagnosticError(diagnostic(
      "SUTRA.HTTP.LISTEN_FAILED",
      `cannot listen on the Unix socket ${at.path}: ${errorMessage(error)}`,
      { attributes: { path: at.path } },
    ));
  }
}

function databaseCheck(database: Database, clock: Clock): ReadinessCheck {
  return {
    name: "database",
    async check() {
      const started = clock.now();
      await database.query("select 1");
      return {
        status: "UP",
        data: {
          driver: database.driver,
          target: database.description,
          latencyMs: clock.now() - started,
        },
      };
    },
  };
}

function loaderCheck(lanes: Lanes, deployments: DeploymentService): ReadinessCheck {
  return {
    name: "loader",
    check: () =>
      Promise.resolve({
        status: "UP",
        data: { shards: lanes.count, deployments: deployments.registry.list().length },
      }),
  };
}

function migrationCheck(head: number): ReadinessCheck {
  return {
    name: "migrations",
    check: () => Promise.resolve({ status: "UP", data: { schemaVersion: head } }),
  };
}

interface StopOptions {
  /** The main listener, and the admin one when it has its own. */
  readonly servers: readonly HttpServer[];
  readonly database: Database;
  readonly graceMillis: number;
  readonly logger: Logger;
  /** Background parts, stopped in reverse start order after the listener drains. */
  readonly stoppers: readonly (() => Promise<void>)[];
}

async function stop(o: StopOptions): Promise<void> {
  o.logger.info("sutra-engine stopping: finishing in-flight requests");
  let timer: ReturnType<typeof setTimeout> | undefined;
  const graceElapsed = new Promise<"timeout">((resolve) => {
    timer = setTimeout(() => resolve("timeout"), o.graceMillis);
  });
  const outcome = await Promise.race([
    Promise.all(o.servers.map((s) => s.shutdown())).then(() => "drained" as const),
    graceElapsed,
  ]);
  clearTimeout(timer);
  if (outcome === "timeout") {
    o.logger.warn("shutdown grace period elapsed with requests still in flight");
    for (const s of o.servers) s.close();
  }
  for (const s of [...o.stoppers].reverse()) await s();
  await o.database.close();
  o.logger.info("sutra-engine stopped");
}

/**
 * The transports deployments may use: every linked one, or those
 * `sutra.allowed-transports` names, each of which must be linked.
 */
function allowedOf(config: Config): TransportCatalog {
  const value = config.get(ALLOWED_TRANSPORTS);
  if (value === undefined) return transports;
  const names = value.split(",").map((n) => n.trim()).filter((n) => n !== "");
  const unknown = names.filter((n) => !transports.has(n));
  if (unknown.length > 0) {
    throw new DiagnosticError(diagnostic(
      "SUTRA.CONFIG.PROPERTY.INVALID",
      `sutra.allowed-transports names ${unknown.map((n) => `'${n}'`).join(", ")}, which this ` +
        `build does not link (linked: ${transports.names().join(", ")})`,
      { attributes: { key: ALLOWED_TRANSPORTS.key } },
    ));
  }
  return allowedTransports(transports, names);
}

/**
 * Releases every instance claim in the embedded database. Its directory is locked to one process,
 * so a claim found at boot was left by an earlier run that died mid-step: waiting the claim timeout
 * out would only hold its instances (timers due, completions, relays) for nothing.
 */
async function releaseEarlierClaims(database: Database, logger: Logger): Promise<void> {
  const released = await releaseStuckClaims(database, 0);
  if (released === 0) return;
  logger.info(`released ${released} instance claim(s) an earlier run of the engine left`, {
    code: "SUTRA.RUNTIME.CLAIM.SWEPT",
  });
}
