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

/** Where the engine takes its deployments from. */
export const SOURCE = defineKey({
  key: "sutra.deployments.source",
  type: "enum",
  values: ["api", "dir"],
  default: "api",
  description:
    "Where deployments come from: api (POST /admin/deployments) or dir (the engine converges to the .sutra archives in sutra.deployments.dir).",
});

/** The directory the `dir` source converges to. */
export const SOURCE_DIR = defineKey({
  key: "sutra.deployments.dir",
  type: "string",
  description:
    "Directory of .sutra archives the dir source converges to (a mounted ConfigMap, say); required with sutra.deployments.source=dir.",
});

/** How often the `dir` source looks at its directory. */
export const SOURCE_POLL_INTERVAL = defineKey({
  key: "sutra.deployments.dir-poll-interval",
  type: "duration",
  default: 5_000,
  min: 100,
  description: "How often the dir source reads its directory and converges to it.",
});
