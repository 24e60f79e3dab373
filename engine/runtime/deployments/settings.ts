/**
 * Configuration keys of the deployment service.
 *
 * @module
 */
import { defineKey } from "../../core/mod.ts";
import { DEFAULT_LIMITS } from "../../package/mod.ts";

/** Largest archive `POST /admin/deployments` accepts. */
export const MAX_ARCHIVE_BYTES = defineKey({
  key: "sutra.deployments.max-archive-bytes",
  type: "integer",
  default: DEFAULT_LIMITS.maxArchiveBytes,
  min: 1,
  description: "Largest archive, in bytes, that POST /admin/deployments accepts (larger is 413).",
});

/** How often each replica retires quiescent draining deployments and re-reads the active set. */
export const SWEEP_INTERVAL = defineKey({
  key: "sutra.deployments.sweep-interval",
  type: "duration",
  default: 30_000,
  description:
    "How often the engine retires quiescent draining deployments and re-reads the active set (PT0S turns the sweep off).",
});

/** How long an asynchronous activation may stay pending before another replica takes it over. */
export const PENDING_TAKEOVER = defineKey({
  key: "sutra.deployments.pending-takeover",
  type: "duration",
  default: 60_000,
  min: 1,
  description:
    "How long an asynchronous deploy may stay Pending before another replica (or the restarted one) runs its activation again from the stored archive.",
});
