/**
 * The package-time gate `sutra lint` and `sutra package` share: load every
 * artifact, run every lint family, and report everything found at once.
 * Sealing refuses a package with any ERROR; warnings are reported and do
 * not block.
 *
 * @module
 */
import { type Diagnostic, hasErrors } from "../core/diagnostic.ts";
import { sealArchive, type SealedArchive } from "./archive.ts";
import type { PackageFiles } from "./files.ts";
import { type LoadedPackage, loadPackage } from "./load.ts";
import { lintChannels } from "./lint/channels.ts";
import { lintContext } from "./lint/context.ts";
import { lintCoverage } from "./lint/coverage.ts";
import { lintDatastores } from "./lint/datastores.ts";
import { lintReferences } from "./lint/references.ts";
import { lintSecrets } from "./lint/secrets.ts";
import type { TransportCatalog } from "./ports.ts";

/** Options for {@link lintPackage}, {@link checkPackage} and {@link sealPackage}. */
export interface CheckPackageOptions {
  /** The transports this build links. */
  readonly transports: TransportCatalog;
}

/** The lint families, in report order. */
const FAMILIES = [lintChannels, lintSecrets, lintDatastores, lintCoverage, lintReferences];

/** Runs every lint family over a loaded package. */
export function lintPackage(pkg: LoadedPackage, options: CheckPackageOptions): Diagnostic[] {
  const ctx = lintContext(pkg, options.transports);
  return FAMILIES.flatMap((family) => family(ctx));
}

/** What {@link checkPackage} returns. */
export interface CheckPackageResult {
  readonly package: LoadedPackage;
  /** Load and lint findings, sorted by file, line, column and code. */
  readonly diagnostics: readonly Diagnostic[];
}

/** Loads and lints a package. */
export async function checkPackage(
  files: PackageFiles,
  options: CheckPackageOptions,
): Promise<CheckPackageResult> {
  const loaded = await loadPackage(files);
  const diagnostics = [...loaded.diagnostics, ...lintPackage(loaded.package, options)];
  return { package: loaded.package, diagnostics: diagnostics.sort(byLocation) };
}

/** What {@link sealPackage} returns. */
export interface SealPackageResult {
  /** Present when nothing was an ERROR. */
  readonly archive?: SealedArchive;
  readonly diagnostics: readonly Diagnostic[];
}

/** Checks a package and, when nothing is an ERROR, seals it. */
export async function sealPackage(
  files: PackageFiles,
  options: CheckPackageOptions,
): Promise<SealPackageResult> {
  const checked = await checkPackage(files, options);
  const descriptor = checked.package.descriptor;
  if (hasErrors(checked.diagnostics) || descriptor === undefined) {
    return { diagnostics: checked.diagnostics };
  }
  return { archive: await sealArchive(files, descriptor), diagnostics: checked.diagnostics };
}

/** Orders diagnostics by file, line, column, then code. */
export function byLocation(a: Diagnostic, b: Diagnostic): number {
  const ua = a.source?.uri ?? "";
  const ub = b.source?.uri ?? "";
  if (ua !== ub) return ua < ub ? -1 : 1;
  return (a.source?.line ?? 0) - (b.source?.line ?? 0) ||
    (a.source?.column ?? 0) - (b.source?.column ?? 0) ||
    (a.code < b.code ? -1 : a.code > b.code ? 1 : 0);
}
