/**
 * Diagnostic codes: the operator's admin API — instance search, incidents,
 * retry, variable changes and instance migration (see docs/operations.md).
 * Part of the catalogue in `codes.ts`.
 *
 * @module
 */

/** Code → one-line meaning; keep sorted. */
export const ADMIN_CODES = {
  "SUTRA.ADMIN.BODY.INVALID":
    "An admin request body is not the JSON object the route takes; the diagnostic names the field (400).",
  "SUTRA.ADMIN.INCIDENT.UNKNOWN": "No store-write incident has that id (404).",
  "SUTRA.ADMIN.INSTANCE.CLAIM_HELD":
    "Another replica (or lane) holds the instance's claim right now; nothing was changed, retry later (409).",
  "SUTRA.ADMIN.INSTANCE.UNLOADED":
    "The instance's deployment is not registered on this engine, so its state cannot be read against a model (409).",
  "SUTRA.ADMIN.MIGRATE.ALIAS_CONFLICT":
    "Resuming the instance would bring back a unique alias another live instance holds now.",
  "SUTRA.ADMIN.MIGRATE.ALIAS_UNDECLARED":
    "The instance holds an alias whose name the target process never records or correlates on.",
  "SUTRA.ADMIN.MIGRATE.CLAIM_HELD":
    "The instance is being advanced elsewhere; nothing was read, rewritten or committed (retry-safe).",
  "SUTRA.ADMIN.MIGRATE.COMMIT_FAILED":
    "The migration's transaction failed and was rolled back; the instance is unchanged.",
  "SUTRA.ADMIN.MIGRATE.COMPLETED_DROPPED":
    "Warning: a node the instance completed is not in the target; if the target reaches it, it runs again.",
  "SUTRA.ADMIN.MIGRATE.CROSS_PROCESS_UNMAPPED":
    "A cross-process migration needs an explicit nodeMapping entry for every live locus.",
  "SUTRA.ADMIN.MIGRATE.DRY_RUN":
    "Info: the report is a dry run; nothing was locked or written, so a concurrent step may change the outcome.",
  "SUTRA.ADMIN.MIGRATE.INSTANCE_TERMINAL":
    "Completed and terminated instances are history and are never re-pinned.",
  "SUTRA.ADMIN.MIGRATE.MAPPING_INVALID":
    "A nodeMapping entry names a node the instance neither parks at nor has completed (or a target node that does not exist).",
  "SUTRA.ADMIN.MIGRATE.NODE_INCOMPATIBLE":
    "A live locus maps to a target node that cannot resume it the same way (wait kind, timer, scope, multi-instance body, compensation).",
  "SUTRA.ADMIN.MIGRATE.NODE_UNMAPPED":
    "A live locus (token, wait, timer, scope, compensation entry) has no node in the target process.",
  "SUTRA.ADMIN.MIGRATE.OUTBOX_PENDING":
    "Warning: deliveries the source deployment minted stay under its pin and drain there.",
  "SUTRA.ADMIN.MIGRATE.PROCESS_ABSENT":
    "The target deployment does not declare the process the instance would run.",
  "SUTRA.ADMIN.MIGRATE.REQUEST_CONTRADICTS":
    "The batch request contradicts itself (resume with status SUSPENDED, or targetProcessId without processId) (400).",
  "SUTRA.ADMIN.MIGRATE.RESUME_NOT_FAILED":
    "resume:true was asked for an instance that is not FAILED.",
  "SUTRA.ADMIN.MIGRATE.RESUME_UNSUPPORTED":
    "resume:true cannot re-drive where the instance failed (a converging gateway, or other waits the failure released).",
  "SUTRA.ADMIN.MIGRATE.SOURCE_UNRESOLVABLE":
    "The instance's own deployment is not registered (active or draining), so its state cannot be read safely.",
  "SUTRA.ADMIN.MIGRATE.TARGET_NOT_ACTIVE":
    "The target deployment is unknown or not active (a draining target would strand the instance again).",
  "SUTRA.ADMIN.MIGRATE.TARGET_SAME_AS_SOURCE":
    "The instance is already pinned to the target deployment and process; a no-op is refused.",
  "SUTRA.ADMIN.QUERY.INVALID":
    "A query parameter of an admin listing has a value it cannot take; the diagnostic names it (400).",
  "SUTRA.ADMIN.QUERY.UNKNOWN":
    "An admin listing was given a query parameter it does not know (400).",
  "SUTRA.ADMIN.RETRY.ALIAS_CONFLICT":
    "The retried instance would bring back a unique alias another live instance holds now (409).",
  "SUTRA.ADMIN.RETRY.NOT_FAILED": "Only a FAILED instance can be retried (409).",
  "SUTRA.ADMIN.RETRY.UNSUPPORTED":
    "The instance failed where it cannot run again: a converging gateway, or beside waits the failure released (409).",
  "SUTRA.ADMIN.VARIABLES.TRANSIENT":
    "A variable change names a transient variable, which is never persisted (400).",
  "SUTRA.ADMIN.VARIABLES.TYPE_MISMATCH":
    "A variable change does not match the variable's declared q:variable type (400).",
} as const;
