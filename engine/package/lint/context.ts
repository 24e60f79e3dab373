/**
 * What every lint family receives: the loaded package, the build's
 * catalogs, and indexes over the package's processes built once.
 *
 * @module
 */
import { ModelIndex, type Process } from "../../bpmn/mod.ts";
import type { SourceLocation } from "../../core/diagnostic.ts";
import type { LoadedPackage } from "../load.ts";
import type { TransportCatalog } from "../ports.ts";

/** One process of the package and the file it came from. */
export interface PackageProcess {
  readonly process: Process;
  readonly index: ModelIndex;
  /** Package path of the BPMN file. */
  readonly path: string;
}

/** Shared state of one lint run. */
export interface LintContext {
  readonly pkg: LoadedPackage;
  readonly transports: TransportCatalog;
  /** Every process of every BPMN file that could be read, in file order. */
  readonly processes: readonly PackageProcess[];
  /** Processes by id (the first file wins when an id repeats). */
  readonly processById: ReadonlyMap<string, PackageProcess>;
}

/** Builds the context for a loaded package. */
export function lintContext(pkg: LoadedPackage, transports: TransportCatalog): LintContext {
  const processes: PackageProcess[] = [];
  const processById = new Map<string, PackageProcess>();
  for (const { artifact, result } of pkg.bpmn) {
    if (!result.definitions) continue;
    const index = new ModelIndex(result.definitions);
    for (const process of result.definitions.processes) {
      const entry = { process, index, path: artifact.path };
      processes.push(entry);
      if (!processById.has(process.id)) processById.set(process.id, entry);
    }
  }
  return { pkg, transports, processes, processById };
}

/** A source location in a BPMN file. */
export function bpmnAt(path: string, at: { line: number; column: number }): SourceLocation {
  return { uri: path, line: at.line, column: at.column };
}
