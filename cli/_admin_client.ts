/**
 * The way the operator commands (`deploy`, `undeploy`, `instances`,
 * `incidents`) reach a running engine's admin API: which engine and key the
 * flags or the environment name, and one request with its answer read as
 * JSON. A command-specific rendering stays with each command.
 *
 * @module
 */
import { diagnostic } from "../engine/core/diagnostic.ts";
import { errorMessage } from "../engine/core/errors.ts";
import { type CliIo, type CliLog, cliLog, DiagnosticError, UsageError } from "./command.ts";
import { type CommandArgs, stringFlag } from "./describe.ts";

/** Variable holding the admin API key unless `--api-key-env` names another. */
export const DEFAULT_API_KEY_ENV = "SUTRA_ADMIN_API_KEY";

/** Variable naming the engine when `--engine-url` is not given. */
export const ENGINE_URL_ENV = "SUTRA_ENGINE_URL";

/** The engine a command talks to when neither `--engine-url` nor the variable names one: a local engine on its default port. */
export const DEFAULT_ENGINE_URL = "http://127.0.0.1:8080";

/** Flags every admin command takes. */
export const CONNECTION_FLAGS = {
  "engine-url": { type: "string" },
  "api-key-env": { type: "string" },
  "api-key-header": { type: "string" },
  format: { type: "string" },
} as const;

/** The connection flags as usage lines. */
export const CONNECTION_USAGE =
  `  --engine-url URL      base URL of the engine (default: \$${ENGINE_URL_ENV}, else
                        ${DEFAULT_ENGINE_URL})
  --api-key-env NAME    environment variable holding the admin API key
                        (default ${DEFAULT_API_KEY_ENV})
  --api-key-header H    header carrying the key (default x-api-key)
  --format text|json    report format (default text)`;

/** What the engine answered. */
export interface AdminAnswer {
  readonly status: number;
  readonly body: Record<string, unknown>;
}

/** One engine, as the flags (or the environment) name it. */
export interface EngineConnection {
  /** The engine's base URL, without a trailing slash. */
  readonly base: string;
  /** The API key header, when a key is set. */
  readonly headers: Readonly<Record<string, string>>;
  /** The command's log: each request at trace, its answer and time at debug. */
  readonly log: CliLog;
}

/** Resolves the engine URL and API key; a URL that is not http(s) is a usage error. */
export function connectEngine(parsed: CommandArgs, io: CliIo, scope: string): EngineConnection {
  const url = stringFlag(parsed, "engine-url") ?? (io.env(ENGINE_URL_ENV) || DEFAULT_ENGINE_URL);
  let base: URL;
  try {
    base = new URL(url);
  } catch {
    const port = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*:(\d+)(?:[/?#]|$)/i.exec(url)?.[1];
    const why = port !== undefined && Number(port) > 65535
      ? `its port ${port} is out of range (at most 65535)`
      : "it is not a URL";
    throw new UsageError(
      `the engine URL (--engine-url or ${ENGINE_URL_ENV}) '${url}' cannot be used: ${why}`,
    );
  }
  if (base.protocol !== "http:" && base.protocol !== "https:") {
    throw new UsageError(`the engine URL must be http or https, not '${base.protocol}'`);
  }
  const keyEnv = stringFlag(parsed, "api-key-env") ?? DEFAULT_API_KEY_ENV;
  const key = io.env(keyEnv);
  const header = stringFlag(parsed, "api-key-header") ?? "x-api-key";
  const log = cliLog(io, scope);
  // The key's value is a credential: only where it came from is logged.
  log.debug(`engine ${base.href}; API key ${key ? `from ${keyEnv} in ${header}` : "none"}`);
  return {
    base: base.href.replace(/\/+$/, ""),
    headers: key ? { [header]: key } : {},
    log,
  };
}

/**
 * One request to the engine. An engine that cannot be reached, or answers
 * with a body that is not JSON, is a diagnostic; any status is an answer.
 */
export async function callEngine(
  connection: EngineConnection,
  path: string,
  init: RequestInit,
): Promise<AdminAnswer> {
  const method = init.method ?? "GET";
  connection.log.trace(`${method} ${connection.base}${path}`);
  const started = performance.now();
  let response: Response;
  try {
    response = await fetch(`${connection.base}${path}`, {
      ...init,
      headers: { ...connection.headers, ...(init.headers as Record<string, string>) },
    });
  } catch (error) {
    throw new DiagnosticError(diagnostic(
      "SUTRA.CLI.ENGINE_UNREACHABLE",
      `cannot reach the engine at ${connection.base}: ${errorMessage(error)}`,
      { attributes: { engineUrl: connection.base } },
    ));
  }
  const text = await response.text();
  connection.log.debug(
    `${method} ${path}: ${response.status} in ${(performance.now() - started).toFixed(1)} ms`,
  );
  try {
    return { status: response.status, body: JSON.parse(text) };
  } catch {
    throw new DiagnosticError(diagnostic(
      "SUTRA.CLI.ENGINE_RESPONSE_INVALID",
      `the engine answered ${response.status} with a body that is not JSON`,
      { attributes: { status: response.status } },
    ));
  }
}

/** Calls the admin API of one engine with an optional JSON body. */
export interface AdminClient {
  call(method: string, path: string, body?: unknown): Promise<AdminAnswer>;
}

/** The JSON client for the engine the flags (or the environment) name. */
export function adminClient(parsed: CommandArgs, io: CliIo, scope: string): AdminClient {
  const connection = connectEngine(parsed, io, scope);
  return {
    call: (method, path, body) =>
      callEngine(connection, path, {
        method,
        headers: body === undefined ? {} : { "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      }),
  };
}
