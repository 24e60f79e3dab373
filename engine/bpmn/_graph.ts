/**
 * The control-flow successor relation of a process with its nesting
 * flattened: a sub-process leads into its content, the content's last
 * nodes lead to whatever follows the sub-process, activities lead to their
 * boundary events, and link throws lead to their catches. Used by analyses
 * that ask "can the token get from here to there".
 *
 * @module
 */
import type { Process } from "./model.ts";
import { isSubProcess, linkName } from "./model.ts";
import type { ModelIndex } from "./model_index.ts";

/** Node id → ids of the nodes a token can move to next. */
export function flattenedSuccessors(index: ModelIndex, process: Process): Map<string, string[]> {
  const next = new Map<string, string[]>();
  const add = (from: string, to: string) => {
    const list = next.get(from);
    if (list) {
      if (!list.includes(to)) list.push(to);
    } else {
      next.set(from, [to]);
    }
  };
  for (const { content, owner, process: holder } of index.containers) {
    if (holder !== process) continue;
    const catches = new Map<string, string[]>();
    for (const node of content.nodes) {
      const name = linkName(node);
      if (name !== undefined && node.kind === "intermediateCatchEvent") {
        catches.set(name, [...(catches.get(name) ?? []), node.id]);
      }
    }
    const afterOwner = owner && !owner.triggeredByEvent
      ? owner.outgoing.map((f) => index.flows.get(f)?.flow.targetRef).filter((t): t is string =>
        !!t
      )
      : [];
    for (const node of content.nodes) {
      for (const f of node.outgoing) {
        const target = index.flows.get(f)?.flow.targetRef;
        if (target) add(node.id, target);
      }
      if ("boundaries" in node) { for (const b of node.boundaries) add(node.id, b); }
      if (isSubProcess(node) && !node.triggeredByEvent) {
        for (const inner of node.content.nodes) {
          const entry = inner.incoming.length === 0 && inner.kind !== "boundaryEvent" &&
            !(isSubProcess(inner) && inner.triggeredByEvent);
          if (entry) add(node.id, inner.id);
        }
      }
      if (node.outgoing.length === 0) { for (const t of afterOwner) add(node.id, t); }
      const name = linkName(node);
      if (name !== undefined && node.kind === "intermediateThrowEvent") {
        for (const c of catches.get(name) ?? []) add(node.id, c);
      }
    }
  }
  return next;
}
