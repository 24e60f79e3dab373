/**
 * Cross-process reconstruction: which routes one business transaction
 * walked end to end. Instances are joined by union-find over the
 * correlation values their fragments carry (two instances that share any
 * value are one transaction, transitively); a route is covered when one
 * joined group holds a completed segment for every process the route
 * names. Segments completed by unrelated transactions never add up.
 *
 * @module
 */
import type { CrossRoute } from "./declared.ts";
import type { StoredFragment } from "./spi.ts";

/** The ids of the routes in `routes` some correlated group of `fragments` completed. */
export function completedRoutes(
  routes: readonly CrossRoute[],
  fragments: readonly StoredFragment[],
): string[] {
  const parent = new Map<string, string>();
  const find = (x: string): string => {
    let root = x;
    while (parent.get(root) !== root) root = parent.get(root)!;
    // Path compression: later finds of this chain are one hop.
    while (x !== root) {
      const next = parent.get(x)!;
      parent.set(x, root);
      x = next;
    }
    return root;
  };
  const union = (a: string, b: string) => parent.set(find(a), find(b));
  const instance = (id: string) => `i:${id}`;
  for (const f of fragments) {
    const node = instance(f.instanceId);
    if (!parent.has(node)) parent.set(node, node);
    if (f.correlation === "") continue;
    const value = `c:${f.correlation}`;
    if (!parent.has(value)) parent.set(value, value);
    union(node, value);
  }
  const done: string[] = [];
  for (const route of routes) {
    const byGroup = new Map<string, Set<string>>();
    for (const f of fragments) {
      if (f.routeId !== route.id) continue;
      const group = find(instance(f.instanceId));
      const processes = byGroup.get(group) ?? new Set<string>();
      processes.add(f.processId);
      byGroup.set(group, processes);
    }
    const needed = [...route.segments.keys()];
    if ([...byGroup.values()].some((seen) => needed.every((p) => seen.has(p)))) {
      done.push(route.id);
    }
  }
  return done;
}
