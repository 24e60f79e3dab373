/**
 * A deployment service on a fresh in-memory database, the way the
 * deployment tests drive it without an engine: migrated, booted, sweeps
 * off, the `tests/deployments` transport catalog, and a logger whose lines
 * the test can read.
 *
 * @module
 */
import { systemClock } from "../../engine/core/mod.ts";
import type { ResolveContext } from "../../engine/core/secrets.ts";
import { MEMORY_URL, openDatabase } from "../../engine/persistence/mod.ts";
import { createAdminGate } from "../../engine/runtime/admin_auth.ts";
import {
  createDeploymentService,
  type DeploymentService,
} from "../../engine/runtime/deployments/mod.ts";
import { configOf, migrateRuntime, recordingLogger, TRANSPORTS } from "../deployments/_support.ts";

/** What {@link withDeploymentService} hands its body. */
export interface ServiceUnderTest {
  readonly service: DeploymentService;
  /** The logger the service writes to (hand it to whatever else the test starts). */
  readonly logger: ReturnType<typeof recordingLogger>["logger"];
  /** Every line logged so far, parsed. */
  readonly lines: () => Record<string, unknown>[];
}

/**
 * Runs `body` with a booted deployment service, then closes it and its
 * database. `resolve` is how secret references resolve (the service's
 * default without it).
 */
export async function withDeploymentService(
  options: { readonly resolve?: ResolveContext },
  body: (under: ServiceUnderTest) => Promise<void>,
): Promise<void> {
  const db = await openDatabase(MEMORY_URL);
  await migrateRuntime(db);
  const config = await configOf();
  const { logger, lines } = recordingLogger();
  const service = createDeploymentService({
    db,
    logger,
    clock: systemClock,
    config,
    admin: await createAdminGate({ config, logger, env: {} }),
    transports: TRANSPORTS,
    sweepIntervalMs: 0,
    ...(options.resolve ? { resolve: options.resolve } : {}),
  });
  try {
    await service.boot();
    await body({ service, logger, lines });
  } finally {
    await service.close();
    await db.close();
  }
}
