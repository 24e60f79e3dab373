/**
 * A diagram for a process drawn without one. The console's viewer can only
 * show BPMN that carries diagram interchange (shapes and edges with
 * coordinates), and a model written by hand or by a generator often has
 * none. Such a document gets a plain left-to-right layout of the process's
 * top level: each node in the column of its longest path from a start,
 * rows in document order, boundary events on their activity's lower edge,
 * sub-processes drawn collapsed, straight edges with one bend. It is only
 * for looking at; the served document is otherwise the deployed one.
 *
 * @module
 */
import type { PlanNode, ProcessPlan } from "../../bpmn/mod.ts";

const NS = 'xmlns:bpmndi="http://www.omg.org/spec/BPMN/20100524/DI" ' +
  'xmlns:dc="http://www.omg.org/spec/DD/20100524/DC" ' +
  'xmlns:di="http://www.omg.org/spec/DD/20100524/DI"';

interface Box {
  readonly x: number;
  readonly y: number;
  readonly w: number;
  readonly h: number;
}

const COLUMN = 160;
const ROW = 130;

function size(node: PlanNode): { w: number; h: number } {
  if (node.kind.endsWith("Event")) return { w: 36, h: 36 };
  if (node.kind.endsWith("Gateway")) return { w: 50, h: 50 };
  return { w: 100, h: 80 };
}

const escapeAttr = (text: string) =>
  text.replaceAll("&", "&amp;").replaceAll('"', "&quot;").replaceAll("<", "&lt;");

/** True when the document already carries a diagram the viewer can show. */
export function hasDiagram(xml: string): boolean {
  return /<([\w-]+:)?BPMNDiagram[\s>]/.test(xml);
}

/** The diagram interchange (one `BPMNDiagram` element) laying out `process`'s top level. */
export function layoutDiagram(process: ProcessPlan): string {
  const root = process.scopes[0];
  const inRoot = new Set(root.nodes);
  const placed = root.nodes.map((i) => process.nodes[i]).filter((n) =>
    n.attachedTo === undefined && !n.isForCompensation
  );
  // Column: longest path from an entry over the flows that do not loop back.
  const owner = (i: number) => process.nodes[i].attachedTo ?? i;
  const flows = process.flows.filter((f) => inRoot.has(f.source) && inRoot.has(f.target));
  const back = new Set<number>();
  const state = new Map<number, "open" | "done">();
  const visit = (i: number): void => {
    state.set(i, "open");
    for (const f of flows.filter((f) => owner(f.source) === i)) {
      const next = owner(f.target);
      if (state.get(next) === "open") back.add(f.index);
      else if (!state.has(next)) visit(next);
    }
    state.set(i, "done");
  };
  const entries = placed.filter((n) => !flows.some((f) => f.target === n.index));
  for (const n of [...entries, ...placed]) if (!state.has(n.index)) visit(n.index);
  const column = new Map<number, number>(placed.map((n) => [n.index, 0]));
  for (let pass = 0, changed = true; changed && pass <= placed.length; pass++) {
    changed = false;
    for (const f of flows) {
      if (back.has(f.index)) continue;
      const from = column.get(owner(f.source));
      const to = column.get(owner(f.target));
      if (from === undefined || to === undefined || from + 1 <= to) continue;
      column.set(owner(f.target), from + 1);
      changed = true;
    }
  }
  const rows = new Map<number, number>();
  const boxes = new Map<number, Box>();
  for (const node of placed) {
    const c = column.get(node.index)!;
    const r = rows.get(c) ?? 0;
    rows.set(c, r + 1);
    const { w, h } = size(node);
    boxes.set(node.index, {
      x: 60 + c * COLUMN + (100 - w) / 2,
      y: 60 + r * ROW + (80 - h) / 2,
      w,
      h,
    });
  }
  const bottom = Math.max(60, ...[...boxes.values()].map((b) => b.y + b.h)) + 80;
  let extra = 0;
  for (const i of root.nodes) {
    const node = process.nodes[i];
    if (node.attachedTo !== undefined) {
      const host = boxes.get(node.attachedTo);
      if (!host) continue;
      const k = process.nodes[node.attachedTo].boundaries.indexOf(i);
      boxes.set(i, { x: host.x + host.w - 28 - k * 40, y: host.y + host.h - 18, w: 36, h: 36 });
    } else if (node.isForCompensation) {
      boxes.set(i, { x: 60 + extra++ * COLUMN, y: bottom, w: 100, h: 80 });
    }
  }
  const shapes = [...boxes].map(([i, b]) => {
    const node = process.nodes[i];
    const expanded = node.childScope !== undefined ? ' isExpanded="false"' : "";
    return `<bpmndi:BPMNShape id="${escapeAttr(node.id)}_di" bpmnElement="${
      escapeAttr(node.id)
    }"${expanded}><dc:Bounds x="${b.x}" y="${b.y}" width="${b.w}" height="${b.h}"/></bpmndi:BPMNShape>`;
  });
  const edges = process.flows.flatMap((flow) => {
    const a = boxes.get(flow.source);
    const b = boxes.get(flow.target);
    if (!a || !b) return [];
    const start = { x: a.x + a.w, y: a.y + a.h / 2 };
    const end = { x: b.x, y: b.y + b.h / 2 };
    const mid = (start.x + end.x) / 2;
    const points = start.y === end.y
      ? [start, end]
      : [start, { x: mid, y: start.y }, { x: mid, y: end.y }, end];
    return [
      `<bpmndi:BPMNEdge id="${escapeAttr(flow.id)}_di" bpmnElement="${escapeAttr(flow.id)}">${
        points.map((p) => `<di:waypoint x="${p.x}" y="${p.y}"/>`).join("")
      }</bpmndi:BPMNEdge>`,
    ];
  });
  return `<bpmndi:BPMNDiagram ${NS} id="${escapeAttr(process.id)}_diagram">` +
    `<bpmndi:BPMNPlane id="${escapeAttr(process.id)}_plane" bpmnElement="${
      escapeAttr(process.id)
    }">` +
    shapes.join("") + edges.join("") + "</bpmndi:BPMNPlane></bpmndi:BPMNDiagram>";
}

/** `xml` as the viewer can show it: unchanged when it has a diagram, else with one laid out for `process`. */
export function withDiagram(xml: string, process: ProcessPlan): string {
  if (hasDiagram(xml)) return xml;
  const end = xml.search(/<\/([\w-]+:)?definitions>\s*$/);
  if (end < 0) return xml;
  return xml.slice(0, end) + layoutDiagram(process) + xml.slice(end);
}
