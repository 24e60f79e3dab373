/**
 * `sutra package DIR [-o|--out OUT] [--format text|json]`: runs the lint
 * suite, and when nothing is an error seals the package into
 * `<tenant>--<module>--<version>.sutra`, writes it atomically, and reads it
 * back through the verifying reader before reporting success. Progress goes
 * to stderr; the report (archive path, deploymentId, slot) to stdout.
 *
 * @module
 */
import { dirname } from "node:path";
import { type Diagnostic, diagnostic } from "../engine/core/diagnostic.ts";
import { ARCHIVE_EXTENSION, readArchiveFile, sealPackage } from "../engine/package/mod.ts";
import {
  type CliIo,
  cliLog,
  type Command,
  DiagnosticError,
  formatFlag,
  writeFindings,
} from "./command.ts";
import { parseCommandArgs, stringFlag } from "./describe.ts";
import {
  type PackageCommandOptions,
  packageDirArgument,
  readPackageArgument,
  reported,
  summarize,
  underDir,
} from "./lint.ts";
import { errorMessage } from "../engine/core/errors.ts";

const USAGE = `Usage: sutra package DIR [-o|--out OUT] [--format text|json]

Seals the package directory DIR into one content-addressed archive. The
lint suite runs first ('sutra lint'); any ERROR refuses the package and
nothing is written. The archive is deterministic (sorted entries, fixed
timestamps, stable compression), so packaging unchanged sources again gives
identical bytes, and its manifest — every file's path and SHA-256, the labels
and engine.minContract — is derived, never authored.

Options:
  -o, --out OUT       directory to write <tenant>--<module>--<version>.sutra
                      into (created when missing), or a path ending in .sutra
                      (default: the current directory)
  --format text|json  report format (default text)`;

/** What a successful run reports. */
export interface PackageReport {
  readonly archive: string;
  readonly deploymentId: string;
  readonly slot: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly files: number;
  readonly bytes: number;
  readonly diagnostics: readonly Diagnostic[];
}

/** Builds the `package` command. */
export function packageCommand(options: PackageCommandOptions): Command {
  return {
    name: "package",
    summary: "Seal a package directory into a .sutra archive",
    usage: USAGE,
    async run(args: readonly string[], io: CliIo): Promise<number> {
      const parsed = parseCommandArgs(args, {
        out: { type: "string" },
        o: { type: "string" },
        format: { type: "string" },
      });
      const format = formatFlag(stringFlag(parsed, "format"));
      const dir = packageDirArgument(parsed.positionals);
      const out = stringFlag(parsed, "out") ?? stringFlag(parsed, "o") ?? ".";

      const log = cliLog(io, "package");
      log.debug(
        `out ${out}; format ${format}; transports ${options.transports.names().join(", ")}`,
      );
      log.progress(`reading ${dir}`);
      const files = await readPackageArgument(dir, log);
      log.progress(`checking ${files.size} file(s)`);
      const sealed = await log.timed(
        "checking and sealing",
        () => sealPackage(files, { transports: options.transports }),
      );
      const found = reported(sealed.diagnostics);
      const shown = found.map((d) => underDir(d, dir));
      if (!sealed.archive) {
        if (format === "json") {
          io.stdout(
            JSON.stringify({ package: dir, ...summarize(found), diagnostics: found }, null, 2) +
              "\n",
          );
        } else {
          writeFindings(io, shown, "stderr");
          const { errors, warnings } = summarize(shown);
          io.stderr(
            `package: refused, ${errors} error(s), ${warnings} warning(s); nothing written\n`,
          );
        }
        return 1;
      }
      if (format === "text") writeFindings(io, shown, "stderr");

      const target = out.endsWith(ARCHIVE_EXTENSION)
        ? out
        : `${out.replace(/\/+$/, "") || "/"}/${sealed.archive.fileName}`;
      log.progress(`sealing ${sealed.archive.slot}`);
      log.info(`writing ${target} (${sealed.archive.bytes.length} bytes)`);
      for (const f of sealed.archive.manifest.files) {
        log.trace(`sealed ${f.path} sha256 ${f.sha256}`);
      }
      const archiveBytes = sealed.archive.bytes;
      await log.timed(`writing ${target}`, () => writeAtomically(target, archiveBytes));
      // Read back what was written: a report only for bytes the verifying
      // reader accepts, the same reader the engine deploys through.
      const check = await readArchiveFile(target);
      if (!check.archive || check.archive.deploymentId !== sealed.archive.deploymentId) {
        throw new DiagnosticError(
          check.diagnostics.length > 0 ? check.diagnostics : [
            diagnostic("SUTRA.DEPLOY.ARCHIVE_INVALID", `${target} does not read back as written`, {
              source: { uri: target },
            }),
          ],
        );
      }
      const report: PackageReport = {
        archive: target,
        deploymentId: sealed.archive.deploymentId,
        slot: sealed.archive.slot,
        labels: sealed.archive.manifest.labels,
        files: sealed.archive.manifest.files.length,
        bytes: sealed.archive.bytes.length,
        diagnostics: found,
      };
      io.stdout(format === "json" ? JSON.stringify(report, null, 2) + "\n" : formatReport(report));
      return 0;
    },
  };
}

function formatReport(r: PackageReport): string {
  return [
    `wrote ${r.archive}`,
    `  deploymentId  ${r.deploymentId}`,
    `  slot          ${r.slot}`,
    `  files         ${r.files} (${r.bytes} bytes sealed)`,
  ].join("\n") + "\n";
}

/** Writes through a temporary file in the same directory, so a reader never sees half an archive. */
async function writeAtomically(path: string, bytes: Uint8Array): Promise<void> {
  const dir = dirname(path);
  try {
    await Deno.mkdir(dir, { recursive: true });
    const temp = await Deno.makeTempFile({ dir, prefix: ".sutra-package-" });
    try {
      await Deno.writeFile(temp, bytes);
      // Temporary files are private; an archive is meant to be shipped.
      await Deno.chmod(temp, 0o644);
      await Deno.rename(temp, path);
    } catch (error) {
      await Deno.remove(temp).catch(() => {});
      throw error;
    }
  } catch (error) {
    throw new DiagnosticError(diagnostic(
      "SUTRA.CLI.FILE_UNWRITABLE",
      `cannot write ${path}: ${errorMessage(error)}`,
      { source: { uri: path } },
    ));
  }
}
