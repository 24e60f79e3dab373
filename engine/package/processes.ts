/**
 * What a package's processes offer the outside world, read from the loaded
 * BPMN: where instances start, where a running instance waits (for a
 * message, a timer, a signal, a worker or a person) and the coverage paths
 * it declares. The catalogue (`docgen.ts`) prints it; the compatibility
 * check (`compat.ts`) compares it between two revisions.
 *
 * @module
 */
import { implementationOf, isEvent, ModelIndex } from "../bpmn/mod.ts";
import type { FlowNode, Implementation } from "../bpmn/mod.ts";
import type { LoadedPackage } from "./load.ts";

/** A start event or a wait node of a process. */
export interface ProcessPoint {
  readonly node: string;
  readonly name?: string;
  /** The BPMN element (`startEvent`, `receiveTask`, `boundaryEvent`, …). */
  readonly kind: string;
  /** `message`, `timer`, `signal`, … for events; the task's way of waiting otherwise. */
  readonly trigger: string;
  /** The channel a `q:source` binds, when one does. */
  readonly channel?: string;
  /** The message type the source pins (`q:source messageType`). */
  readonly messageType?: string;
  readonly messageTypePattern?: string;
  /** The sub-process the node sits in, when nested. */
  readonly in?: string;
}

/** One process of a package. */
export interface ProcessSummary {
  /** The BPMN file (package-relative). */
  readonly bpmn: string;
  readonly id: string;
  readonly name?: string;
  readonly executable: boolean;
  readonly starts: readonly ProcessPoint[];
  /** Nodes a running instance can be parked on. */
  readonly waits: readonly ProcessPoint[];
  /** Tasks with what implements them (`decision rules/x.dmn#d`, `registered:name`, …). */
  readonly tasks: readonly {
    readonly node: string;
    readonly kind: string;
    readonly does: string;
  }[];
  /** `q:coverage` paths: name → flow ids. */
  readonly coverage: readonly { readonly path: string; readonly flows: readonly string[] }[];
}

const WAITING_KINDS = new Set(["receiveTask", "userTask", "eventBasedGateway"]);
/** Event triggers something from outside the instance (or the clock) fires. */
const OUTSIDE_TRIGGERS = new Set(["message", "timer", "signal", "conditional", "multiple"]);

/**
 * Whether an instance can be parked on `node`: a receiving or user task, an
 * event-based gateway, a catch event, boundary event or event sub-process
 * start waiting for a message, timer, signal or condition, or a task waiting
 * for a relay or bound to a channel.
 */
function waits(node: FlowNode, nested: boolean): boolean {
  if (WAITING_KINDS.has(node.kind)) return true;
  if (node.kind === "intermediateCatchEvent" || node.kind === "boundaryEvent") {
    return OUTSIDE_TRIGGERS.has(trigger(node));
  }
  if (node.kind === "startEvent") return nested && OUTSIDE_TRIGGERS.has(trigger(node));
  return implementationOf(node)?.kind === "wait" || node.q.sources.length > 0;
}

function trigger(node: FlowNode): string {
  if (isEvent(node)) {
    if (node.definitions.length > 1) return "multiple";
    return node.definitions[0]?.type ?? (node.q.sources.length > 0 ? "message" : "none");
  }
  if (node.q.sources.length > 0) return "message";
  return implementationOf(node)?.kind === "wait" ? "relay" : node.kind;
}

/** An implementation that names what it calls: a registration, a channel, a template or a decision. */
export type NamedImplementation = Extract<
  Implementation,
  { readonly kind: "registered" | "channel-call" | "template" | "decision" }
>;

const NAMING_KINDS: ReadonlySet<Implementation["kind"]> = new Set([
  "registered",
  "channel-call",
  "template",
  "decision",
]);

/** True for an implementation that names what it calls. */
export function isNamedImplementation(
  implementation: Implementation,
): implementation is NamedImplementation {
  return NAMING_KINDS.has(implementation.kind);
}

/**
 * What a naming implementation calls, in a few words (`registered:NAME`,
 * `channel call C`, `template T`, `decision SOURCE#ID`): the wording every
 * view of a package shares.
 */
export function namedImplementation(implementation: NamedImplementation): string {
  switch (implementation.kind) {
    case "registered":
      return `registered:${implementation.name}`;
    case "channel-call":
      return `channel call ${implementation.channel}`;
    case "template":
      return `template ${implementation.template}`;
    case "decision":
      return `decision ${implementation.source}${
        implementation.decision ? `#${implementation.decision}` : ""
      }`;
  }
}

/** What a task does, in a few words. */
function does(node: FlowNode): string | undefined {
  const implementation = implementationOf(node);
  if (implementation === undefined) return undefined;
  if (isNamedImplementation(implementation)) return namedImplementation(implementation);
  switch (implementation.kind) {
    case "unsupported":
      return `unsupported ${implementation.value}`;
    default:
      return implementation.kind;
  }
}

/** Every process of every BPMN file of a package, in file and document order. */
export function processSummaries(pkg: LoadedPackage): ProcessSummary[] {
  const out: ProcessSummary[] = [];
  for (const { artifact, result } of pkg.bpmn) {
    const definitions = result.definitions;
    if (!definitions) continue;
    const index = new ModelIndex(definitions);
    for (const process of definitions.processes) {
      const starts: ProcessPoint[] = [];
      const parked: ProcessPoint[] = [];
      const tasks: { node: string; kind: string; does: string }[] = [];
      for (const { node, container } of index.nodesOf(process)) {
        const source = node.q.sources[0];
        const point: ProcessPoint = {
          node: node.id,
          ...(node.name === undefined ? {} : { name: node.name }),
          kind: node.kind,
          trigger: trigger(node),
          ...(source ? { channel: source.channel } : {}),
          ...(source?.messageTypeValue === undefined
            ? {}
            : { messageType: source.messageTypeValue }),
          ...(source?.messageTypePattern === undefined
            ? {}
            : { messageTypePattern: source.messageTypePattern }),
          ...(container.owner ? { in: container.owner.id } : {}),
        };
        if (node.kind === "startEvent" && !container.owner) starts.push(point);
        // An event sub-process's start fires inside a running instance: it waits too.
        else if (waits(node, container.owner !== undefined)) parked.push(point);
        const what = does(node);
        if (what !== undefined) tasks.push({ node: node.id, kind: node.kind, does: what });
      }
      out.push({
        bpmn: artifact.path,
        id: process.id,
        ...(process.name === undefined ? {} : { name: process.name }),
        executable: index.isExecutable(process),
        starts,
        waits: parked,
        tasks,
        coverage: process.q.coverage.map((c) => ({ path: c.path, flows: [...c.flows] })),
      });
    }
  }
  return out;
}
