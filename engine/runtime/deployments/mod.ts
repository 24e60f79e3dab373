/**
 * engine/runtime/deployments: the deployment service — verified archives
 * stored in the engine database, one active revision per slot with the
 * previous ones draining until quiescent, and the in-memory registry the
 * dispatch side serves from.
 *
 * ```ts ignore
 * const deployments = createDeploymentService({ db, logger, clock, config, admin });
 * await deployments.boot();
 * deployments.routes(router);
 * deployments.registry.subscribe(() => rewire(deployments.registry.list()));
 * ```
 *
 * @module
 */
export type { ActiveDeployment, DeploymentRegistry, RegisteredStatus } from "./registry.ts";
export { createDeploymentService, DeploymentError, DEPLOYMENTS_CHANNEL } from "./service.ts";
export type {
  DeploymentPhase,
  DeploymentService,
  DeploymentServiceOptions,
  DeploymentStatus,
  DeployResult,
  UndeployResult,
} from "./service.ts";
export {
  MAX_ARCHIVE_BYTES,
  SOURCE,
  SOURCE_DIR,
  SOURCE_POLL_INTERVAL,
  SWEEP_INTERVAL,
} from "./settings.ts";
export {
  type ConvergeReport,
  type DirSource,
  startConfiguredSource,
  startDirSource,
} from "./dir_source.ts";
