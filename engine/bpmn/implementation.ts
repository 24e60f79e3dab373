/**
 * What a task does, classified from its BPMN attributes and q: settings:
 * call a function the embedding application registered, call a channel and
 * wait for the correlated answer, render a template, evaluate a decision,
 * run FEEL, emit a message, wait for a relay, or nothing at all.
 *
 * @module
 */
import type { FlowNode, TaskNode } from "./model.ts";
import { isEvent, isTask } from "./model.ts";

/** A task's behaviour. */
export type Implementation =
  | { readonly kind: "registered"; readonly name: string }
  | { readonly kind: "channel-call"; readonly channel: string }
  | { readonly kind: "template"; readonly template: string }
  | { readonly kind: "decision"; readonly source: string; readonly decision?: string }
  | { readonly kind: "script" }
  | { readonly kind: "send" }
  | { readonly kind: "wait" }
  | { readonly kind: "data" }
  | { readonly kind: "none" }
  | { readonly kind: "unsupported"; readonly value: string; readonly hint: string };

const TEMPLATE = /\.(?:hbs|handlebars|xsl|xslt)$|^urn:sutra:template:/i;
const DECISION = /^(?<source>[^#]+\.(?:dmn|srl))(?:#(?<decision>.+))?$/i;

/** Classifies a task; other nodes have no implementation. */
export function implementationOf(node: FlowNode): Implementation | undefined {
  if (!isTask(node)) return undefined;
  switch (node.kind) {
    case "serviceTask":
      return serviceImplementation(node);
    case "businessRuleTask": {
      const m = DECISION.exec(node.implementation ?? "");
      if (!m) {
        return {
          kind: "unsupported",
          value: node.implementation ?? "",
          hint:
            'name a decision as implementation="file.dmn#decisionId" or a ruleset as "file.srl"',
        };
      }
      const decision = m.groups!.decision;
      return decision === undefined
        ? { kind: "decision", source: m.groups!.source }
        : { kind: "decision", source: m.groups!.source, decision };
    }
    case "scriptTask":
      return { kind: "script" };
    case "sendTask":
      return { kind: "send" };
    case "receiveTask":
    case "userTask":
      return { kind: "wait" };
    default:
      return { kind: "none" };
  }
}

function serviceImplementation(node: TaskNode): Implementation {
  const value = node.implementation ?? "";
  if (value.startsWith("registered:") && value.length > 11) {
    return { kind: "registered", name: value.slice(11) };
  }
  if (value.startsWith("channel:") && value.length > 8) {
    return { kind: "channel-call", channel: value.slice(8) };
  }
  if (TEMPLATE.test(value)) return { kind: "template", template: value };
  // BPMN's "unspecified": a data task that reads and writes through its
  // data associations only.
  if (value === "" || value === "##unspecified") return { kind: "data" };
  return {
    kind: "unsupported",
    value,
    hint: "use registered:<name>, channel:<channel>, a template (.hbs, .xsl) or no implementation",
  };
}

/**
 * True for a channel-call service task: a `q:source` on it names the
 * channel its correlated response arrives on.
 */
export function correlatesResponses(node: FlowNode): boolean {
  return node.kind === "serviceTask" && implementationOf(node)?.kind === "channel-call";
}

/** True for nodes that take an inbound message (and so need exactly one q:source). */
export function consumesMessages(node: FlowNode): boolean {
  if (node.kind === "receiveTask" || node.kind === "userTask") return true;
  if (!isEvent(node)) return false;
  const trigger = node.definitions.length === 1 ? node.definitions[0].type : undefined;
  if (node.kind === "startEvent") {
    // A none start with a q:source is a message start in Sutra's vocabulary.
    return trigger === "message" || (node.definitions.length === 0 && node.q.sources.length > 0);
  }
  return (node.kind === "intermediateCatchEvent" || node.kind === "boundaryEvent") &&
    trigger === "message";
}

/** True for nodes that emit a message (send tasks, message throw and end events). */
export function throwsMessages(node: FlowNode): boolean {
  if (node.kind === "sendTask") return true;
  return isEvent(node) && (node.kind === "intermediateThrowEvent" || node.kind === "endEvent") &&
    node.definitions.length === 1 && node.definitions[0].type === "message";
}

/**
 * True for nodes where an instance may park (persist and leave memory):
 * message, timer, signal and conditional catches, receive and user tasks,
 * event-based gateways, call activities, channel calls, tasks with a retry
 * policy (a failed attempt parks until its backoff instant) and
 * respond-and-continue replies. Values that are never persisted do not
 * survive any of these.
 */
export function parksInstance(node: FlowNode): boolean {
  if (node.q.replies.some((r) => r.continue)) return true;
  switch (node.kind) {
    case "receiveTask":
    case "userTask":
    case "eventBasedGateway":
    case "callActivity":
      return true;
    case "serviceTask":
      return node.q.retries.length > 0 || implementationOf(node)?.kind === "channel-call";
    case "intermediateCatchEvent":
      return isEvent(node) && node.definitions.some((d) => d.type !== "link");
    default:
      return false;
  }
}
