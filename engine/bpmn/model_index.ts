/**
 * Lookups over a read model that validation rules and the planner share:
 * every flow node and sequence flow by id with the container and process
 * that hold it, and which processes are executable.
 *
 * @module
 */
import type {
  Definitions,
  FlowContainer,
  FlowNode,
  Process,
  SequenceFlow,
  SubProcessNode,
} from "./model.ts";
import { isSubProcess } from "./model.ts";

/** A process or sub-process body, with what owns it. */
export interface ContainerEntry {
  /** The process id, or the sub-process node id. */
  readonly id: string;
  readonly content: FlowContainer;
  readonly process: Process;
  /** The sub-process node owning the content (absent for the process itself). */
  readonly owner?: SubProcessNode;
}

/** Where a flow node lives. */
export interface NodeEntry {
  readonly node: FlowNode;
  readonly container: ContainerEntry;
}

/** Where a sequence flow lives. */
export interface FlowEntry {
  readonly flow: SequenceFlow;
  readonly container: ContainerEntry;
}

/** Indexes of one {@link Definitions}. */
export class ModelIndex {
  /** The indexed model. */
  readonly definitions: Definitions;
  /** Every container, processes first then sub-processes depth-first. */
  readonly containers: readonly ContainerEntry[];
  /** Flow nodes by id (the first one wins when an id is reused). */
  readonly nodes: ReadonlyMap<string, NodeEntry>;
  /** Sequence flows by id. */
  readonly flows: ReadonlyMap<string, FlowEntry>;

  constructor(definitions: Definitions) {
    this.definitions = definitions;
    const containers: ContainerEntry[] = [];
    const nodes = new Map<string, NodeEntry>();
    const flows = new Map<string, FlowEntry>();
    const visit = (entry: ContainerEntry) => {
      containers.push(entry);
      for (const flow of entry.content.flows) {
        if (flow.id && !flows.has(flow.id)) flows.set(flow.id, { flow, container: entry });
      }
      for (const node of entry.content.nodes) {
        if (node.id && !nodes.has(node.id)) nodes.set(node.id, { node, container: entry });
        if (isSubProcess(node)) {
          visit({ id: node.id, content: node.content, process: entry.process, owner: node });
        }
      }
    };
    for (const process of definitions.processes) {
      visit({ id: process.id, content: process.content, process });
    }
    this.containers = containers;
    this.nodes = nodes;
    this.flows = flows;
  }

  /** True when the process is meant to run (`isExecutable` absent or true). */
  isExecutable(process: Process): boolean {
    return process.isExecutable !== false;
  }

  /** Every node of a process, sub-process content included. */
  *nodesOf(process: Process): Iterable<NodeEntry> {
    for (const entry of this.nodes.values()) {
      if (entry.container.process === process) yield entry;
    }
  }

  /** Resolves a reference that may be written as a QName (`tns:Message_1`). */
  resolve(ref: string): string | undefined {
    const ids = this.definitions.ids;
    if (ids.has(ref)) return ref;
    const colon = ref.indexOf(":");
    if (colon > 0 && ids.has(ref.slice(colon + 1))) return ref.slice(colon + 1);
    return undefined;
  }
}
