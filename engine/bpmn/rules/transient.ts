/**
 * A transient variable is never persisted, so it is gone once the instance
 * parks. Reading one anywhere a token can reach from a wait state — without
 * the variable being written again on the way — is refused. The reads of
 * the wait node itself that happen on resume (its intake expressions and
 * outgoing conditions) count as after the wait.
 *
 * @module
 */
import { flattenedSuccessors } from "../_graph.ts";
import type { ExpressionSite } from "../expression_sites.ts";
import { parksInstance } from "../implementation.ts";
import type { FlowNode, Process } from "../model.ts";
import type { RuleContext } from "./context.ts";

const RESUME_ROLES: ReadonlySet<string> = new Set([
  "condition",
  "alias",
  "dedupKey",
  "validatorPath",
]);

interface Read {
  readonly site: ExpressionSite;
  readonly name: string;
}

/** Checks reads of transient variables after wait states. */
export function checkTransientReads(ctx: RuleContext): void {
  for (const process of ctx.index.definitions.processes) {
    const transient = new Set(process.q.variables.filter((v) => v.transient).map((v) => v.name));
    if (!ctx.executable(process) || transient.size === 0) continue;
    const reads = readsByNode(ctx, process, transient);
    const writes = writesByNode(ctx, process);
    const next = flattenedSuccessors(ctx.index, process);
    const reported = new Set<string>();
    const report = (read: Read, wait: FlowNode) => {
      const key = `${read.name}\u0000${read.site.expression.rawStart}`;
      if (reported.has(key)) return;
      reported.add(key);
      ctx.report(
        "SUTRA.CONFIG.BPMN.TRANSIENT_READ_AFTER_WAIT",
        `${read.site.role} reads transient variable '${read.name}' after wait state '${wait.id}', ` +
          "where it no longer exists (transient variables are never persisted)",
        read.site.expression,
        { attributes: { variable: read.name, wait: wait.id } },
      );
    };
    for (const { node: wait } of ctx.index.nodesOf(process)) {
      if (!parksInstance(wait)) continue;
      const freshAtWait = writes.get(wait.id) ?? new Set();
      for (const read of reads.get(wait.id) ?? []) {
        if (RESUME_ROLES.has(read.site.role) && !freshAtWait.has(read.name)) report(read, wait);
      }
      for (const name of transient) {
        if (freshAtWait.has(name)) continue;
        const seen = new Set<string>();
        const queue = [...(next.get(wait.id) ?? [])];
        while (queue.length > 0) {
          const id = queue.shift()!;
          if (seen.has(id)) continue;
          seen.add(id);
          for (const read of reads.get(id) ?? []) if (read.name === name) report(read, wait);
          if (writes.get(id)?.has(name)) continue;
          queue.push(...(next.get(id) ?? []));
        }
      }
    }
  }
}

function readsByNode(
  ctx: RuleContext,
  process: Process,
  transient: ReadonlySet<string>,
): Map<string, Read[]> {
  // A store key is evaluated by each node that reads or writes the store.
  const storeUsers = new Map<string, string[]>();
  for (const { node } of ctx.index.nodesOf(process)) {
    for (const a of [...node.dataInputAssociations, ...node.dataOutputAssociations]) {
      for (const ref of [...a.sources, ...(a.target ? [a.target] : [])]) {
        storeUsers.set(ref, [...(storeUsers.get(ref) ?? []), node.id]);
      }
    }
  }
  const reads = new Map<string, Read[]>();
  for (const site of ctx.sites) {
    if (site.process !== process || site.isTarget) continue;
    const compiled = ctx.compiled.get(site.expression);
    if (!compiled) continue;
    const nodes = site.node ? [site.node.id] : storeUsers.get(site.storeReference ?? "") ?? [];
    for (const path of compiled.paths) {
      const name = path.split(".")[0];
      if (!transient.has(name) || site.localNames.includes(name)) continue;
      for (const id of nodes) reads.set(id, [...(reads.get(id) ?? []), { site, name }]);
    }
  }
  return reads;
}

function writesByNode(ctx: RuleContext, process: Process): Map<string, Set<string>> {
  const writes = new Map<string, Set<string>>();
  const names = (id: string) => {
    let set = writes.get(id);
    if (!set) writes.set(id, set = new Set());
    return set;
  };
  for (const { node } of ctx.index.nodesOf(process)) {
    for (const source of node.q.sources) names(node.id).add(source.name);
    for (const a of node.dataOutputAssociations) {
      for (const assignment of a.assignments) {
        const root = assignment.to?.text.split(".")[0]?.trim();
        if (root) names(node.id).add(root);
      }
      const target = a.target ? ctx.index.definitions.ids.get(a.target) : undefined;
      if (a.target && target) names(node.id).add(dataName(ctx, process, a.target));
    }
    for (const a of node.dataInputAssociations) {
      for (const assignment of a.assignments) {
        const root = assignment.to?.text.split(".")[0]?.trim();
        if (root) names(node.id).add(root);
      }
    }
  }
  return writes;
}

function dataName(ctx: RuleContext, process: Process, id: string): string {
  for (const { content, process: holder } of ctx.index.containers) {
    if (holder !== process) continue;
    const found = [...content.dataObjects, ...content.dataObjectReferences].find((d) =>
      d.id === id
    );
    if (found) return found.name ?? found.id;
  }
  return id;
}
