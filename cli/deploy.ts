/**
 * `sutra deploy` and `sutra undeploy`: the API path onto a running engine.
 * `deploy ARCHIVE` uploads a sealed archive to `POST /admin/deployments`
 * and reports the engine's answer (with `--async`, it then polls
 * `GET /sutra/deployments/{id}` until the deployment settles). `deploy
 * --watch DIR` re-checks, re-seals and re-deploys the package directory on
 * every change until interrupted; a package with a finding is reported and
 * not deployed. `deploy ARCHIVE --dir DIR` is the path onto an engine
 * running the `dir` deployment source: the archive is placed in DIR (in
 * place of any archive of the same slot), and `--wait` then polls
 * `GET /sutra/deployments/{id}` until the engine reports it Active or
 * Failed. `undeploy SLOT_OR_ID` drains a deployment.
 *
 * @module
 */
import { type Diagnostic, diagnostic, formatDiagnostic } from "../engine/core/diagnostic.ts";
import {
  ARCHIVE_EXTENSION,
  readArchiveFile,
  readPackageDir,
  sealPackage,
  type TransportCatalog,
} from "../engine/package/mod.ts";
import {
  type CliIo,
  type Command,
  DiagnosticError,
  formatFlag,
  readInputFile,
  UsageError,
  writeFindings,
} from "./command.ts";
import {
  type AdminAnswer,
  callEngine,
  connectEngine,
  DEFAULT_API_KEY_ENV,
  DEFAULT_ENGINE_URL,
  ENGINE_URL_ENV,
  type EngineConnection,
} from "./_admin_client.ts";
import { type CommandArgs, parseCommandArgs, stringFlag } from "./describe.ts";
import { reported, underDir } from "./lint.ts";
import { errorMessage } from "../engine/core/errors.ts";

const DEPLOY_USAGE =
  `Usage: sutra deploy ARCHIVE [--engine-url URL] [--api] [--async] [--callback URL] [options]
       sutra deploy ARCHIVE --dir DIR [--wait [--wait-timeout SECONDS]] [--engine-url URL]
       sutra deploy --watch DIR [--engine-url URL] [options]

Uploads a sealed .sutra archive to a running engine (POST /admin/deployments).
The call is synchronous: it returns once the deployment is Active, or prints
the engine's SUTRA.DEPLOY.* refusal and exits 1. Deploying identical bytes
again is a no-op; a new revision of the same slot replaces the active one and
the previous revision drains; re-deploying a draining revision rolls back.

With --watch, DIR is a package directory: it is checked and sealed (the
same checks 'sutra package' runs) and deployed now and again after every
change, until Ctrl-C. A change with a finding is reported and not deployed.

With --dir, the archive is not uploaded: it is placed in DIR, the directory
an engine running sutra.deployments.source=dir converges to, replacing any
archive of the same slot there. With --wait the command then polls
GET /sutra/deployments/{id} on the engine until the deployment is Active
(exit 0) or Failed (its diagnostics, exit 1).

Options:
  --engine-url URL      base URL of the engine (default: \$${ENGINE_URL_ENV}, else
                        ${DEFAULT_ENGINE_URL})
  --api                 the API path; accepted for scripts written for builds
                        that also have a ConfigMap path, and the default
                        (and only) path of this one
  --async               submit, then poll GET /sutra/deployments/{id} until
                        the deployment settles
  --callback URL        have the engine POST a CloudEvent to URL (http or
                        https) once the deployment settles (Active or Failed)
  --dir DIR             place the archive in the dir source's directory DIR
  --wait                with --dir, wait until the engine reports the
                        deployment Active or Failed
  --wait-timeout SECS   give up waiting after SECS seconds (default 300)
  --api-key-env NAME    environment variable holding the admin API key
                        (default ${DEFAULT_API_KEY_ENV})
  --api-key-header H    header carrying the key (default x-api-key)
  --format text|json    report format (default text)`;

const UNDEPLOY_USAGE = `Usage: sutra undeploy SLOT_OR_ID|ARCHIVE [--engine-url URL] [options]

Drains a deployment (DELETE /admin/deployments/{slotOrId}): by slot
(tenant--module--version) the slot's active revision, or any active or
draining revision by deploymentId, or the revision a sealed ${ARCHIVE_EXTENSION}
archive file holds. A draining deployment takes no new work
and retires once no live or failed instance and no pending delivery is
left on it.

Options:
  --engine-url URL      base URL of the engine (default: \$${ENGINE_URL_ENV}, else
                        ${DEFAULT_ENGINE_URL})
  --api                 the API path; accepted for scripts written for builds
                        that also have a ConfigMap path, and the default
                        (and only) path of this one
  --api-key-env NAME    environment variable holding the admin API key
                        (default ${DEFAULT_API_KEY_ENV})
  --api-key-header H    header carrying the key (default x-api-key)
  --format text|json    report format (default text)`;

const COMMON_FLAGS = {
  "engine-url": { type: "string" },
  api: { type: "boolean" },
  "api-key-env": { type: "string" },
  "api-key-header": { type: "string" },
  format: { type: "string" },
} as const;

/** Options for {@link deployCommand}. */
export interface DeployCommandOptions {
  /** Transports a channel may ride, for the checks `--watch` runs before deploying. */
  readonly transports: TransportCatalog;
  /** Ends `--watch` (default: SIGINT). */
  readonly stop?: AbortSignal;
  /** Delay between status polls of `--async`, in milliseconds (default 500). */
  readonly pollMillis?: number;
  /** Quiet time after a change before `--watch` re-deploys, in milliseconds (default 200). */
  readonly settleMillis?: number;
}

/** Builds the `deploy` command. */
export function deployCommand(options: DeployCommandOptions): Command {
  return {
    name: "deploy",
    summary: "Deploy a sealed archive (or watch a package directory) onto a running engine",
    usage: DEPLOY_USAGE,
    async run(args: readonly string[], io: CliIo): Promise<number> {
      const parsed = parseCommandArgs(args, {
        ...COMMON_FLAGS,
        async: { type: "boolean" },
        callback: { type: "string" },
        watch: { type: "string" },
        dir: { type: "string" },
        wait: { type: "boolean" },
        "wait-timeout": { type: "string" },
      });
      const callback = stringFlag(parsed, "callback");
      const format = formatFlag(stringFlag(parsed, "format"));
      const connection = connectEngine(parsed, io, "deploy");
      const watch = stringFlag(parsed, "watch");
      if (watch !== undefined) {
        if (parsed.positionals.length > 0) {
          throw new UsageError("--watch takes the package directory; give no ARCHIVE");
        }
        return await watchAndDeploy(watch.replace(/\/+$/, "") || "/", connection, io, options);
      }
      if (parsed.positionals.length !== 1) {
        throw new UsageError(
          parsed.positionals.length === 0 ? "an archive is required" : "give exactly one archive",
        );
      }
      const path = parsed.positionals[0];
      const dir = stringFlag(parsed, "dir");
      if (dir !== undefined) {
        return await placeInDir(path, dir, parsed, connection, io, format, options);
      }
      if (parsed.flags.wait === true || stringFlag(parsed, "wait-timeout") !== undefined) {
        throw new UsageError("--wait goes with --dir; the API path already waits for Active");
      }
      const bytes = await readInputFile(path);
      connection.log.info(`read ${path} (${bytes.length} bytes)`);
      const asyncMode = parsed.flags.async === true;
      let answer = await upload(connection, bytes, { async: asyncMode, callback });
      if (answer.status === 202) {
        connection.log.progress(`${answer.body.deploymentId} accepted; waiting for activation`);
        answer = await pollUntilSettled(connection, String(answer.body.deploymentId), options);
      }
      return report(
        answer,
        format,
        io,
        (b) =>
          b.phase === "Failed"
            ? undefined
            : `${
              b.unchanged === true ? "unchanged" : "deployed"
            } ${b.slot} as ${b.deploymentId}: ${b.phase}`,
      );
    },
  };
}

/**
 * `deploy ARCHIVE --dir DIR [--wait]`: the archive (verified first) goes
 * into DIR as `<slot>.sutra`, written beside and renamed into place so the
 * engine never reads half a file; other archives of the slot there are
 * removed, or the engine would find the slot ambiguous.
 */
async function placeInDir(
  path: string,
  dir: string,
  parsed: CommandArgs,
  connection: EngineConnection,
  io: CliIo,
  format: "text" | "json",
  options: DeployCommandOptions,
): Promise<number> {
  const timeoutText = stringFlag(parsed, "wait-timeout") ?? "300";
  const timeoutSeconds = Number(timeoutText);
  if (!/^[0-9]+$/.test(timeoutText) || timeoutSeconds < 1) {
    throw new UsageError(`--wait-timeout must be a whole number of seconds, not '${timeoutText}'`);
  }
  const read = await readArchiveFile(path);
  if (!read.archive) throw new DiagnosticError(read.diagnostics);
  const { deploymentId, slot } = read.archive;
  const target = `${dir.replace(/\/+$/, "")}/${slot}${ARCHIVE_EXTENSION}`;
  try {
    for await (const entry of Deno.readDir(dir)) {
      const other = `${dir.replace(/\/+$/, "")}/${entry.name}`;
      if (!entry.name.endsWith(ARCHIVE_EXTENSION) || other === target) continue;
      const held = await readArchiveFile(other);
      if (held.archive?.slot === slot) await Deno.remove(other);
    }
    const partial = `${dir.replace(/\/+$/, "")}/.${slot}${ARCHIVE_EXTENSION}.partial`;
    await Deno.writeFile(partial, read.archive.bytes);
    await Deno.rename(partial, target);
  } catch (error) {
    throw new DiagnosticError(diagnostic(
      "SUTRA.CLI.FILE_UNWRITABLE",
      `cannot place ${path} in ${dir}: ${errorMessage(error)}`,
      { source: { uri: dir } },
    ));
  }
  connection.log.info(`placed ${slot} as ${deploymentId} in ${target}`);
  if (parsed.flags.wait !== true) {
    const body = { deploymentId, slot, phase: "Placed", path: target };
    if (format === "json") io.stdout(JSON.stringify(body, null, 2) + "\n");
    else io.stdout(`placed ${slot} as ${deploymentId} in ${target}\n`);
    return 0;
  }
  connection.log.progress(`${deploymentId} placed; waiting for the engine to activate it`);
  const answer = await pollUntilActive(connection, deploymentId, options, timeoutSeconds * 1000);
  return report(answer, format, io, (b) => `deployed ${slot} as ${b.deploymentId}: ${b.phase}`);
}

/**
 * Polls the deployment's status until it is Active or Failed; unknown (404)
 * or Pending means the engine has not converged yet.
 */
async function pollUntilActive(
  connection: EngineConnection,
  deploymentId: string,
  options: DeployCommandOptions,
  timeoutMs: number,
): Promise<AdminAnswer> {
  const delay = options.pollMillis ?? 500;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const answer = await callEngine(connection, `/sutra/deployments/${deploymentId}`, {});
    const phase = answer.body.phase;
    const settled = answer.status === 200 && (phase === "Active" || phase === "Failed");
    if (settled || (answer.status !== 200 && answer.status !== 404)) return answer;
    if (Date.now() >= deadline) {
      throw new DiagnosticError(diagnostic(
        "SUTRA.CLI.WAIT_TIMEOUT",
        `deployment ${deploymentId} was not Active after ${timeoutMs / 1000}s (last seen: ${
          answer.status === 404 ? "unknown to the engine" : String(phase)
        }); is the engine's sutra.deployments.dir this directory?`,
        { attributes: { deploymentId } },
      ));
    }
    await new Promise((resolve) => setTimeout(resolve, delay));
  }
}

/** The `undeploy` command. */
export const undeployCommand: Command = {
  name: "undeploy",
  summary: "Drain a deployment on a running engine, by slot or deploymentId",
  usage: UNDEPLOY_USAGE,
  async run(args: readonly string[], io: CliIo): Promise<number> {
    const parsed = parseCommandArgs(args, COMMON_FLAGS);
    const format = formatFlag(stringFlag(parsed, "format"));
    if (parsed.positionals.length !== 1) {
      throw new UsageError(
        parsed.positionals.length === 0
          ? "a slot or deploymentId is required"
          : "give exactly one slot or deploymentId",
      );
    }
    const connection = connectEngine(parsed, io, "undeploy");
    const target = await deploymentOf(parsed.positionals[0]);
    const answer = await callEngine(
      connection,
      `/admin/deployments/${encodeURIComponent(target)}`,
      { method: "DELETE" },
    );
    return report(answer, format, io, (b) => `${b.slot} (${b.deploymentId}): ${b.phase}`);
  },
};

/** A slot or id as given, or the deploymentId of a named archive file. */
async function deploymentOf(argument: string): Promise<string> {
  if (!argument.endsWith(ARCHIVE_EXTENSION)) return argument;
  const read = await readArchiveFile(argument);
  if (!read.archive) throw new DiagnosticError(read.diagnostics);
  return read.archive.deploymentId;
}

function upload(
  connection: EngineConnection,
  bytes: Uint8Array,
  how: { readonly async?: boolean; readonly callback?: string } = {},
): Promise<AdminAnswer> {
  const query = new URLSearchParams();
  if (how.async) query.set("async", "true");
  if (how.callback !== undefined) query.set("callback", how.callback);
  const search = query.size > 0 ? `?${query}` : "";
  return callEngine(connection, `/admin/deployments${search}`, {
    method: "POST",
    headers: { "content-type": "application/octet-stream" },
    body: new Uint8Array(bytes),
  });
}

async function pollUntilSettled(
  connection: EngineConnection,
  deploymentId: string,
  options: DeployCommandOptions,
): Promise<AdminAnswer> {
  const delay = options.pollMillis ?? 500;
  for (;;) {
    const answer = await callEngine(connection, `/sutra/deployments/${deploymentId}`, {});
    if (answer.status !== 200 || answer.body.phase !== "Pending") return answer;
    await new Promise((resolve) => setTimeout(resolve, delay));
  }
}

/**
 * Prints an answer: the success line (or the JSON body) on stdout, or the
 * engine's diagnostics on stderr. A settled `Failed` status is a failure.
 */
function report(
  answer: AdminAnswer,
  format: "text" | "json",
  io: CliIo,
  line: (body: Record<string, unknown>) => string | undefined,
): number {
  const failed = answer.status >= 300 || answer.body.phase === "Failed";
  if (format === "json") {
    io.stdout(JSON.stringify(answer.body, null, 2) + "\n");
    return failed ? 1 : 0;
  }
  if (!failed) {
    io.stdout(line(answer.body) + "\n");
    return 0;
  }
  const failure = answer.body.failure as { code: string; detail: string } | undefined;
  const diagnostics = (answer.body.diagnostics as Diagnostic[] | undefined) ??
    (failure ? [diagnostic(failure.code, failure.detail)] : []);
  io.stderr(`the engine refused (${answer.status}):\n`);
  for (const d of diagnostics) io.stderr(formatDiagnostic(d) + "\n");
  return 1;
}

async function watchAndDeploy(
  dir: string,
  connection: EngineConnection,
  io: CliIo,
  options: DeployCommandOptions,
): Promise<number> {
  const stop = options.stop ?? sigint();
  let watcher: Deno.FsWatcher;
  try {
    watcher = Deno.watchFs(dir, { recursive: true });
  } catch (error) {
    throw new DiagnosticError(diagnostic(
      "SUTRA.CLI.FILE_UNREADABLE",
      `cannot watch ${dir}: ${errorMessage(error)}`,
      { source: { uri: dir } },
    ));
  }
  let dirty = false;
  let lastChange = 0;
  let wake: (() => void) | undefined;
  const onStop = () => {
    watcher.close();
    wake?.();
  };
  stop.addEventListener("abort", onStop, { once: true });
  // Events are drained continuously so a change made during a deploy is not lost.
  const pump = (async () => {
    for await (const _event of watcher) {
      dirty = true;
      lastChange = Date.now();
      wake?.();
    }
  })();
  connection.log.progress(`watching ${dir}; Ctrl-C stops`);
  try {
    if (!stop.aborted) await deployOnce(dir, connection, io, options);
    const quiet = options.settleMillis ?? 200;
    while (!stop.aborted) {
      await new Promise<void>((resolve) => {
        wake = resolve;
        if (dirty || stop.aborted) resolve();
      });
      // An editor save is often several events: wait until they stop.
      for (let wait = quiet; !stop.aborted && wait > 0; wait = lastChange + quiet - Date.now()) {
        await new Promise((resolve) => setTimeout(resolve, wait));
      }
      if (stop.aborted) break;
      dirty = false;
      await deployOnce(dir, connection, io, options);
    }
  } finally {
    stop.removeEventListener("abort", onStop);
    if (!stop.aborted) watcher.close();
    await pump;
  }
  connection.log.progress("stopped watching");
  return 0;
}

/** One watch cycle: check, seal, deploy; a finding or a refusal is reported and the watch goes on. */
async function deployOnce(
  dir: string,
  connection: EngineConnection,
  io: CliIo,
  options: DeployCommandOptions,
): Promise<void> {
  const read = await connection.log.timed(`reading ${dir}`, () => readPackageDir(dir));
  if (!read.files) {
    for (const d of read.diagnostics) io.stderr(formatDiagnostic(underDir(d, dir)) + "\n");
    io.stderr("deploy: not deployed (package unreadable)\n");
    return;
  }
  connection.log.info(`read ${read.files.size} file(s) from ${dir}`);
  for (const path of read.files.keys()) connection.log.info(`read ${dir}/${path}`);
  const files = read.files;
  const sealed = await connection.log.timed(
    "checking and sealing",
    () => sealPackage(files, { transports: options.transports }),
  );
  writeFindings(io, reported(sealed.diagnostics).map((d) => underDir(d, dir)), "stderr");
  if (!sealed.archive) {
    io.stderr("deploy: not deployed (fix the findings above)\n");
    return;
  }
  try {
    const answer = await upload(connection, sealed.archive.bytes);
    report(
      answer,
      "text",
      io,
      (b) =>
        `${
          b.unchanged === true ? "unchanged" : "deployed"
        } ${b.slot} as ${b.deploymentId}: ${b.phase}`,
    );
  } catch (error) {
    if (!(error instanceof DiagnosticError)) throw error;
    for (const d of error.diagnostics) io.stderr(formatDiagnostic(d) + "\n");
  }
}

function sigint(): AbortSignal {
  const controller = new AbortController();
  const onSignal = () => {
    Deno.removeSignalListener("SIGINT", onSignal);
    controller.abort();
  };
  Deno.addSignalListener("SIGINT", onSignal);
  return controller.signal;
}
