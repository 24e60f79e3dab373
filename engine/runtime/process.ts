/**
 * The `sutra-engine` process lifecycle: load configuration, boot, wait for
 * SIGINT/SIGTERM, stop. Boot failures print one line per diagnostic on
 * stderr (and a JSON log record) and yield a non-zero exit code.
 *
 * @module
 */
import {
  type Config,
  createLogger,
  defaultResolveContext,
  type Diagnostic,
  DiagnosticError,
  formatDiagnostic,
  loadConfig,
  type Logger,
  resolveReference,
} from "../core/mod.ts";
import { type RunningEngine, startEngine } from "./engine.ts";
import { LOG_FILTER, SERVICE_NAME } from "./settings.ts";
import { errorMessage } from "../core/errors.ts";

/** Options for {@link runEngineProcess}. */
export interface EngineProcessOptions {
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Resolves when the process should stop (defaults to SIGINT/SIGTERM). */
  readonly stopSignal?: Promise<unknown>;
  /** Called once the engine is serving (tests use it). */
  readonly onStarted?: (engine: RunningEngine) => void;
}

/** Runs the engine until a stop signal; resolves to the process exit code. */
export async function runEngineProcess(options: EngineProcessOptions = {}): Promise<number> {
  const env = options.env ?? Deno.env.toObject();
  // Listen before booting: a signal that arrives mid-boot must still stop cleanly.
  const stopRequested = options.stopSignal ?? signalled();
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
    engine = await startEngine({ config, logger, env });
  } catch (error) {
    return bootFailed(error, logger);
  }
  options.onStarted?.(engine);
  await stopRequested;
  await engine.stop();
  return 0;
}

function bootFailed(error: unknown, logger: Logger): number {
  const diagnostics: readonly Diagnostic[] = error instanceof DiagnosticError
    ? error.diagnostics
    : [{
      code: "SUTRA.ENGINE.BOOT_FAILED",
      severity: "ERROR",
      message: errorMessage(error),
    }];
  for (const d of diagnostics) {
    logger.error(d.message, { code: d.code, ...d.attributes });
    console.error(formatDiagnostic(d));
  }
  return 1;
}

function signalled(): Promise<Deno.Signal> {
  return new Promise((resolve) => {
    const signals: Deno.Signal[] = ["SIGINT", "SIGTERM"];
    const handlers = signals.map((signal) => {
      const handler = () => {
        signals.forEach((s, i) => Deno.removeSignalListener(s, handlers[i]));
        resolve(signal);
      };
      Deno.addSignalListener(signal, handler);
      return handler;
    });
  });
}
