/**
 * Opening the business stores a loaded package declares: every store of
 * `datastores.yaml` but the engine-owned coverage store, each with its
 * resolved projection, through the provider registry (which runs the
 * store's migrations). A store whose projection cannot be resolved opens
 * none of them.
 *
 * @module
 */
import type { ResolveContext } from "../core/secrets.ts";
import { DiagnosticError } from "../core/diagnostic.ts";
import { COVERAGE_STORE, type DataStoreDecl, type LoadedPackage } from "../package/mod.ts";
import { resolveProjection } from "./projection.ts";
import { type DataStoreSet, declarationOf, openDataStores } from "./stores.ts";

/** The package's business stores (the coverage store is the engine's own). */
export function businessStores(pkg: LoadedPackage): DataStoreDecl[] {
  return (pkg.stores.entries ?? []).filter((s) => s.name !== COVERAGE_STORE);
}

/**
 * Opens (and migrates) the package's business stores, or those of them
 * `declared` lists; rejects with a DiagnosticError.
 */
export function openPackageStores(
  pkg: LoadedPackage,
  resolve: ResolveContext,
  declared: readonly DataStoreDecl[] = businessStores(pkg),
): Promise<DataStoreSet> {
  const resolved = declared.map((s) => resolveProjection(s, pkg));
  const problems = resolved.flatMap((r) => r.diagnostics);
  if (problems.length > 0) return Promise.reject(new DiagnosticError(problems));
  return openDataStores(
    declared.map((s, i) => declarationOf(s, resolved[i].projection)),
    { resolve, files: pkg.files },
  );
}
