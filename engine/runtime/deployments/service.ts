/**
 * The deployment service: stores verified archives in the engine database,
 * flips each slot's active revision (the previous one drains), retires
 * drained revisions once quiescent, and keeps the in-memory registry the
 * dispatch side serves from in step with the database — at boot, after every
 * local change, on a NOTIFY from another replica, and on every sweep.
 *
 * Before the flip, a deployment must not collide with another slot's
 * channels, every secret reference of its channels and stores must resolve,
 * and its stores must open and migrate (see activation.ts); a refusal is
 * recorded as a failed deploy and changes nothing that serves.
 *
 * An asynchronous deploy is recorded as pending in the database before it is
 * answered, so every replica reports it `Pending`; an activation still
 * pending after `sutra.deployments.pending-takeover` (its replica died) is
 * run again from the stored archive by whichever replica sweeps first.
 *
 * @module
 */
import {
  type Clock,
  type Config,
  type Diagnostic,
  diagnostic,
  DiagnosticError,
  formatDiagnostic,
  type Logger,
} from "../../core/mod.ts";
import {
  DEFAULT_LIMITS,
  type PackageLimits,
  readArchive,
  type SealedArchive,
  type TransportCatalog,
  transportCatalog,
} from "../../package/mod.ts";
import { type Database, SqlError } from "../../persistence/mod.ts";
import { defaultResolveContext, type ResolveContext } from "../../core/secrets.ts";
import { channelCollisions, storeFailures, unresolvedSecrets } from "./activation.ts";
import type { AdminGate } from "../admin_auth.ts";
import { type Router, withheld } from "../http_router.ts";
import { compileArchive, type CompiledArchive, type CompileResult } from "./compile.ts";
import {
  type DeploymentRegistry,
  MutableDeploymentRegistry,
  type RegistryEntry,
} from "./registry.ts";
import { addDeploymentRoutes } from "./routes.ts";
import { MAX_ARCHIVE_BYTES, PENDING_TAKEOVER, SWEEP_INTERVAL } from "./settings.ts";
import { queueCompletionEvents, type Settlement } from "./events.ts";
import * as store from "./store.ts";
import { errorMessage } from "../../core/errors.ts";

/** NOTIFY channel on which replicas announce deployment changes. */
export const DEPLOYMENTS_CHANNEL = "sutra_deployments";

/** Where a deployment stands, as the HTTP surface names it. */
export type DeploymentPhase = "Pending" | "Active" | "Draining" | "Retired" | "Failed";

/** The status of one deployment (`GET /sutra/deployments/{id}`). */
export interface DeploymentStatus {
  readonly deploymentId: string;
  readonly phase: DeploymentPhase;
  readonly tenant: string;
  readonly slot: string;
  readonly labels: Readonly<Record<string, string>>;
  /** ISO-8601 instants; absent when the event has not happened. */
  readonly createdAt: string;
  readonly activatedAt?: string;
  readonly drainedAt?: string;
  readonly retiredAt?: string;
  readonly failure?: { readonly code: string; readonly detail: string };
}

/** How a deploy is asked for. */
export interface DeployOptions {
  /** Answer `Pending` at once and activate in the background. */
  readonly async?: boolean;
  /** Where to send the completion event (CloudEvent) once the deploy settles. */
  readonly notify?: readonly string[];
}

/** What a deploy call reports. */
export interface DeployResult {
  readonly deploymentId: string;
  /** `Active` once flipped; `Pending` for an async deploy still activating. */
  readonly phase: "Active" | "Pending";
  readonly tenant: string;
  readonly slot: string;
  readonly labels: Readonly<Record<string, string>>;
  /** True when these bytes were already the slot's active revision. */
  readonly unchanged: boolean;
  /** Ids this activation moved to draining. */
  readonly drained: readonly string[];
  /** Warnings the checks reported (sync deploys only). */
  readonly diagnostics: readonly Diagnostic[];
}

/** What an undeploy call reports. */
export interface UndeployResult {
  readonly deploymentId: string;
  readonly slot: string;
  readonly phase: "Draining";
}

/** A refusal with the HTTP status it maps to. */
export class DeploymentError extends DiagnosticError {
  /** HTTP status for the refusal. */
  readonly status: number;

  constructor(status: number, diagnostics: Diagnostic | readonly Diagnostic[]) {
    super(diagnostics);
    this.name = "DeploymentError";
    this.status = status;
  }
}

/** Options for {@link createDeploymentService}. */
export interface DeploymentServiceOptions {
  readonly db: Database;
  readonly logger: Logger;
  readonly clock: Clock;
  readonly config: Config;
  /** Gate for the `/admin/*` routes. */
  readonly admin: AdminGate;
  /**
   * Serve only this tenant: archives labelled with another tenant are
   * refused and other tenants' rows are invisible. Unset serves every tenant.
   */
  readonly tenant?: string;
  /**
   * Transports this build links (the transport registry satisfies this).
   * Default: none, so every package declaring a channel fails its checks.
   */
  readonly transports?: TransportCatalog;
  /** Overrides `sutra.deployments.sweep-interval` (milliseconds; 0 turns the timer off). */
  readonly sweepIntervalMs?: number;
  /** Names this replica on the activations it runs (default `engine`). */
  readonly replicaId?: string;
  /**
   * How channel and store secret references resolve when a deployment
   * activates (default: the process environment and `SUTRA_SECRETS_DIR`).
   */
  readonly resolve?: ResolveContext;
}

/** The deployment service. */
export interface DeploymentService {
  /** What dispatch serves from. */
  readonly registry: DeploymentRegistry;
  /** Loads the active and draining set from the database and starts listening and sweeping. */
  boot(): Promise<void>;
  /** Verifies, stores and activates an archive; `async` returns once verified, as `Pending`. */
  deploy(bytes: Uint8Array, options?: DeployOptions): Promise<DeployResult>;
  /** Drains a deployment, by id or by slot (its active revision). */
  undeploy(slotOrId: string): Promise<UndeployResult>;
  /** The status of one deployment, or undefined when unknown. */
  status(deploymentId: string): Promise<DeploymentStatus | undefined>;
  /** Mounts `POST/DELETE /admin/deployments…` and `GET /sutra/deployments/{id}`. */
  routes(router: Router): void;
  /** Retires every quiescent draining deployment; resolves to how many retired. */
  retireSweep(): Promise<number>;
  /** Takes over activations pending past the takeover window; resolves to how many. */
  resumePending(): Promise<number>;
  /** Stops the sweep and the listener and waits for background activations. */
  close(): Promise<void>;
}

/** Creates the deployment service; call `boot()` before serving. */
export function createDeploymentService(options: DeploymentServiceOptions): DeploymentService {
  const { db, clock, config } = options;
  const logger = options.logger;
  const scope = options.tenant;
  const transports = options.transports ?? transportCatalog([]);
  const limits: PackageLimits = {
    ...DEFAULT_LIMITS,
    maxArchiveBytes: config.require(MAX_ARCHIVE_BYTES),
  };
  const sweepMs = options.sweepIntervalMs ?? config.require(SWEEP_INTERVAL);
  const takeoverMs = config.require(PENDING_TAKEOVER);
  const replicaId = options.replicaId ?? "engine";
  const resolve = options.resolve ?? defaultResolveContext();
  const registry = new MutableDeploymentRegistry((error) =>
    logger.error("a deployment registry listener failed", { error: String(error) })
  );
  /** Compiled archives by id; entries leave when their deployment stops serving. */
  const compiled = new Map<string, CompiledArchive>();
  /** Stored deployments that failed to load, so each is reported once. */
  const unloadable = new Set<string>();
  const background = new Set<Promise<unknown>>();
  let refreshing: Promise<void> = Promise.resolve();
  let unlisten: (() => Promise<void>) | undefined;
  let timer: ReturnType<typeof setInterval> | undefined;
  let sweeping: Promise<void> | undefined;
  let closed = false;

  const now = () => new Date(clock.now());

  /** Rebuilds the registry from the database; calls are serialized. */
  function refresh(): Promise<void> {
    const next = refreshing.then(reload, reload);
    refreshing = next.catch((error) =>
      logger.error("reloading the deployment set failed", {
        code: "SUTRA.RUNTIME.UNEXPECTED",
        error: errorMessage(error),
      })
    );
    return next;
  }

  async function reload(): Promise<void> {
    const rows = await store.servingRows(db, scope);
    const entries: RegistryEntry[] = [];
    for (const row of rows) {
      const c = compiled.get(row.deploymentId) ?? await loadStored(row);
      if (!c) continue;
      compiled.set(row.deploymentId, c);
      entries.push(entryOf(row, c));
    }
    const serving = new Set(rows.map((r) => r.deploymentId));
    for (const id of compiled.keys()) if (!serving.has(id)) compiled.delete(id);
    registry.replace(entries);
  }

  async function loadStored(row: store.DeploymentRow): Promise<CompiledArchive | undefined> {
    if (unloadable.has(row.deploymentId)) return undefined;
    const bytes = await store.archiveOf(db, row.tenant, row.deploymentId);
    const result = bytes && await compileArchive(bytes, { transports, limits, uri: row.slot });
    if (result?.ok) return result.compiled;
    unloadable.add(row.deploymentId);
    logger.error(
      `stored deployment ${row.deploymentId} (${row.slot}, ${row.status}) cannot be loaded; it is not served`,
      {
        code: "SUTRA.DEPLOY.LOAD_FAILED",
        deploymentId: row.deploymentId,
        slot: row.slot,
        diagnostics: result ? result.diagnostics.map(formatDiagnostic) : ["archive missing"],
      },
    );
    return undefined;
  }

  async function announce(): Promise<void> {
    await db.notify(DEPLOYMENTS_CHANNEL, "changed");
    await refresh();
  }

  function checkTenant(archive: SealedArchive): void {
    const tenant = archive.manifest.labels.tenant;
    if (scope !== undefined && tenant !== scope) {
      throw new DeploymentError(
        422,
        diagnostic(
          "SUTRA.DEPLOY.TENANT_MISMATCH",
          `the archive is labelled for tenant '${tenant}' but this engine serves tenant '${scope}'`,
          { attributes: { tenant, engineTenant: scope } },
        ),
      );
    }
  }

  async function verify(bytes: Uint8Array): Promise<SealedArchive> {
    const read = await readArchive(bytes, { uri: "request body", limits });
    if (!read.archive) throw new DeploymentError(400, read.diagnostics);
    checkTenant(read.archive);
    return read.archive;
  }

  /** Records a failed deploy and queues its completion events, in one transaction. */
  function recordFailed(
    row: store.NewDeployment,
    error: { readonly code: string; readonly detail: string },
    notify: readonly string[] = [],
  ): Promise<void> {
    return db.transaction(async (tx) => {
      await store.recordFailure(tx, row, error, now());
      await queueCompletionEvents(tx, row, { status: "Failed", error }, notify);
    });
  }

  async function activate(
    bytes: Uint8Array,
    notify: readonly string[] = [],
  ): Promise<DeployResult> {
    const result: CompileResult = await compileArchive(bytes, {
      transports,
      limits,
      uri: "request body",
    });
    if (!result.ok) {
      if (result.stage === "archive") throw new DeploymentError(400, result.diagnostics);
      checkTenant(result.archive);
      await recordFailed(store.newDeployment(result.archive), {
        code: "SUTRA.DEPLOY.LINT_FAILED",
        detail: result.diagnostics.slice(1).filter((d) => d.severity === "ERROR")
          .map(formatDiagnostic).join("\n"),
      }, notify);
      throw new DeploymentError(422, result.diagnostics);
    }
    const c = result.compiled;
    checkTenant(c.archive);
    await refusals(c, notify);
    const flip = await flipWithRetry(c.archive, notify);
    compiled.set(c.archive.deploymentId, c);
    unloadable.delete(c.archive.deploymentId);
    if (!flip.unchanged) {
      logger.info(
        `deployment ${c.archive.deploymentId} is active in slot ${c.archive.slot}${
          flip.drained.length > 0 ? `; draining ${flip.drained.join(", ")}` : ""
        }`,
        { deploymentId: c.archive.deploymentId, slot: c.archive.slot, drained: flip.drained },
      );
      await announce();
    }
    return {
      ...summary(c.archive),
      phase: "Active",
      unchanged: flip.unchanged,
      drained: flip.drained,
      diagnostics: c.diagnostics,
    };
  }

  /**
   * Refuses (recording a failed deploy) an archive that collides with
   * another slot's channels, holds a secret reference that cannot be
   * resolved, or declares a store that cannot open and migrate. Stores are
   * only tried once the references resolve: they would fail on the same ones.
   */
  async function refusals(c: CompiledArchive, notify: readonly string[]): Promise<void> {
    // Another replica's flip may not have been announced here yet: read the set afresh.
    await refresh();
    // Bytes already active change nothing: there is nothing to refuse.
    const existing = await store.findById(db, scope, c.archive.deploymentId);
    if (existing?.status === "active") return;
    const collisions = channelCollisions({
      deploymentId: c.archive.deploymentId,
      slot: c.archive.slot,
      plans: c.plans,
      package: c.package,
    }, registry.list());
    const secrets = await unresolvedSecrets(c.package, resolve);
    const found = [
      ...collisions,
      ...secrets,
      ...(secrets.length === 0 ? await storeFailures(c.package, resolve, registry.list()) : []),
    ];
    if (found.length === 0) return;
    await recordFailed(store.newDeployment(c.archive), {
      code: found[0].code,
      detail: found.map(formatDiagnostic).join("\n"),
    }, notify);
    throw new DeploymentError(collisions.length > 0 ? 409 : 422, found);
  }

  /** Two concurrent first deploys of a slot race on the one-active index; the loser retries. */
  async function flipWithRetry(
    archive: SealedArchive,
    notify: readonly string[],
  ): Promise<{ unchanged: boolean; drained: string[] }> {
    for (let attempt = 1;; attempt++) {
      try {
        return await flip(archive, notify);
      } catch (error) {
        const raced = error instanceof SqlError && error.code === "23505";
        if (!raced) throw error;
        if (attempt >= 3) {
          throw new DeploymentError(
            409,
            diagnostic(
              "SUTRA.DEPLOY.CONFLICT",
              `slot ${archive.slot} kept changing under concurrent deploys; retry`,
              { attributes: { slot: archive.slot } },
            ),
          );
        }
      }
    }
  }

  function flip(
    archive: SealedArchive,
    notify: readonly string[],
  ): Promise<{ unchanged: boolean; drained: string[] }> {
    const row = store.newDeployment(archive);
    return db.transaction(async (tx) => {
      const at = now();
      const existing = await store.findById(tx, row.tenant, row.deploymentId, true);
      let drained: string[] = [];
      if (existing?.status === "active") {
        await store.settlePending(tx, row.tenant, row.deploymentId);
      } else {
        drained = await store.drainSlot(tx, row.tenant, row.slot, row.deploymentId, at);
        if (existing) await store.reactivate(tx, row.tenant, row.deploymentId, at);
        else await store.insertActive(tx, row, at);
      }
      await queueCompletionEvents(tx, row, { status: "Active" }, notify);
      return { unchanged: existing?.status === "active", drained };
    });
  }

  async function deploy(
    bytes: Uint8Array,
    deployOptions: DeployOptions = {},
  ): Promise<DeployResult> {
    if (closed) throw new Error("the deployment service is closed");
    const notify = deployOptions.notify ?? [];
    if (!deployOptions.async) return await activate(bytes, notify);
    const archive = await verify(bytes);
    const id = archive.deploymentId;
    const row = store.newDeployment(archive);
    const existing = await store.findById(db, scope, id);
    if (existing?.status === "active") {
      if (notify.length > 0) {
        await db.transaction((tx) => queueCompletionEvents(tx, row, { status: "Active" }, notify));
      }
      return {
        ...summary(archive),
        phase: "Active",
        unchanged: true,
        drained: [],
        diagnostics: [],
      };
    }
    if (await store.markPending(db, row, replicaId, now(), notify)) {
      inBackground(bytes, archive);
    } else if (notify.length > 0 && !(await store.addNotify(db, row, notify))) {
      // It settled between the two statements: tell the caller how.
      await notifySettled(row, notify);
    }
    return {
      ...summary(archive),
      phase: "Pending",
      unchanged: false,
      drained: [],
      diagnostics: [],
    };
  }

  /** Queues the completion events of a deploy that has already settled, from its row. */
  async function notifySettled(row: store.NewDeployment, notify: readonly string[]): Promise<void> {
    const settled = await store.findById(db, scope, row.deploymentId);
    if (!settled || (settled.status !== "active" && settled.status !== "failed")) return;
    const settlement: Settlement = settled.status === "active" ? { status: "Active" } : {
      status: "Failed",
      error: { code: settled.failureCode ?? "", detail: settled.failureDetail ?? "" },
    };
    await db.transaction((tx) => queueCompletionEvents(tx, row, settlement, notify));
  }

  /** Runs an activation the caller has marked pending; its failure is recorded, not thrown. */
  function inBackground(bytes: Uint8Array, archive: SealedArchive): void {
    const work = activate(bytes).catch((error) => recordBackgroundFailure(archive, error))
      .finally(() => background.delete(work));
    background.add(work);
  }

  async function resumePending(): Promise<number> {
    const at = now();
    const stale = await store.takeOverPending(db, scope, {
      by: replicaId,
      at,
      staleBefore: new Date(at.getTime() - takeoverMs),
    });
    for (const { archive: bytes, ...pending } of stale) {
      const { deploymentId } = pending;
      const read = await readArchive(bytes, { uri: `stored deployment ${deploymentId}`, limits });
      if (!read.archive) {
        // Retrying cannot help: fail it once rather than take it over every window.
        const detail = read.diagnostics.map(formatDiagnostic).join("\n");
        logger.error(`pending deployment ${deploymentId} has an unreadable stored archive`, {
          code: "SUTRA.DEPLOY.LOAD_FAILED",
          deploymentId,
          diagnostics: detail,
        });
        const error = { code: "SUTRA.DEPLOY.LOAD_FAILED", detail };
        await db.transaction(async (tx) => {
          await store.abandonPending(tx, pending, error);
          await queueCompletionEvents(tx, pending, { status: "Failed", error });
        });
        continue;
      }
      logger.warn(`taking over the pending activation of deployment ${deploymentId}`, {
        code: "SUTRA.DEPLOY.PENDING_TAKEN_OVER",
        deploymentId,
      });
      inBackground(bytes, read.archive);
    }
    return stale.length;
  }

  async function recordBackgroundFailure(archive: SealedArchive, error: unknown): Promise<void> {
    if (error instanceof DeploymentError) {
      // A lint refusal is already recorded as a failed row by activate().
      logger.warn(`async deployment ${archive.deploymentId} was refused`, {
        code: error.diagnostics[0].code,
        deploymentId: archive.deploymentId,
      });
      return;
    }
    // The error may quote the database: the recorded failure, which status and
    // completion events show, names only its code and the incident the log holds.
    const [failure] = withheld(
      logger,
      [diagnostic("SUTRA.RUNTIME.UNEXPECTED", errorMessage(error))],
      { deploymentId: archive.deploymentId },
    );
    await recordFailed(store.newDeployment(archive), {
      code: failure.code,
      detail: failure.message,
    }).catch(() => {});
  }

  async function undeploy(slotOrId: string): Promise<UndeployResult> {
    const row = await db.transaction(async (tx) => {
      const byId = await store.findById(tx, scope, slotOrId, true);
      const found = byId && (byId.status === "active" || byId.status === "draining")
        ? byId
        : await store.findActiveBySlot(tx, scope, slotOrId);
      if (!found) return undefined;
      if (found.status === "active") {
        await store.drainOne(tx, found.tenant, found.deploymentId, now());
      }
      return found;
    });
    if (!row) {
      throw new DeploymentError(
        404,
        diagnostic(
          "SUTRA.DEPLOY.UNKNOWN",
          `no active or draining deployment has id or slot '${slotOrId}'`,
          { attributes: { deployment: slotOrId } },
        ),
      );
    }
    if (row.status === "active") {
      logger.info(`deployment ${row.deploymentId} (${row.slot}) is draining`, {
        deploymentId: row.deploymentId,
        slot: row.slot,
      });
      await announce();
    }
    return { deploymentId: row.deploymentId, slot: row.slot, phase: "Draining" };
  }

  async function status(deploymentId: string): Promise<DeploymentStatus | undefined> {
    const row = await store.findById(db, scope, deploymentId);
    return row && statusOf(row);
  }

  async function retireSweep(): Promise<number> {
    const retired = await store.retireQuiescent(db, scope, now());
    for (const r of retired) {
      logger.info(`deployment ${r.deploymentId} (${r.slot}) is quiescent and retired`, r);
    }
    if (retired.length > 0) await announce();
    return retired.length;
  }

  async function boot(): Promise<void> {
    await refresh();
    await resumePending();
    // Other replicas announce their flips; the periodic sweep re-reads the set
    // as well, so a missed notification only delays convergence.
    unlisten = await db.listen(DEPLOYMENTS_CHANNEL, () => void refresh());
    if (sweepMs > 0) {
      timer = setInterval(() => {
        // A slow database must not stack sweeps on top of each other.
        sweeping ??= retireSweep().then(refresh).then(resumePending).then(() => {}).catch((error) =>
          logger.error("the deployment sweep failed", {
            code: "SUTRA.RUNTIME.UNEXPECTED",
            error: errorMessage(error),
          })
        ).finally(() => sweeping = undefined);
      }, sweepMs);
    }
    const list = registry.list();
    logger.info(
      `deployments loaded: ${list.filter((d) => d.status === "active").length} active, ${
        list.filter((d) => d.status === "draining").length
      } draining`,
    );
  }

  async function close(): Promise<void> {
    closed = true;
    if (timer !== undefined) clearInterval(timer);
    await sweeping;
    await Promise.allSettled([...background]);
    await refreshing;
    if (unlisten) await unlisten();
  }

  const service: DeploymentService = {
    registry,
    boot,
    deploy,
    undeploy,
    status,
    retireSweep,
    resumePending,
    close,
    routes: (router) =>
      addDeploymentRoutes(router, {
        service,
        admin: options.admin,
        maxArchiveBytes: limits.maxArchiveBytes,
      }),
  };
  return service;
}

function summary(archive: SealedArchive) {
  return {
    deploymentId: archive.deploymentId,
    tenant: archive.manifest.labels.tenant,
    slot: archive.slot,
    labels: archive.manifest.labels,
  };
}

function entryOf(row: store.DeploymentRow, c: CompiledArchive): RegistryEntry {
  return {
    deploymentId: row.deploymentId,
    tenant: row.tenant,
    slot: row.slot,
    labels: row.labels,
    status: row.status === "active" ? "active" : "draining",
    plans: c.plans,
    package: c.package,
    ...(row.drainedAt ? { drainedAt: row.drainedAt.getTime() } : {}),
  };
}

const PHASES: Record<store.StoredStatus, DeploymentPhase> = {
  pending: "Pending",
  active: "Active",
  draining: "Draining",
  retired: "Retired",
  failed: "Failed",
};

function statusOf(row: store.DeploymentRow): DeploymentStatus {
  // A revision being activated again (a rollback, a retry after a failure)
  // is pending until that settles, whatever it was before.
  const pending = row.pendingSince !== undefined && row.status !== "active";
  return {
    deploymentId: row.deploymentId,
    phase: pending ? "Pending" : PHASES[row.status],
    tenant: row.tenant,
    slot: row.slot,
    labels: row.labels,
    createdAt: row.createdAt.toISOString(),
    ...(row.activatedAt ? { activatedAt: row.activatedAt.toISOString() } : {}),
    ...(row.drainedAt ? { drainedAt: row.drainedAt.toISOString() } : {}),
    ...(row.retiredAt ? { retiredAt: row.retiredAt.toISOString() } : {}),
    ...(row.failureCode
      ? { failure: { code: row.failureCode, detail: row.failureDetail ?? "" } }
      : {}),
  };
}
