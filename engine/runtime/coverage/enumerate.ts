/**
 * Route enumeration for `sutra coverage init` and the drift check: every
 * start→end walk over one process's own flow graph (a boundary event is a
 * way out of the activity it sits on; a sub-process is one step), then each
 * walk trimmed to what sets it apart — the flows after the last node every
 * walk passes through — and identical trims merged. Three intake start
 * events feeding one transaction that either commits or cancels give two
 * routes, not six.
 *
 * @module
 */
import type { FlowIndex, NodeIndex, ProcessPlan } from "../../bpmn/mod.ts";

/** The default cap on routes per process. */
export const DEFAULT_MAX_PATHS = 256;

/** What {@link enumerateRoutes} answers. */
export type Enumeration =
  | { readonly ok: true; readonly routes: readonly (readonly string[])[] }
  | { readonly ok: false; readonly found: number };

/** The distinct routes of `process` (as flow ids), or how many walks passed `maxPaths`. */
export function enumerateRoutes(process: ProcessPlan, maxPaths = DEFAULT_MAX_PATHS): Enumeration {
  const walks: { nodes: NodeIndex[]; flows: FlowIndex[] }[] = [];
  const rootScope = process.nodes[0]?.scope;
  const starts = process.nodes.filter((n) =>
    n.kind === "startEvent" && n.scope === rootScope && n.attachedTo === undefined
  );
  let overflow = false;
  const walk = (node: NodeIndex, nodes: NodeIndex[], flows: FlowIndex[]) => {
    if (overflow) return;
    const n = process.nodes[node];
    const exits: { flow?: FlowIndex; to: NodeIndex }[] = [
      ...n.outgoing.map((f) => ({ flow: f, to: process.flows[f].target })),
      ...n.boundaries.map((b) => ({ to: b })),
    ];
    if (exits.length === 0) {
      walks.push({ nodes: [...nodes, node], flows: [...flows] });
      if (walks.length > maxPaths) overflow = true;
      return;
    }
    for (const exit of exits) {
      // A flow already taken on this walk is a loop: the walk without it is the route.
      if (exit.flow !== undefined && flows.includes(exit.flow)) continue;
      walk(
        exit.to,
        [...nodes, node],
        exit.flow === undefined ? flows : [...flows, exit.flow],
      );
    }
  };
  for (const start of starts) walk(start.index, [], []);
  if (overflow) return { ok: false, found: walks.length };
  const shared = walks.length < 2
    ? new Set<NodeIndex>()
    : new Set(walks[0].nodes.filter((n) => walks.every((w) => w.nodes.includes(n))));
  const seen = new Map<string, string[]>();
  for (const w of walks) {
    // Keep the flows taken from the last node every walk shares onwards.
    const cut = Math.max(0, ...w.nodes.map((n, i) => shared.has(n) ? i : 0));
    const ids = w.flows
      .filter((f) => w.nodes.indexOf(process.flows[f].source) >= cut)
      .map((f) => process.flows[f].id);
    if (ids.length > 0) seen.set(ids.join(" "), ids);
  }
  return { ok: true, routes: [...seen.values()] };
}

/** True when `declared` appears in `route` in order (not necessarily adjacent). */
export function isSubsequence(declared: readonly string[], route: readonly string[]): boolean {
  let k = 0;
  for (const id of route) if (id === declared[k]) k++;
  return k === declared.length;
}
