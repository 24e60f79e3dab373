/**
 * `sutra lint DIR [--format text|json]`: the package-time gate — exactly the
 * checks `sutra package` runs before sealing — with nothing printed when the
 * package is clean. Findings go to stdout (they are the report); the exit
 * code is 1 when any is an ERROR.
 *
 * @module
 */
import { type Diagnostic, hasErrors } from "../engine/core/diagnostic.ts";
import {
  checkPackage,
  type PackageFiles,
  readPackageDir,
  type TransportCatalog,
} from "../engine/package/mod.ts";
import {
  type CliIo,
  type CliLog,
  cliLog,
  type Command,
  DiagnosticError,
  formatFlag,
  UsageError,
  writeFindings,
} from "./command.ts";
import { parseCommandArgs, stringFlag } from "./describe.ts";

/** Options shared by the package commands. */
export interface PackageCommandOptions {
  /** Transports a channel may ride in this build. */
  readonly transports: TransportCatalog;
}

/** The one DIR positional of a package command. */
export function packageDirArgument(positionals: readonly string[]): string {
  if (positionals.length !== 1) {
    throw new UsageError(
      positionals.length === 0
        ? "a package directory is required"
        : "give exactly one package directory",
    );
  }
  return positionals[0].replace(/\/+$/, "") || "/";
}

/** A diagnostic whose package-relative file is shown under the package directory. */
export function underDir(d: Diagnostic, dir: string): Diagnostic {
  if (!d.source || d.source.uri.startsWith("/") || d.source.uri === dir) return d;
  return { ...d, source: { ...d.source, uri: `${dir}/${d.source.uri}` } };
}

/**
 * Reads a package directory, turning a refusal into a DiagnosticError; `log`
 * lists the files read (`-v`) with their sizes (`-vvv`) and the time (`-vv`).
 */
export async function readPackageArgument(dir: string, log?: CliLog): Promise<PackageFiles> {
  const read = log
    ? await log.timed(`reading ${dir}`, () => readPackageDir(dir))
    : await readPackageDir(dir);
  if (!read.files) throw new DiagnosticError(read.diagnostics.map((d) => underDir(d, dir)));
  if (log) {
    log.info(`read ${read.files.size} file(s) from ${dir}`);
    for (const [path, bytes] of read.files) {
      log.info(`read ${dir}/${path}`);
      log.trace(`${dir}/${path}: ${bytes.length} byte(s)`);
    }
  }
  return read.files;
}

/** Counts for a summary line. */
export function summarize(
  diagnostics: readonly Diagnostic[],
): { errors: number; warnings: number } {
  return {
    errors: diagnostics.filter((d) => d.severity === "ERROR").length,
    warnings: diagnostics.filter((d) => d.severity === "WARNING").length,
  };
}

/**
 * What a command reports: ERRORs and WARNINGs. INFO notes (a documentation
 * process that is read but not planned) stay with the library's callers.
 */
export function reported(diagnostics: readonly Diagnostic[]): Diagnostic[] {
  return diagnostics.filter((d) => d.severity !== "INFO");
}

const USAGE = `Usage: sutra lint DIR [--format text|json]

Runs every package-time check on the package directory DIR — the same
fail-closed suite 'sutra package' runs before sealing: layout, package.yaml,
channels.yaml, datastores.yaml and coverage files against their schemas,
every BPMN, DMN, .srl and template loaded, and the cross-file rules (channels,
transports, codecs, literal secrets, data stores, coverage, references).

Prints nothing when the package is clean. Otherwise every finding, one per
line (or as JSON), and exits 1 when any is an ERROR.`;

/** Builds the `lint` command. */
export function lintCommand(options: PackageCommandOptions): Command {
  return {
    name: "lint",
    summary: "Check a package directory with the full package-time suite",
    usage: USAGE,
    async run(args: readonly string[], io: CliIo): Promise<number> {
      const parsed = parseCommandArgs(args, { format: { type: "string" } });
      const format = formatFlag(stringFlag(parsed, "format"));
      const dir = packageDirArgument(parsed.positionals);
      const log = cliLog(io, "lint");
      log.debug(`format ${format}; transports ${options.transports.names().join(", ")}`);
      const files = await readPackageArgument(dir, log);
      const checked = await log.timed(
        "checking",
        () => checkPackage(files, { transports: options.transports }),
      );
      const diagnostics = reported(checked.diagnostics);
      log.info(`${diagnostics.length} finding(s)`);
      if (format === "json") {
        io.stdout(
          JSON.stringify({ package: dir, ...summarize(diagnostics), diagnostics }, null, 2) + "\n",
        );
      } else if (diagnostics.length > 0) {
        writeFindings(io, diagnostics.map((d) => underDir(d, dir)));
        const { errors, warnings } = summarize(diagnostics);
        io.stdout(`${errors} error(s), ${warnings} warning(s)\n`);
      }
      return hasErrors(diagnostics) ? 1 : 0;
    },
  };
}
