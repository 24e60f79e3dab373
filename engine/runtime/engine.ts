/**
 * Boots one engine: opens and migrates the engine database, serves the HTTP
 * surfaces, and stops cleanly (in-flight requests finished, database closed).
 *
 * @module
 */
import {
  type Clock,
  type Config,
  defaultResolveContext,
  diagnostic,
  DiagnosticError,
  ENGINE_VERSION,
  type Logger,
  resolveReference,
  systemClock,
} from "../core/mod.ts";
import {
  type Database,
  ENGINE_MIGRATIONS,
  mergeCredentials,
  migrate,
  openDatabase,
} from "../persistence/mod.ts";
import { addHealthRoutes, type ReadinessCheck } from "./health.ts";
import { Router } from "./http_router.ts";
import {
  DATASOURCE_EMBEDDED_DIR,
  DATASOURCE_PASSWORD,
  DATASOURCE_SCHEMA,
  DATASOURCE_URL,
  DATASOURCE_USERNAME,
  HTTP_HOST,
  HTTP_PORT,
  OTLP_ENDPOINT,
  SHUTDOWN_GRACE,
} from "./settings.ts";

/** Options for {@link startEngine}. */
export interface EngineOptions {
  readonly config: Config;
  readonly logger: Logger;
  readonly clock?: Clock;
  /** Environment consulted for secret references and OTEL_* variables. */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

/** A running engine. */
export interface RunningEngine {
  /** Base URL of the HTTP listener, e.g. `http://127.0.0.1:8080`. */
  readonly url: string;
  readonly port: number;
  readonly database: Database;
  /** Stops accepting requests, waits for in-flight ones (up to the grace period), closes the database. */
  stop(): Promise<void>;
}

/** Starts an engine; a failing stage throws a DiagnosticError and leaves nothing running. */
export async function startEngine(options: EngineOptions): Promise<RunningEngine> {
  const { config, logger } = options;
  const env = options.env ?? Deno.env.toObject();
  const clock = options.clock ?? systemClock;

  const database = await openDatabase(await datasourceUrl(config, env), {
    dataDir: config.require(DATASOURCE_EMBEDDED_DIR),
    schema: config.get(DATASOURCE_SCHEMA),
  });
  let server: Deno.HttpServer<Deno.NetAddr> | undefined;
  try {
    const applied = await migrate(database, ENGINE_MIGRATIONS);
    const head = ENGINE_MIGRATIONS.reduce((max, m) => Math.max(max, m.version), 0);

    const router = new Router(logger.child("http"));
    addHealthRoutes(router, [databaseCheck(database, clock), migrationCheck(head)]);

    server = listen(router, config, logger);
    const port = server.addr.port;
    const host = config.require(HTTP_HOST);
    logger.info(
      `sutra-engine ${ENGINE_VERSION} started: database ${database.description}; ${
        telemetryPosture(config, env)
      }; listening on http://${host}:${port}`,
      {
        database: database.description,
        driver: database.driver,
        migrationsApplied: applied.length,
        schemaVersion: head,
        port,
      },
    );
    const running = server;
    const graceMillis = config.require(SHUTDOWN_GRACE);
    let stopping: Promise<void> | undefined;
    return {
      url: `http://${host === "0.0.0.0" ? "127.0.0.1" : host}:${port}`,
      port,
      database,
      stop: () => stopping ??= stop(running, database, graceMillis, logger),
    };
  } catch (error) {
    if (server) await server.shutdown();
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

function listen(router: Router, config: Config, logger: Logger): Deno.HttpServer<Deno.NetAddr> {
  const port = config.require(HTTP_PORT);
  const hostname = config.require(HTTP_HOST);
  try {
    return Deno.serve({
      port,
      hostname,
      onListen: () => {},
      onError: (error) => {
        logger.error("request failed unexpectedly", { code: "SUTRA.RUNTIME.UNEXPECTED", error });
        return new Response(null, { status: 500 });
      },
    }, (request) => router.handle(request));
  } catch (error) {
    throw new DiagnosticError(
      diagnostic(
        "SUTRA.HTTP.LISTEN_FAILED",
        `cannot listen on ${hostname}:${port}: ${error instanceof Error ? error.message : error}`,
        { attributes: { port, host: hostname } },
      ),
    );
  }
}

function telemetryPosture(
  config: Config,
  env: Readonly<Record<string, string | undefined>>,
): string {
  const endpoint = config.get(OTLP_ENDPOINT) ?? env["OTEL_EXPORTER_OTLP_ENDPOINT"];
  if (!endpoint) {
    return "telemetry export off (no OTLP endpoint configured) — JSON stdout logs only";
  }
  // Honest about the build: an endpoint is configured but no exporter is linked.
  return `telemetry export off (OTLP endpoint ${endpoint} is configured but this build links no OTLP exporter) — JSON stdout logs only`;
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

function migrationCheck(head: number): ReadinessCheck {
  return {
    name: "migrations",
    check: () => Promise.resolve({ status: "UP", data: { schemaVersion: head } }),
  };
}

async function stop(
  server: Deno.HttpServer<Deno.NetAddr>,
  database: Database,
  graceMillis: number,
  logger: Logger,
): Promise<void> {
  logger.info("sutra-engine stopping: finishing in-flight requests");
  let timer: ReturnType<typeof setTimeout> | undefined;
  const graceElapsed = new Promise<"timeout">((resolve) => {
    timer = setTimeout(() => resolve("timeout"), graceMillis);
  });
  const outcome = await Promise.race([
    server.shutdown().then(() => "drained" as const),
    graceElapsed,
  ]);
  clearTimeout(timer);
  if (outcome === "timeout") {
    logger.warn("shutdown grace period elapsed with requests still in flight");
  }
  await database.close();
  logger.info("sutra-engine stopped");
}
