/**
 * The `dir` deployment source: the engine converges its active set to the
 * `.sutra` archives in one directory (a mounted ConfigMap, say). Each poll
 * reads the directory; an archive not yet active is deployed (a new
 * revision of a slot flips it, as a hot-deploy does), and an active slot no
 * archive in the directory names any more is undeployed (it drains).
 *
 * An archive the engine refuses is logged once with its diagnostics and
 * retried only when its bytes change; the rest of the directory still
 * converges. Two archives of one slot are ambiguous: neither is deployed,
 * and the slot is left as it is. Every replica converges on its own; the
 * deploys and drains are idempotent, so they agree.
 *
 * @module
 */
import {
  type Config,
  diagnostic,
  DiagnosticError,
  formatDiagnostic,
  type Logger,
} from "../../core/mod.ts";
import { errorMessage } from "../../core/errors.ts";
import { DEFAULT_LIMITS, type PackageLimits, readArchive } from "../../package/mod.ts";
import { DeploymentError, type DeploymentService } from "./service.ts";
import { MAX_ARCHIVE_BYTES, SOURCE, SOURCE_DIR, SOURCE_POLL_INTERVAL } from "./settings.ts";

/** Options for {@link startDirSource}. */
export interface DirSourceOptions {
  readonly dir: string;
  readonly service: DeploymentService;
  readonly logger: Logger;
  readonly limits: PackageLimits;
  /** Poll period in milliseconds; 0 polls only when {@link DirSource.converge} is called. */
  readonly intervalMs: number;
}

/** What one pass did. */
export interface ConvergeReport {
  /** Ids deployed (newly active) by this pass. */
  readonly deployed: string[];
  /** Slots undeployed because no archive names them. */
  readonly undeployed: string[];
  /** Files refused (or ambiguous) in this pass. */
  readonly refused: string[];
}

/** A running dir source. */
export interface DirSource {
  /** Reads the directory once and converges; passes never overlap. */
  converge(): Promise<ConvergeReport>;
  /** Stops polling and waits for a pass in progress. */
  stop(): Promise<void>;
}

interface Seen {
  readonly digest: string;
  /** Absent for bytes that are not an intact archive. */
  readonly archive?: { readonly id: string; readonly slot: string };
  /** The engine refused these bytes: not tried again until they change. */
  readonly refused: boolean;
  /**
   * The slot the file holds, or held before its bytes became unreadable (a
   * file half-written or corrupted must not drain the slot it served).
   */
  readonly slot?: string;
}

/**
 * Starts the dir source when `sutra.deployments.source` is `dir` (undefined
 * otherwise); a missing or unreadable `sutra.deployments.dir` is a
 * `SUTRA.CONFIG.PROPERTY.INVALID` refusal to start.
 */
export async function startConfiguredSource(
  config: Config,
  service: DeploymentService,
  logger: Logger,
): Promise<DirSource | undefined> {
  if (config.require(SOURCE) !== "dir") return undefined;
  const dir = config.get(SOURCE_DIR);
  const invalid = (why: string) =>
    new DiagnosticError(
      diagnostic("SUTRA.CONFIG.PROPERTY.INVALID", `sutra.deployments.dir ${why}`, {
        attributes: { key: SOURCE_DIR.key },
      }),
    );
  if (dir === undefined || dir === "") {
    throw invalid("must be set when sutra.deployments.source is dir");
  }
  try {
    if (!(await Deno.stat(dir)).isDirectory) throw invalid(`'${dir}' is not a directory`);
  } catch (error) {
    if (error instanceof DiagnosticError) throw error;
    throw invalid(`'${dir}' cannot be read: ${errorMessage(error)}`);
  }
  const limits: PackageLimits = {
    ...DEFAULT_LIMITS,
    maxArchiveBytes: config.require(MAX_ARCHIVE_BYTES),
  };
  return await startDirSource({
    dir,
    service,
    logger,
    limits,
    intervalMs: config.require(SOURCE_POLL_INTERVAL),
  });
}

/** Starts the source: one pass at once, then one every `intervalMs`. */
export async function startDirSource(options: DirSourceOptions): Promise<DirSource> {
  const { dir, service, logger, limits } = options;
  /** Last bytes seen per file, so a refused archive is reported once. */
  const seen = new Map<string, Seen>();
  /** The files last reported ambiguous per slot, so a standing ambiguity is logged once. */
  const ambiguous = new Map<string, string>();
  let running: Promise<ConvergeReport> = Promise.resolve({
    deployed: [],
    undeployed: [],
    refused: [],
  });

  async function pass(): Promise<ConvergeReport> {
    const report: ConvergeReport = { deployed: [], undeployed: [], refused: [] };
    const files = await archivesIn(dir);
    for (const name of [...seen.keys()]) if (!files.has(name)) seen.delete(name);
    const bySlot = new Map<string, { file: string; bytes: Uint8Array; id: string }[]>();
    for (const [file, bytes] of files) {
      const digest = await sha256(bytes);
      const before = seen.get(file);
      const known = before?.digest === digest ? before : undefined;
      const archive = known ? known.archive : await identify(file, bytes);
      seen.set(file, {
        digest,
        archive,
        refused: known?.refused ?? archive === undefined,
        slot: archive?.slot ?? before?.slot,
      });
      if (!archive) {
        if (!known) report.refused.push(file);
        continue;
      }
      if (known?.refused) continue;
      bySlot.set(archive.slot, [...(bySlot.get(archive.slot) ?? []), {
        file,
        bytes,
        id: archive.id,
      }]);
    }
    for (const [slot, candidates] of bySlot) {
      if (candidates.length > 1) {
        const names = candidates.map((c) => c.file).sort();
        report.refused.push(...names);
        if (ambiguous.get(slot) === names.join("\n")) continue;
        ambiguous.set(slot, names.join("\n"));
        logger.error(
          `archives ${names.join(", ")} all hold slot ${slot}; none is deployed until one remains`,
          { code: "SUTRA.DEPLOY.SOURCE_AMBIGUOUS", slot, files: names },
        );
        continue;
      }
      ambiguous.delete(slot);
      const [only] = candidates;
      const status = await service.status(only.id);
      if (status?.phase === "Active") continue;
      try {
        const result = await service.deploy(only.bytes);
        if (!result.unchanged) report.deployed.push(result.deploymentId);
      } catch (error) {
        const diagnostics = error instanceof DeploymentError
          ? error.diagnostics.map(formatDiagnostic)
          : [errorMessage(error)];
        logger.error(`archive ${only.file} was not deployed`, {
          code: error instanceof DeploymentError
            ? error.diagnostics[0].code
            : "SUTRA.RUNTIME.UNEXPECTED",
          file: only.file,
          diagnostics,
        });
        // Tried again only once its bytes change.
        seen.set(only.file, { ...seen.get(only.file)!, refused: true });
        report.refused.push(only.file);
      }
    }
    // Slots named by a file that is present (even a refused one) are left alone.
    const named = new Set([...seen.values()].flatMap((s) => s.slot ? [s.slot] : []));
    for (const d of service.registry.list()) {
      if (d.status !== "active" || named.has(d.slot)) continue;
      try {
        await service.undeploy(d.slot);
        report.undeployed.push(d.slot);
      } catch (error) {
        // Another replica drained it first.
        if (!(error instanceof DeploymentError && error.status === 404)) throw error;
      }
    }
    return report;
  }

  async function identify(
    file: string,
    bytes: Uint8Array,
  ): Promise<Seen["archive"]> {
    const read = await readArchive(bytes, { uri: file, limits });
    if (read.archive) return { id: read.archive.deploymentId, slot: read.archive.slot };
    logger.error(`archive ${file} is not an intact archive; it is ignored until it changes`, {
      code: "SUTRA.DEPLOY.ARCHIVE_INVALID",
      file,
      diagnostics: read.diagnostics.map(formatDiagnostic),
    });
    return undefined;
  }

  function converge(): Promise<ConvergeReport> {
    const next = running.catch(() => undefined).then(pass);
    running = next;
    return next;
  }

  let timer: ReturnType<typeof setInterval> | undefined;
  let polling: Promise<unknown> | undefined;
  await converge();
  if (options.intervalMs > 0) {
    timer = setInterval(() => {
      polling ??= converge().catch((error) =>
        logger.error(`converging to ${dir} failed`, {
          code: "SUTRA.RUNTIME.UNEXPECTED",
          error: errorMessage(error),
        })
      ).finally(() => polling = undefined);
    }, options.intervalMs);
  }
  return {
    converge,
    async stop() {
      if (timer !== undefined) clearInterval(timer);
      await running.catch(() => undefined);
    },
  };
}

/** The `.sutra` files of `dir` (symlinks followed, hidden entries skipped), by name. */
async function archivesIn(dir: string): Promise<Map<string, Uint8Array>> {
  const out = new Map<string, Uint8Array>();
  for await (const entry of Deno.readDir(dir)) {
    if (entry.name.startsWith(".") || !entry.name.endsWith(".sutra")) continue;
    try {
      out.set(entry.name, await Deno.readFile(`${dir}/${entry.name}`));
    } catch (error) {
      // Removed between the listing and the read (a ConfigMap update swaps files).
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    }
  }
  return out;
}

async function sha256(bytes: Uint8Array): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>);
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}
