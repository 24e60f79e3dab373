/**
 * Turning archive bytes into something the engine can run: the archive is
 * re-verified fail-closed, the package loaded and linted exactly as
 * `sutra package` did, and every executable process's plan indexed by id
 * (linked, so a call activity reaches the processes of every file).
 * The engine never trusts that a client ran the checks.
 *
 * @module
 */
import { type ExecutionPlan, linkPlans } from "../../bpmn/mod.ts";
import { type Diagnostic, diagnostic, hasErrors } from "../../core/mod.ts";
import { projectionRefusals } from "../../datastore/mod.ts";
import { withCoverageSegments } from "../coverage/mod.ts";
import {
  checkPackage,
  type LoadedPackage,
  type PackageLimits,
  readArchive,
  type SealedArchive,
  type TransportCatalog,
} from "../../package/mod.ts";

/** Options for {@link compileArchive}. */
export interface CompileOptions {
  /** Transports this build links; a channel naming another one fails lint. */
  readonly transports: TransportCatalog;
  /** Archive size ceilings. */
  readonly limits: PackageLimits;
  /** Name used in diagnostics. */
  readonly uri: string;
}

/** A verified, linted and planned archive. */
export interface CompiledArchive {
  readonly archive: SealedArchive;
  readonly package: LoadedPackage;
  readonly plans: ReadonlyMap<string, ExecutionPlan>;
  /** Warnings and notes the checks reported (never an ERROR). */
  readonly diagnostics: readonly Diagnostic[];
}

/** Why an archive cannot run. */
export type CompileFailure =
  /** The bytes are not an intact archive: nothing about them can be trusted. */
  | { readonly stage: "archive"; readonly diagnostics: readonly Diagnostic[] }
  /** An intact archive whose package does not pass the checks. */
  | {
    readonly stage: "lint";
    readonly archive: SealedArchive;
    readonly diagnostics: readonly Diagnostic[];
  };

/** Either a runnable archive or the reasons it is not. */
export type CompileResult =
  | { readonly ok: true; readonly compiled: CompiledArchive }
  | ({ readonly ok: false } & CompileFailure);

/** Verifies, loads, lints and plans archive bytes. */
export async function compileArchive(
  bytes: Uint8Array,
  options: CompileOptions,
): Promise<CompileResult> {
  const read = await readArchive(bytes, { uri: options.uri, limits: options.limits });
  if (!read.archive) {
    return { ok: false, stage: "archive", diagnostics: read.diagnostics };
  }
  const archive = read.archive;
  const checked = await checkPackage(archive.files, { transports: options.transports });
  // A store's structure must be projectable onto columns before anything can write to it.
  const found = [
    ...checked.diagnostics,
    ...projectionRefusals(checked.package.stores.entries ?? [], checked.package),
  ];
  if (hasErrors(found)) {
    return { ok: false, stage: "lint", archive, diagnostics: withHeadline(found) };
  }
  // Lint refuses duplicate process ids across files, so ids are unique
  // here; linking lets a call activity reach a process of another file.
  const plans = new Map<string, ExecutionPlan>();
  // Cross-process coverage segments become intra-process paths of their processes.
  const files = checked.package.bpmn.flatMap((file) =>
    file.result.plan ? [withCoverageSegments(file.result.plan, checked.package)] : []
  );
  for (const plan of linkPlans(files)) {
    for (const process of plan.processes) plans.set(process.id, plan);
  }
  return {
    ok: true,
    compiled: { archive, package: checked.package, plans, diagnostics: checked.diagnostics },
  };
}

/**
 * Puts one summary diagnostic in front so a client reading only the first
 * entry learns which gate refused; every finding of the package follows.
 */
function withHeadline(found: readonly Diagnostic[]): Diagnostic[] {
  const errors = found.filter((d) => d.severity === "ERROR").length;
  return [
    diagnostic(
      "SUTRA.DEPLOY.LINT_FAILED",
      `the package failed the deploy-time checks with ${errors} error(s); it was not activated`,
      { attributes: { errors } },
    ),
    ...found,
  ];
}
