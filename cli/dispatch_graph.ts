/**
 * `sutra dispatch-graph FILE --format dot|mermaid`: a Graphviz or Mermaid
 * diagram of a BPMN file's routing. Nodes are flow nodes, solid edges are
 * sequence flows (labelled with their name or condition), dashed edges
 * show channels feeding sources, sends leaving for channels, and call
 * activities (including every `q:dispatch` case) calling their targets.
 * A sub-process is a node whose content is drawn as a cluster beside it.
 *
 * @module
 */
import {
  type Definitions,
  type FlowContainer,
  type FlowNode,
  isEvent,
  isGateway,
  isSubProcess,
} from "../engine/bpmn/mod.ts";
import { type CliIo, type Command, UsageError } from "./command.ts";
import { fileArgument, parseCommandArgs, readModelArgument, stringFlag } from "./describe.ts";

/** Node shapes the two renderers map to their own syntax. */
type Shape = "event" | "end" | "gateway" | "task" | "subprocess" | "channel" | "call";

interface GraphNode {
  readonly key: string;
  readonly label: string;
  readonly shape: Shape;
}

interface GraphEdge {
  readonly from: string;
  readonly to: string;
  readonly label?: string;
  readonly dashed: boolean;
}

interface Cluster {
  readonly key: string;
  readonly label: string;
  readonly nodes: GraphNode[];
  readonly clusters: Cluster[];
}

/** A renderer-neutral graph of a document. */
export interface DispatchGraph {
  readonly clusters: Cluster[];
  /** Nodes outside every process (channels, called elements). */
  readonly outside: GraphNode[];
  readonly edges: GraphEdge[];
}

function shapeOf(node: FlowNode): Shape {
  if (isEvent(node)) return node.kind === "endEvent" ? "end" : "event";
  if (isGateway(node)) return "gateway";
  return isSubProcess(node) ? "subprocess" : "task";
}

const GATEWAY_MARK: Readonly<Record<string, string>> = {
  exclusiveGateway: "X",
  parallelGateway: "+",
  inclusiveGateway: "O",
  eventBasedGateway: "event",
  complexGateway: "*",
};

function nodeLabel(node: FlowNode): string {
  const name = node.name?.replace(/\s+/g, " ").trim();
  const base = name || node.id;
  if (isGateway(node)) return `${GATEWAY_MARK[node.kind]} ${name ?? ""}`.trim();
  if (isEvent(node) && node.definitions[0]) return `${base} (${node.definitions[0].type})`;
  return base;
}

/** Builds the graph of a model. */
export function buildDispatchGraph(definitions: Definitions): DispatchGraph {
  const keys = new Map<string, string>();
  const key = (id: string) => {
    let k = keys.get(id);
    if (!k) keys.set(id, k = `n${keys.size}`);
    return k;
  };
  const outside = new Map<string, GraphNode>();
  const external = (id: string, label: string, shape: Shape) => {
    const k = key(id);
    if (!outside.has(k)) outside.set(k, { key: k, label, shape });
    return k;
  };
  const edges: GraphEdge[] = [];
  const container = (id: string, label: string, content: FlowContainer): Cluster => {
    const cluster: Cluster = { key: key(`cluster:${id}`), label, nodes: [], clusters: [] };
    for (const node of content.nodes) {
      const k = key(`node:${node.id}`);
      cluster.nodes.push({ key: k, label: nodeLabel(node), shape: shapeOf(node) });
      if ("boundaries" in node) {
        for (const b of node.boundaries) {
          edges.push({ from: k, to: key(`node:${b}`), label: "boundary", dashed: true });
        }
      }
      if (isSubProcess(node)) {
        const inner = container(node.id, node.name ?? node.id, node.content);
        cluster.clusters.push(inner);
        for (const start of node.content.nodes.filter((n) => n.kind === "startEvent")) {
          edges.push({ from: k, to: key(`node:${start.id}`), dashed: true });
        }
      }
      for (const source of node.q.sources) {
        const channel = external(
          `channel:${source.channel}`,
          `channel ${source.channel}`,
          "channel",
        );
        edges.push({
          from: channel,
          to: k,
          label: source.messageTypeValue ?? source.messageTypePattern,
          dashed: true,
        });
      }
      for (const send of node.q.sends) {
        const target = send.channel
          ? external(`channel:${send.channel}`, `channel ${send.channel}`, "channel")
          : external(`destination:${send.destination}`, `${send.destination}`, "channel");
        edges.push({ from: k, to: target, label: "send", dashed: true });
      }
      if (node.kind === "callActivity") {
        if (node.calledElement) {
          edges.push({
            from: k,
            to: external(`call:${node.calledElement}`, node.calledElement, "call"),
            dashed: true,
          });
        }
        for (const dispatch of node.q.dispatches) {
          for (const c of dispatch.cases) {
            const to = external(`call:${c.calledElement}`, c.calledElement, "call");
            edges.push({ from: k, to, label: c.when.text, dashed: true });
          }
          if (dispatch.default) {
            const to = external(`call:${dispatch.default}`, dispatch.default, "call");
            edges.push({ from: k, to, label: "otherwise", dashed: true });
          }
        }
      }
    }
    const defaults = new Set(
      content.nodes.map((n) => ("defaultFlow" in n ? n.defaultFlow : undefined)).filter((d) => d),
    );
    for (const flow of content.flows) {
      const label = flow.condition?.text || flow.name?.trim() ||
        (defaults.has(flow.id) ? "default" : undefined);
      edges.push({
        from: key(`node:${flow.sourceRef}`),
        to: key(`node:${flow.targetRef}`),
        dashed: false,
        ...(label ? { label } : {}),
      });
    }
    return cluster;
  };
  const clusters = definitions.processes.map((p) =>
    container(p.id, p.name ? `${p.id}: ${p.name}` : p.id, p.content)
  );
  // Flows may name nodes the file does not have; draw only known ends.
  const known = new Set([...outside.keys()]);
  const collect = (c: Cluster) => {
    for (const n of c.nodes) known.add(n.key);
    c.clusters.forEach(collect);
  };
  clusters.forEach(collect);
  return {
    clusters,
    outside: [...outside.values()],
    edges: edges.filter((e) => known.has(e.from) && known.has(e.to)),
  };
}

function mermaidText(text: string): string {
  const escaped = text.replace(/"/g, "#quot;").replace(/</g, "#lt;").replace(/>/g, "#gt;");
  return `"${escaped.replace(/\r?\n/g, " ")}"`;
}

const MERMAID_SHAPE: Readonly<Record<Shape, [string, string]>> = {
  event: ["((", "))"],
  end: ["(((", ")))"],
  gateway: ["{", "}"],
  task: ["(", ")"],
  subprocess: ["[[", "]]"],
  channel: ["[/", "/]"],
  call: ["[", "]"],
};

/** Renders the graph as a Mermaid flowchart. */
export function renderMermaid(graph: DispatchGraph): string {
  const lines = ["flowchart LR"];
  const node = (n: GraphNode, indent: string) => {
    const [open, close] = MERMAID_SHAPE[n.shape];
    lines.push(`${indent}${n.key}${open}${mermaidText(n.label)}${close}`);
  };
  const cluster = (c: Cluster, indent: string) => {
    lines.push(`${indent}subgraph ${c.key}[${mermaidText(c.label)}]`);
    for (const n of c.nodes) node(n, indent + "  ");
    for (const inner of c.clusters) cluster(inner, indent + "  ");
    lines.push(`${indent}end`);
  };
  graph.clusters.forEach((c) => cluster(c, "  "));
  graph.outside.forEach((n) => node(n, "  "));
  for (const e of graph.edges) {
    const arrow = e.dashed ? "-.->" : "-->";
    lines.push(`  ${e.from} ${arrow}${e.label ? `|${mermaidText(e.label)}|` : ""} ${e.to}`);
  }
  return lines.join("\n") + "\n";
}

function dotText(text: string): string {
  return `"${text.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\r?\n/g, " ")}"`;
}

const DOT_SHAPE: Readonly<Record<Shape, string>> = {
  event: "shape=circle",
  end: "shape=doublecircle",
  gateway: "shape=diamond",
  task: 'shape=box, style="rounded"',
  subprocess: 'shape=box, style="rounded,bold"',
  channel: "shape=parallelogram",
  call: "shape=box, peripheries=2",
};

/** Renders the graph as Graphviz dot. */
export function renderDot(graph: DispatchGraph): string {
  const lines = [
    "digraph dispatch {",
    "  rankdir=LR;",
    "  node [fontsize=10];",
    "  edge [fontsize=9];",
  ];
  const node = (n: GraphNode, indent: string) =>
    lines.push(`${indent}${n.key} [label=${dotText(n.label)}, ${DOT_SHAPE[n.shape]}];`);
  const cluster = (c: Cluster, indent: string) => {
    lines.push(`${indent}subgraph cluster_${c.key} {`, `${indent}  label=${dotText(c.label)};`);
    for (const n of c.nodes) node(n, indent + "  ");
    for (const inner of c.clusters) cluster(inner, indent + "  ");
    lines.push(`${indent}}`);
  };
  graph.clusters.forEach((c) => cluster(c, "  "));
  graph.outside.forEach((n) => node(n, "  "));
  for (const e of graph.edges) {
    const attrs = [e.label ? `label=${dotText(e.label)}` : "", e.dashed ? "style=dashed" : ""]
      .filter((a) => a).join(", ");
    lines.push(`  ${e.from} -> ${e.to}${attrs ? ` [${attrs}]` : ""};`);
  }
  lines.push("}");
  return lines.join("\n") + "\n";
}

/** The `dispatch-graph` command. */
export const dispatchGraphCommand: Command = {
  name: "dispatch-graph",
  summary: "Draw a BPMN file's routing as Graphviz dot or Mermaid",
  documentOutput: true,
  usage: `Usage: sutra dispatch-graph FILE --format dot|mermaid

Emits a diagram of the file: flow nodes joined by their sequence flows
(labelled with names or conditions), channels feeding q:source nodes,
q:send emissions, and call activities with every q:dispatch case.
Reads the model only, so it also works on a file that does not validate yet.`,
  async run(args: readonly string[], io: CliIo): Promise<number> {
    const parsed = parseCommandArgs(args, { format: { type: "string" } });
    const format = stringFlag(parsed, "format");
    if (format !== "dot" && format !== "mermaid") {
      throw new UsageError(
        format === undefined
          ? "--format dot|mermaid is required"
          : `--format must be dot or mermaid, not '${format}'`,
      );
    }
    const definitions = await readModelArgument(fileArgument(parsed.positionals), io);
    const graph = buildDispatchGraph(definitions);
    io.stdout(format === "dot" ? renderDot(graph) : renderMermaid(graph));
    return 0;
  },
};
