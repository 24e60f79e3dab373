/**
 * The `sutra-engine` process lifecycle: read the command line, load
 * configuration, check the listen port, boot, wait for SIGINT/SIGTERM, stop.
 * Boot failures print one line per diagnostic on stderr (and a JSON log
 * record) and yield exit code 1; a bad command line prints the usage and
 * yields 2. An operation the build's permissions do not allow (a compiled
 * flavour without network access asked to reach a database server, say) is
 * `SUTRA.ENGINE.PERMISSION_DENIED`, never a stack trace.
 *
 * @module
 */
import { parseArgs } from "node:util";
import {
  type Config,
  createLogger,
  defaultResolveContext,
  type Diagnostic,
  diagnostic,
  DiagnosticError,
  ENGINE_VERSION,
  envName,
  formatDiagnostic,
  loadConfig,
  type Logger,
  resolveReference,
} from "../core/mod.ts";
import { type RunningEngine, startEngine } from "./engine.ts";
import type { ReadinessCheck } from "./health.ts";
import { listenFailed } from "./http_server.ts";
import { HTTP_HOST, HTTP_PORT, httpSocketPath, LOG_FILTER, SERVICE_NAME } from "./settings.ts";
import { errorMessage } from "../core/errors.ts";
import { refusalHint, refusalIn } from "../core/permissions.ts";

/** The exit code of a command line the engine does not understand. */
export const EXIT_USAGE = 2;

/** The engine's command-line help. */
export const ENGINE_USAGE = `Usage: sutra-engine [--port N] [--config FILE] [--datasource URL]
       sutra-engine --help | --version

Runs the Sutra engine until SIGINT or SIGTERM (Ctrl-C).

  --port N          listen on port N (sutra.http.port, SUTRA_HTTP_PORT; 0 picks a free one)
  --config FILE     read configuration from FILE (SUTRA_CONFIG; default ./sutra.properties)
  --datasource URL  engine database (sutra.datasource.url, SUTRA_DATASOURCE_URL):
                    postgres://… for a server, memory:// for a throwaway one;
                    unset: the embedded database in sutra.datasource.embedded-dir
  -h, --help        print this help
  -V, --version     print the version

Options override the environment, which overrides the configuration file.
Exit codes: 0 stopped cleanly, 1 could not start, 2 bad command line.
`;

/** Options for {@link runEngineProcess}. */
export interface EngineProcessOptions {
  /** The command line, without the program name (none: no options). */
  readonly args?: readonly string[];
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Resolves when the process should stop (defaults to SIGINT/SIGTERM). */
  readonly stopSignal?: Promise<unknown>;
  /** Called once the engine is serving (tests use it). */
  readonly onStarted?: (engine: RunningEngine) => void;
  /** Checks `/sutra/health/ready` runs besides the engine's own (a start script's deployments). */
  readonly readiness?: readonly ReadinessCheck[];
}

/** Runs the engine until a stop signal; resolves to the process exit code. */
export async function runEngineProcess(options: EngineProcessOptions = {}): Promise<number> {
  const command = parseCommandLine(options.args ?? []);
  if (command.exit !== undefined) return command.exit;
  const env = { ...(options.env ?? Deno.env.toObject()), ...command.env };
  // Listen before booting: a signal that arrives mid-boot must still stop cleanly.
  const stopRequested = options.stopSignal ?? stopSignals();
  let config: Config;
  try {
    config = await loadConfig({
      env,
      expand: (value) => resolveReference(value, defaultResolveContext(env)),
    });
  } catch (error) {
    return bootFailed(error, createLogger("engine"));
  }
  const logger = createLogger("engine", {
    filter: config.require(LOG_FILTER),
    serviceName: config.require(SERVICE_NAME),
  });
  for (const w of config.warnings) logger.warn(w.message, { code: w.code });

  let engine: RunningEngine;
  try {
    // A busy port is reported before the database is opened and migrated.
    if (httpSocketPath(config) === undefined) {
      probePort(config.require(HTTP_HOST), config.require(HTTP_PORT));
    }
    engine = await startEngine({ config, logger, env, readiness: options.readiness });
  } catch (error) {
    return bootFailed(error, logger);
  }
  options.onStarted?.(engine);
  await stopRequested;
  await engine.stop();
  return 0;
}

interface CommandLine {
  /** Variables the options set (they take precedence over the environment). */
  readonly env: Record<string, string>;
  /** Set when the command line was handled (help, version) or refused. */
  readonly exit?: number;
}

/** Reads the engine's options; help and version are printed here. */
export function parseCommandLine(args: readonly string[]): CommandLine {
  let values: Record<string, string | boolean | undefined>;
  try {
    values = parseArgs({
      args: [...args],
      options: {
        port: { type: "string" },
        config: { type: "string" },
        datasource: { type: "string" },
        help: { type: "boolean", short: "h" },
        version: { type: "boolean", short: "V" },
      },
      strict: true,
      allowPositionals: false,
    }).values;
  } catch (error) {
    return usageError(errorMessage(error));
  }
  if (values.help) {
    console.log(ENGINE_USAGE);
    return { env: {}, exit: 0 };
  }
  if (values.version) {
    console.log(`sutra-engine ${ENGINE_VERSION}`);
    return { env: {}, exit: 0 };
  }
  const env: Record<string, string> = {};
  if (typeof values.port === "string") {
    if (!/^\d{1,5}$/.test(values.port) || Number(values.port) > 65535) {
      return usageError(`--port must be a port number (0-65535), not '${values.port}'`);
    }
    env[envName(HTTP_PORT.key)] = values.port;
  }
  if (typeof values.config === "string") env["SUTRA_CONFIG"] = values.config;
  if (typeof values.datasource === "string") env["SUTRA_DATASOURCE_URL"] = values.datasource;
  return { env };
}

function usageError(reason: string): CommandLine {
  const line = formatDiagnostic(diagnostic("SUTRA.ENGINE.USAGE", `sutra-engine: ${reason}`));
  console.error(`${line}\n\n${ENGINE_USAGE}`);
  return { env: {}, exit: EXIT_USAGE };
}

/** Fails with `SUTRA.HTTP.LISTEN_FAILED` when the port cannot be bound (port 0 always can). */
function probePort(hostname: string, port: number): void {
  if (port === 0) return;
  let listener: Deno.Listener;
  try {
    listener = Deno.listen({ hostname, port });
  } catch (error) {
    if (deniedByPermissions(error)) throw error;
    throw listenFailed(hostname, port, error);
  }
  listener.close();
}

/** `error`, or an error it wraps, when it is Deno refusing what the permissions do not grant. */
function deniedByPermissions(error: unknown): Error | undefined {
  for (let e = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    if (e instanceof Deno.errors.NotCapable || e instanceof Deno.errors.PermissionDenied) {
      return e;
    }
  }
  return undefined;
}

/**
 * `SUTRA.ENGINE.PERMISSION_DENIED` for a failure Deno's permissions caused,
 * naming the permission, the target and the stage that needed it.
 */
function permissionDenied(stage: string, message: string): Diagnostic | undefined {
  const refusal = refusalIn(message);
  if (refusal === undefined) return undefined;
  return diagnostic(
    "SUTRA.ENGINE.PERMISSION_DENIED",
    `the engine could not start: ${refusalHint(refusal)} (${stage})`,
    { attributes: { ...refusal, stage } },
  );
}

function bootFailed(error: unknown, logger: Logger): number {
  const found: readonly Diagnostic[] = error instanceof DiagnosticError ? error.diagnostics : [{
    code: "SUTRA.ENGINE.BOOT_FAILED",
    severity: "ERROR",
    message: errorMessage(error),
  }];
  const diagnostics = found.map((d) => permissionDenied(d.code, d.message) ?? d);
  for (const d of diagnostics) {
    logger.error(d.message, { code: d.code, ...d.attributes });
    console.error(formatDiagnostic(d));
  }
  return 1;
}

/**
 * Resolves with the first SIGINT or SIGTERM the process receives. Later ones
 * are absorbed for as long as the process lives: Ctrl-C reaches every process
 * of the terminal's group, and a wrapper such as `deno task` passes its own
 * copy on as well, so the engine often gets two; the second must not cut the
 * shutdown short (the grace period already bounds it).
 */
function stopSignals(): Promise<Deno.Signal> {
  return new Promise((resolve) => {
    for (const signal of ["SIGINT", "SIGTERM"] as const) {
      Deno.addSignalListener(signal, () => resolve(signal));
    }
  });
}
