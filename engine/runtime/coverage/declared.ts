/**
 * The routes a deployment declares for coverage: every `q:coverage` path of
 * its executable processes (one flag per path id, however many processes
 * share it) and every route of its coverage files, named
 * `<file urn>:<path>`, with the processes whose segments it needs.
 *
 * @module
 */
import type { ExecutionPlan } from "../../bpmn/mod.ts";
import type { LoadedPackage } from "../../package/mod.ts";

/** A cross-process route: its id and, per process, the ordered flows of its segment. */
export interface CrossRoute {
  readonly id: string;
  /** The correlation key names (the correlation's and any hop's override) that join its instances. */
  readonly keys: readonly string[];
  readonly segments: ReadonlyMap<string, readonly string[]>;
}

/** Everything a deployment declares. */
export interface DeclaredRoutes {
  /** Intra-process path ids, sorted, each once. */
  readonly paths: readonly string[];
  readonly cross: readonly CrossRoute[];
}

/** The routes of a package whose processes are planned in `plans`. */
export function declaredRoutes(
  pkg: LoadedPackage,
  plans: Iterable<ExecutionPlan>,
): DeclaredRoutes {
  const cross: CrossRoute[] = [];
  for (const loaded of pkg.coverage) {
    for (const c of loaded.coverage?.correlations ?? []) {
      const keys = [...new Set([c.key, ...c.links.flatMap((l) => l.key ? [l.key] : [])])];
      for (const route of c.coverages) {
        cross.push({ id: `${loaded.artifact.urn}:${route.path}`, keys, segments: route.segments });
      }
    }
  }
  // Once segments are planned (see segments.ts) a process also lists the
  // cross-process routes it takes part in: those are not intra-process paths.
  const crossIds = new Set(cross.map((r) => r.id));
  const paths = new Set<string>();
  for (const plan of new Set(plans)) {
    for (const process of plan.processes) {
      for (const route of process.coverage) if (!crossIds.has(route.path)) paths.add(route.path);
    }
  }
  return { paths: [...paths].sort(), cross };
}

/** Every route id a deployment seeds: intra-process paths and cross-process routes. */
export function routeIds(declared: DeclaredRoutes): string[] {
  return [...declared.paths, ...declared.cross.map((r) => r.id)];
}

/**
 * The route id an executor coverage key stands for: the executor prefixes
 * a path completed in a process other than the instance's own (a called or
 * nested one) with `<process>#`, but flags are keyed by path id alone.
 */
export function pathOfKey(key: string): string {
  const hash = key.indexOf("#");
  return hash < 0 ? key : key.slice(hash + 1);
}
