/**
 * Helpers for the runtime tests: a real engine on a loopback port (embedded
 * in-memory PGlite, or a schema on the tier-2 PostgreSQL server), packages
 * sealed from directories exactly as `sutra package` seals them, and small
 * HTTP helpers.
 *
 * @module
 */
import "../../io/secrets/mod.ts";
import "../../io/codecs/mod.ts";
import "../../io/transports/mod.ts";
import assert from "node:assert/strict";
import { configKeys, createLogger, loadConfig } from "../../engine/core/mod.ts";
import { transports } from "../../engine/core/transport.ts";
import { readPackageDir, sealPackage } from "../../engine/package/mod.ts";
import { type RunningEngine, startEngine } from "../../engine/runtime/mod.ts";

/** Seals the package directory `dir` (absolute, or relative to the repository root) into archive bytes. */
export async function sealDir(dir: string): Promise<Uint8Array> {
  const path = dir.startsWith("/") ? dir : new URL(`../../${dir}`, import.meta.url).pathname;
  const read = await readPackageDir(path);
  assert.ok(read.files, read.diagnostics.map((d) => d.message).join("\n"));
  const sealed = await sealPackage(read.files, { transports });
  assert.ok(
    sealed.archive,
    sealed.diagnostics.map((d) => `${d.code} ${d.source?.uri}:${d.source?.line} ${d.message}`)
      .join("\n"),
  );
  return sealed.archive.bytes;
}

/** Options for {@link bootEngine}. */
export interface BootOptions {
  /** Datasource URL (default `memory://`). */
  readonly url?: string;
  readonly schema?: string;
  /** Extra `SUTRA_*` variables. */
  readonly env?: Readonly<Record<string, string>>;
  readonly replicaId?: string;
}

/** Starts an engine on a free loopback port with the admin surface open (dev escape). */
export async function bootEngine(options: BootOptions = {}): Promise<RunningEngine> {
  const env: Record<string, string> = {
    SUTRA_HTTP_PORT: "0",
    SUTRA_HTTP_HOST: "127.0.0.1",
    SUTRA_DATASOURCE_URL: options.url ?? "memory://",
    SUTRA_ADMIN_OIDC_DEV_DISABLED: "true",
    SUTRA_SHUTDOWN_GRACE_PERIOD: "PT5S",
    ...(options.schema ? { SUTRA_DATASOURCE_SCHEMA: options.schema } : {}),
    ...options.env,
  };
  const config = await loadConfig({ env, cwd: "/nonexistent-sutra-dir", registry: configKeys });
  const logger = createLogger("engine", { filter: "error", write: () => {} });
  return await startEngine({ config, logger, env, replicaId: options.replicaId });
}

/** A parsed HTTP answer. */
export interface Answer {
  readonly status: number;
  readonly body: Record<string, unknown>;
  readonly headers: Headers;
}

/** POSTs `body` (JSON-encoded unless a string) and parses the JSON answer. */
export async function post(
  engine: { url: string },
  path: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<Answer> {
  const response = await fetch(`${engine.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await response.text();
  return {
    status: response.status,
    body: text === "" ? {} : JSON.parse(text),
    headers: response.headers,
  };
}

/** GETs a JSON document. */
export async function get(engine: { url: string }, path: string): Promise<Answer> {
  const response = await fetch(`${engine.url}${path}`);
  return { status: response.status, body: await response.json(), headers: response.headers };
}

/** The first diagnostic code of an answer. */
export function codeOf(answer: Answer): string | undefined {
  return (answer.body.diagnostics as { code: string }[] | undefined)?.[0]?.code;
}

/** Boots an engine, deploys the package directory `dir`, runs `run`, and stops the engine. */
export async function withDeployed(
  dir: string,
  options: BootOptions,
  run: (engine: RunningEngine) => Promise<void>,
): Promise<void> {
  const engine = await bootEngine(options);
  try {
    await engine.deployments.deploy(await sealDir(dir));
    await run(engine);
  } finally {
    await engine.stop();
  }
}

/** Checks `check` every 25 ms for about `timeoutMs` (10 s); fails the test if it never holds. */
export async function until(check: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  for (let i = 0; i < timeoutMs / 25; i++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error("the condition never held");
}

/** The status of every instance row, sorted. */
export async function instanceStatuses(engine: RunningEngine): Promise<string[]> {
  const { rows } = await engine.database.query<{ status: string }>(
    "select status from instances order by status",
  );
  return rows.map((r) => r.status);
}
