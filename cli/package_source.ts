/**
 * The package a generator command reads: a package directory or a sealed
 * `.sutra` archive, loaded and linted as `sutra lint` does. A package with
 * an ERROR is refused with its diagnostics: a document generated from a
 * package the engine would not deploy would describe nothing real.
 *
 * @module
 */
import { hasErrors } from "../engine/core/diagnostic.ts";
import {
  checkPackage,
  type LoadedPackage,
  readArchiveFile,
  type TransportCatalog,
} from "../engine/package/mod.ts";
import { type CliLog, DiagnosticError } from "./command.ts";
import { readPackageArgument, underDir } from "./lint.ts";

/** A loaded package, and its deployment id when it came from an archive. */
export interface PackageSource {
  readonly package: LoadedPackage;
  readonly deploymentId?: string;
}

/** Loads the package at `path` (a directory or an archive file); refuses one with errors. */
export async function loadPackageSource(
  path: string,
  options: { readonly transports: TransportCatalog; readonly log?: CliLog },
): Promise<PackageSource> {
  const { log } = options;
  let isDirectory = false;
  try {
    isDirectory = (await Deno.stat(path)).isDirectory;
  } catch {
    // Not there: readArchiveFile names the path in its diagnostic.
  }
  const dir = path.replace(/\/+$/, "") || "/";
  if (isDirectory) {
    const files = await readPackageArgument(dir, log);
    const checked = await timed(log, `checking ${dir}`, () => checkPackage(files, options));
    if (hasErrors(checked.diagnostics)) {
      throw new DiagnosticError(
        checked.diagnostics.filter((d) => d.severity === "ERROR").map((d) => underDir(d, dir)),
      );
    }
    return { package: checked.package };
  }
  const read = await timed(log, `reading ${path}`, () => readArchiveFile(path));
  if (!read.archive) throw new DiagnosticError(read.diagnostics);
  log?.info(
    `read archive ${path}: ${read.archive.deploymentId}, ${read.archive.files.size} file(s)`,
  );
  for (const [name, bytes] of read.archive.files) {
    log?.trace(`${path}!${name}: ${bytes.length} byte(s)`);
  }
  const archiveFiles = read.archive.files;
  const checked = await timed(log, `checking ${path}`, () => checkPackage(archiveFiles, options));
  if (hasErrors(checked.diagnostics)) {
    throw new DiagnosticError(checked.diagnostics.filter((d) => d.severity === "ERROR"));
  }
  return { package: checked.package, deploymentId: read.archive.deploymentId };
}

function timed<T>(log: CliLog | undefined, what: string, work: () => Promise<T>): Promise<T> {
  return log ? log.timed(what, work) : work();
}
