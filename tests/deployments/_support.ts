/**
 * Shared pieces of the deployment tests: a migrated database, archives
 * sealed from the fixture package (optionally edited into another revision
 * of the same slot), configuration and a recording logger.
 *
 * @module
 */
import "../../io/codecs/mod.ts";
import "../../io/secrets/mod.ts";
import {
  type Config,
  configKeys,
  createLogger,
  loadConfig,
  type Logger,
  systemClock,
} from "../../engine/core/mod.ts";
import {
  type PackageFiles,
  readPackageDir,
  sealArchive,
  type SealedArchive,
  sealPackage,
  type TransportCatalog,
  transportCatalog,
} from "../../engine/package/mod.ts";
import {
  type Database,
  ENGINE_MIGRATIONS,
  MEMORY_URL,
  migrate,
  openDatabase,
} from "../../engine/persistence/mod.ts";
import { RUNTIME_MIGRATION } from "../../engine/persistence/migrations/v0002_runtime.ts";
import { createAdminGate } from "../../engine/runtime/admin_auth.ts";
import {
  createDeploymentService,
  type DeploymentService,
} from "../../engine/runtime/deployments/mod.ts";
import { Router } from "../../engine/runtime/http_router.ts";

/** The fixture package every deployment test seals. */
export const FIXTURE_DIR = new URL("../fixtures/deployments/hello", import.meta.url).pathname;

/** The transports the tests' engine links. */
export const TRANSPORTS: TransportCatalog = transportCatalog(["http"]);

/** The slot of the fixture package. */
export const SLOT = "acme--hello--1.0.0";

/** Applies the engine schema including the runtime tables. */
export async function migrateRuntime(db: Database): Promise<void> {
  const all = ENGINE_MIGRATIONS.some((m) => m.version === RUNTIME_MIGRATION.version)
    ? ENGINE_MIGRATIONS
    : [...ENGINE_MIGRATIONS, RUNTIME_MIGRATION];
  await migrate(db, all);
}

/** The fixture's files. */
export async function fixtureFiles(): Promise<Map<string, Uint8Array>> {
  const read = await readPackageDir(FIXTURE_DIR);
  if (!read.files) throw new Error(read.diagnostics.map((d) => d.message).join("\n"));
  return new Map(read.files);
}

/**
 * Seals the fixture; `revision` renames the process so each revision is a
 * different deploymentId in the same slot.
 */
export async function sealRevision(revision = "Hello"): Promise<SealedArchive> {
  const files = await fixtureFiles();
  const bpmn = new TextDecoder().decode(files.get("bpmn/hello.bpmn"));
  files.set(
    "bpmn/hello.bpmn",
    new TextEncoder().encode(bpmn.replace('name="Hello"', `name="${revision}"`)),
  );
  const sealed = await sealPackage(files as PackageFiles, { transports: TRANSPORTS });
  if (!sealed.archive) throw new Error(sealed.diagnostics.map((d) => d.message).join("\n"));
  return sealed.archive;
}

/** An intact archive whose package fails lint: a channel with an unknown transport. */
export async function sealLintFailure(): Promise<SealedArchive> {
  const files = await fixtureFiles();
  const channels = new TextDecoder().decode(files.get("channels.yaml"));
  files.set(
    "channels.yaml",
    new TextEncoder().encode(channels.replace("transport: http", "transport: carrier-pigeon")),
  );
  const good = await sealRevision();
  return await sealArchive(files as PackageFiles, {
    labels: good.manifest.labels,
    minContract: good.manifest.minContract,
  });
}

/** Configuration from the given SUTRA_* variables only. */
export function configOf(env: Record<string, string> = {}): Promise<Config> {
  return loadConfig({ env, cwd: "/nonexistent-sutra-dir", registry: configKeys });
}

/** A logger that keeps its JSON lines. */
export function recordingLogger(): { logger: Logger; lines: () => Record<string, unknown>[] } {
  const lines: string[] = [];
  return {
    logger: createLogger("test", { filter: "debug", write: (l) => lines.push(l) }),
    lines: () => lines.map((l) => JSON.parse(l)),
  };
}

/** A deployment service behind a real HTTP listener on a free port. */
export interface TestEngine {
  readonly url: string;
  readonly service: DeploymentService;
  readonly db: Database;
  close(): Promise<void>;
}

/** The admin key the test engine accepts. */
export const ADMIN_KEY = "test-admin-key";

/**
 * Starts the deployment routes on `Deno.serve` (port 0) over an in-memory
 * database; `env` adds SUTRA_* settings (the admin key is configured as
 * `env:ADMIN_KEY` unless `env` says otherwise).
 */
export async function startTestEngine(env: Record<string, string> = {}): Promise<TestEngine> {
  const db = await openDatabase(MEMORY_URL);
  await migrateRuntime(db);
  const config = await configOf({ SUTRA_ADMIN_AUTH_API_KEY: "env:ADMIN_KEY", ...env });
  const { logger } = recordingLogger();
  const service = createDeploymentService({
    db,
    logger,
    clock: systemClock,
    config,
    admin: await createAdminGate({ config, logger, env: { ADMIN_KEY } }),
    transports: TRANSPORTS,
    sweepIntervalMs: 0,
  });
  await service.boot();
  const router = new Router(logger);
  service.routes(router);
  const server = Deno.serve(
    { port: 0, hostname: "127.0.0.1", onListen: () => {} },
    (request) => router.handle(request),
  );
  return {
    url: `http://127.0.0.1:${server.addr.port}`,
    service,
    db,
    async close() {
      await server.shutdown();
      await service.close();
      await db.close();
    },
  };
}
