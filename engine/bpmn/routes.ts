/**
 * Channel routing as the document declares it: which node each channel
 * starts or resumes, read straight from the q:source declarations of the
 * model. Inspection tools use this on files that may not validate yet; the
 * runtime routes on the plan's subscriptions, which carry the same facts.
 *
 * @module
 */
import { consumesMessages } from "./implementation.ts";
import type { Definitions, FlowNode, Process } from "./model.ts";
import { ModelIndex } from "./model_index.ts";
import type { QSource } from "./q_model.ts";

/** One declared route from a channel to a node. */
export interface ChannelRoute {
  readonly channel: string;
  readonly process: Process;
  readonly node: FlowNode;
  readonly source: QSource;
  /** `start` creates an instance; `relay` resumes one parked at the node. */
  readonly role: "start" | "relay";
  /** False when the process has isExecutable="false". */
  readonly executable: boolean;
}

/** Every route the document declares, in document order. */
export function channelRoutes(definitions: Definitions): ChannelRoute[] {
  const index = new ModelIndex(definitions);
  const routes: ChannelRoute[] = [];
  for (const { node, container } of index.nodes.values()) {
    if (!consumesMessages(node)) continue;
    for (const source of node.q.sources) {
      routes.push({
        channel: source.channel,
        process: container.process,
        node,
        source,
        role: node.kind === "startEvent" && !container.owner ? "start" : "relay",
        executable: index.isExecutable(container.process),
      });
    }
  }
  return routes;
}

/**
 * True when a route accepts a message type: an exact value must match, a
 * pattern must match the whole type, and a source with neither accepts all.
 * An unparseable pattern accepts nothing.
 */
export function acceptsMessageType(source: QSource, messageType: string): boolean {
  if (source.messageTypeValue !== undefined) return source.messageTypeValue === messageType;
  if (source.messageTypePattern !== undefined) {
    try {
      return new RegExp(`^(?:${source.messageTypePattern})$`, "u").test(messageType);
    } catch {
      return false;
    }
  }
  return true;
}
