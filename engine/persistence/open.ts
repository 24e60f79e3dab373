/**
 * Opens the engine database named by a datasource URL: a PostgreSQL server,
 * an embedded PGlite directory (the default), or a throwaway in-memory
 * database.
 *
 * @module
 */
import { join } from "node:path";
import { diagnostic, DiagnosticError } from "../core/diagnostic.ts";
import type { Logger } from "../core/log.ts";
import type { Database } from "./database.ts";
import { type DirectoryLock, LOCK_FILE, lockDirectory } from "./_directory_lock.ts";
import { openPglite } from "./pglite_driver.ts";
import { openPostgres } from "./postgres_driver.ts";
import { errorMessage } from "../core/errors.ts";

/** Where the embedded database lives when no URL is configured. */
export const DEFAULT_EMBEDDED_DIR = "./.sutra/engine-db";

/** How long a server connection may take before opening fails. */
export const DEFAULT_CONNECT_TIMEOUT_SECONDS = 5;

/** The URL that selects a fresh in-memory database. */
export const MEMORY_URL = "memory://";

/** Options for {@link openDatabase}. */
export interface OpenDatabaseOptions {
  /** Schema for every connection (created if missing); unset keeps the default search path. */
  readonly schema?: string;
  /** Embedded directory used when the URL is empty (default {@link DEFAULT_EMBEDDED_DIR}). */
  readonly dataDir?: string;
  /** Receives server notices and listener failures. */
  readonly log?: Logger;
  /** Server connect timeout in seconds (default {@link DEFAULT_CONNECT_TIMEOUT_SECONDS}). */
  readonly connectTimeoutSeconds?: number;
  /** Server pool size (default 10). */
  readonly maxConnections?: number;
}

/** What a datasource URL points at. */
export type DatabaseTarget =
  | { readonly kind: "server"; readonly url: string; readonly description: string }
  | { readonly kind: "directory"; readonly path: string; readonly description: string }
  | { readonly kind: "memory"; readonly description: string };

// Relative to the embedded directory: the PGlite files sit beside the lock.
const PGDATA = "pgdata";

/**
 * Opens the database `url` names. Empty or absent ⇒ embedded PGlite in
 * `options.dataDir`; `memory://` ⇒ in-memory PGlite; `file://<dir>` ⇒
 * embedded PGlite in `<dir>`; `postgres://` or `postgresql://` ⇒ a server,
 * checked with `select 1` before this resolves.
 *
 * Throws {@link DiagnosticError}: `SUTRA.DB.URL_INVALID` for any other URL,
 * `SUTRA.CONFIG.PROPERTY.INVALID` for an unusable schema name,
 * `SUTRA.DB.UNREACHABLE` when the server does not answer or the embedded
 * directory cannot be opened or is in use by another process.
 */
export async function openDatabase(
  url: string | undefined,
  options: OpenDatabaseOptions = {},
): Promise<Database> {
  const target = resolveDatabaseTarget(url, options);
  checkSchema(options.schema);
  const described = options.schema === undefined
    ? target.description
    : `${target.description} (schema ${options.schema})`;
  switch (target.kind) {
    case "server":
      return await openServer(target.url, described, options);
    case "directory":
      return await openDirectory(target.path, described, options);
    case "memory":
      try {
        return await openPglite({
          schema: options.schema,
          description: described,
          log: options.log,
        });
      } catch (error) {
        throw unreachable(`cannot start the in-memory database: ${messageOf(error)}`, described);
      }
  }
}

/**
 * Classifies a datasource URL without opening anything; throws
 * `SUTRA.DB.URL_INVALID` (naming the URL without credentials) when it is not
 * one of the accepted forms.
 */
export function resolveDatabaseTarget(
  url: string | undefined,
  options: Pick<OpenDatabaseOptions, "dataDir"> = {},
): DatabaseTarget {
  const text = url?.trim() ?? "";
  if (text === "") {
    const path = options.dataDir ?? DEFAULT_EMBEDDED_DIR;
    return { kind: "directory", path, description: `pglite:${path}` };
  }
  if (text.startsWith(MEMORY_URL)) return { kind: "memory", description: `pglite:${MEMORY_URL}` };
  if (text.startsWith("file://") && text.length > "file://".length) {
    const path = text.slice("file://".length);
    return { kind: "directory", path, description: `pglite:${path}` };
  }
  if (/^postgres(ql)?:\/\//i.test(text)) {
    const parsed = URL.parse(text);
    if (parsed && parsed.hostname !== "") {
      return { kind: "server", url: text, description: redactUrl(parsed) };
    }
  }
  throw new DiagnosticError(diagnostic(
    "SUTRA.DB.URL_INVALID",
    `datasource URL '${redactText(text)}' is not postgres://…, postgresql://…, file://<dir> or ` +
      `${MEMORY_URL}; leave it empty for the embedded database`,
  ));
}

/**
 * Puts a user and password into a server URL (percent-encoding them), the way
 * separate username/password settings combine with a URL. Other URLs are
 * returned unchanged: the embedded database has no credentials.
 */
export function mergeCredentials(
  url: string,
  credentials: { readonly username?: string; readonly password?: string },
): string {
  if (!/^postgres(ql)?:\/\//i.test(url)) return url;
  const parsed = URL.parse(url);
  if (!parsed) return url;
  if (credentials.username) parsed.username = credentials.username;
  if (credentials.password) parsed.password = credentials.password;
  return parsed.href;
}

function redactUrl(url: URL): string {
  return `${url.protocol}//${url.host}${url.pathname}`;
}

// Drops any `user:password@` part, whatever the scheme.
function redactText(text: string): string {
  return text.replace(/\/\/[^/?#]*@/, "//");
}

function checkSchema(schema: string | undefined): void {
  if (schema === undefined) return;
  const bytes = new TextEncoder().encode(schema).length;
  if (bytes === 0 || bytes > 63 || schema.includes("\0")) {
    throw new DiagnosticError(diagnostic(
      "SUTRA.CONFIG.PROPERTY.INVALID",
      `schema name '${schema}' must be 1 to 63 bytes long`,
    ));
  }
}

async function openServer(
  url: string,
  description: string,
  options: OpenDatabaseOptions,
): Promise<Database> {
  try {
    return await openPostgres({
      url,
      schema: options.schema,
      description,
      connectTimeoutSeconds: options.connectTimeoutSeconds ?? DEFAULT_CONNECT_TIMEOUT_SECONDS,
      maxConnections: options.maxConnections,
      log: options.log,
    });
  } catch (error) {
    const password = URL.parse(url)?.password;
    let reason = messageOf(error);
    if (password) {
      reason = reason.replaceAll(password, "***").replaceAll(decodeURIComponent(password), "***");
    }
    throw unreachable(
      `cannot connect to the engine database ${description}: ${reason}`,
      description,
    );
  }
}

async function openDirectory(
  dir: string,
  description: string,
  options: OpenDatabaseOptions,
): Promise<Database> {
  let lock: DirectoryLock | undefined;
  try {
    await Deno.mkdir(dir, { recursive: true });
    lock = await lockDirectory(dir);
  } catch (error) {
    throw unreachable(
      `cannot use the embedded database directory ${dir}: ${messageOf(error)}`,
      description,
    );
  }
  if (!lock) {
    throw unreachable(
      `embedded database ${dir} is in use by another process (it holds ${join(dir, LOCK_FILE)}): ` +
        "an embedded database serves one process at a time; stop the other one (an engine, or a " +
        "sutra command), or give this one its own directory (SUTRA_DATASOURCE_EMBEDDED_DIR)",
      description,
    );
  }
  const held = lock;
  try {
    return await openPglite({
      dataDir: join(dir, PGDATA),
      schema: options.schema,
      description,
      onClose: () => held.release(),
      log: options.log,
    });
  } catch (error) {
    await held.release();
    throw unreachable(`cannot open the embedded database ${dir}: ${messageOf(error)}`, description);
  }
}

function unreachable(message: string, target: string): DiagnosticError {
  return new DiagnosticError(
    diagnostic("SUTRA.DB.UNREACHABLE", message, { attributes: { target } }),
  );
}

function messageOf(error: unknown): string {
  const text = errorMessage(error);
  return text.replace(/\s*\n\s*/g, " ").trim() || (error as Error)?.name || "unknown error";
}
