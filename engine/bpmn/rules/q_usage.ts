/**
 * Where each q: element may appear and how often, and the intake/outbound
 * rules the schema cannot express: exactly one `q:source` per
 * message-consuming node (executable processes), one message-type selector
 * per source, a compilable `messageTypePattern`, exactly one target per
 * `q:send`, and a way out for every message a process throws.
 *
 * @module
 */
import {
  consumesMessages,
  correlatesResponses,
  implementationOf,
  throwsMessages,
} from "../implementation.ts";
import type { FlowNode, ModelElement } from "../model.ts";
import { isEvent } from "../model.ts";
import type { QSettings } from "../q_model.ts";
import type { RuleContext } from "./context.ts";
import { errorMessage } from "../../core/errors.ts";

type QKey = keyof QSettings;

const Q_ELEMENT: Readonly<Record<QKey, string>> = {
  sources: "q:source",
  aliases: "q:alias",
  replies: "q:reply",
  sends: "q:send",
  retries: "q:retry",
  timeouts: "q:timeout",
  stores: "q:store",
  dispatches: "q:dispatch",
  onValidations: "q:onValidation",
  processes: "q:process",
  variables: "q:variables",
  audits: "q:audit",
  coverage: "q:coverage",
  values: "q:value",
};

// At most one of these per element.
const SINGLETONS: readonly QKey[] = [
  "replies",
  "sends",
  "retries",
  "timeouts",
  "stores",
  "dispatches",
  "onValidations",
  "processes",
  "audits",
  "values",
];

const REPLY_HOSTS: ReadonlySet<string> = new Set([
  "serviceTask",
  "sendTask",
  "scriptTask",
  "task",
  "intermediateThrowEvent",
  "endEvent",
]);

/** Which q: elements an element may carry, and why not when it may not. */
function allowed(ctx: RuleContext, element: ModelElement, node: FlowNode | undefined): Set<QKey> {
  const keys = new Set<QKey>();
  if (element.element === "process") {
    keys.add("processes").add("variables").add("audits").add("coverage");
    return keys;
  }
  if (element.element === "dataStoreReference") return keys.add("stores");
  if (element.element === "dataObject") return keys.add("values");
  if (!node) return keys;
  if (consumesMessages(node) || isRoutableStart(ctx, node) || correlatesResponses(node)) {
    keys.add("sources").add("aliases").add("onValidations");
  }
  if (REPLY_HOSTS.has(node.kind)) keys.add("replies");
  if (throwsMessages(node) || node.kind === "intermediateThrowEvent") keys.add("sends");
  if (node.kind === "serviceTask") keys.add("retries");
  if (implementationOf(node)?.kind === "channel-call") keys.add("timeouts");
  if (node.kind === "callActivity") keys.add("dispatches");
  return keys;
}

/**
 * A start event a message could trigger: a none or message start of a
 * process or event sub-process. Timer starts count too, so that a source
 * on one is reported as the ambiguity it is (events.ts), not as misplaced;
 * so do starts with several such triggers, which are unsupported anyway.
 */
function isRoutableStart(ctx: RuleContext, node: FlowNode): boolean {
  if (!isEvent(node) || node.kind !== "startEvent") return false;
  const owner = ctx.index.nodes.get(node.id)?.container.owner;
  if (owner && !owner.triggeredByEvent) return false;
  return node.definitions.every((d) => d.type === "message" || d.type === "timer");
}

function everyElement(ctx: RuleContext): Iterable<[ModelElement, FlowNode | undefined]> {
  const out: [ModelElement, FlowNode | undefined][] = [];
  const defs = ctx.index.definitions;
  out.push([defs, undefined]);
  for (const p of defs.processes) out.push([p, undefined]);
  for (const c of defs.collaborations) {
    out.push([c, undefined]);
    for (const p of c.participants) out.push([p, undefined]);
    for (const f of c.messageFlows) out.push([f, undefined]);
  }
  for (
    const list of [
      defs.messages,
      defs.signals,
      defs.errors,
      defs.escalations,
      defs.dataStores,
      defs.itemDefinitions,
    ]
  ) {
    for (const e of list) out.push([e, undefined]);
  }
  for (const { content } of ctx.index.containers) {
    for (const n of content.nodes) out.push([n, n]);
    for (
      const list of [
        content.flows,
        content.dataObjects,
        content.dataObjectReferences,
        content.dataStoreReferences,
        content.associations,
      ]
    ) {
      for (const e of list) out.push([e, undefined]);
    }
    const lanes = [...content.lanes];
    while (lanes.length > 0) {
      const lane = lanes.pop()!;
      lanes.push(...lane.childLanes);
      out.push([lane, undefined]);
    }
  }
  return out;
}

/** Checks placement, multiplicity and the source/send rules. */
export function checkQUsage(ctx: RuleContext): void {
  for (const [element, node] of everyElement(ctx)) {
    const q = element.q;
    const ok = allowed(ctx, element, node);
    for (const key of Object.keys(Q_ELEMENT) as QKey[]) {
      const written = q[key];
      if (written.length === 0) continue;
      // q:retry has its own code (see retry.ts); everything else is generic.
      if (!ok.has(key) && key !== "retries") {
        for (const w of written) {
          ctx.report(
            "SUTRA.CONFIG.BPMN.Q_NOT_APPLICABLE",
            `${Q_ELEMENT[key]} has no meaning on ${element.element} '${element.id}'`,
            w,
            { attributes: { element: Q_ELEMENT[key], host: element.element } },
          );
        }
        continue;
      }
      if (SINGLETONS.includes(key)) {
        for (const extra of written.slice(1)) {
          ctx.report(
            "SUTRA.CONFIG.BPMN.Q_DUPLICATE",
            `${Q_ELEMENT[key]} appears more than once on ${element.element} '${element.id}'`,
            extra,
            { attributes: { element: Q_ELEMENT[key], host: element.element } },
          );
        }
      }
    }
    checkNames(ctx, element);
    if (node) checkNodeIntake(ctx, node);
  }
}

function checkNames(ctx: RuleContext, element: ModelElement): void {
  const seen = new Map<string, number>();
  const aliases = [...element.q.aliases, ...element.q.sources.flatMap((s) => s.aliases)]
    .sort((a, b) => a.line - b.line || a.column - b.column);
  for (const alias of aliases) {
    if (alias.name === "") continue;
    const first = seen.get(alias.name);
    if (first !== undefined) {
      ctx.report(
        "SUTRA.CONFIG.BPMN.Q_DUPLICATE",
        `alias '${alias.name}' is declared twice on '${element.id}' (first on line ${first})`,
        alias,
        { attributes: { element: "q:alias", name: alias.name } },
      );
    } else {
      seen.set(alias.name, alias.line);
    }
  }
  const variables = new Map<string, number>();
  for (const v of element.q.variables) {
    const first = variables.get(v.name);
    if (first !== undefined) {
      ctx.report(
        "SUTRA.CONFIG.BPMN.Q_DUPLICATE",
        `variable '${v.name}' is declared twice (first on line ${first})`,
        v,
        { attributes: { element: "q:variable", name: v.name } },
      );
    } else if (v.name) {
      variables.set(v.name, v.line);
    }
    if (v.type && v.schema) {
      ctx.report(
        "SUTRA.CONFIG.BPMN.VARIABLE_TYPE_CONFLICT",
        `variable '${v.name}' names both a type and a schema; describe it by one`,
        v,
        { attributes: { name: v.name } },
      );
    }
  }
}

function checkNodeIntake(ctx: RuleContext, node: FlowNode): void {
  const process = ctx.index.nodes.get(node.id)?.container.process;
  const executable = process ? ctx.executable(process) : false;
  const sources = node.q.sources;
  if (executable && consumesMessages(node) && sources.length === 0) {
    ctx.report(
      "SUTRA.CONFIG.BPMN.SOURCE_MISSING",
      `${node.kind} '${node.id}' takes a message but declares no q:source naming its channel`,
      node,
      { attributes: { node: node.id } },
    );
  }
  for (const extra of sources.slice(1)) {
    ctx.report(
      "SUTRA.CONFIG.BPMN.SOURCE_DUPLICATE",
      `${node.kind} '${node.id}' declares more than one q:source; use one start event per channel`,
      extra,
      { attributes: { node: node.id, channel: extra.channel } },
    );
  }
  for (const source of sources) {
    if (source.messageTypeValue !== undefined && source.messageTypePattern !== undefined) {
      ctx.report(
        "SUTRA.CONFIG.BPMN.SOURCE_TYPE_CONFLICT",
        `q:source on '${node.id}' sets both messageTypeValue and messageTypePattern; choose one`,
        source,
        { attributes: { node: node.id, channel: source.channel } },
      );
    }
    if (source.messageTypePattern !== undefined) {
      try {
        new RegExp(source.messageTypePattern, "u");
      } catch (error) {
        ctx.report(
          "SUTRA.CONFIG.BPMN.SOURCE_PATTERN_INVALID",
          `messageTypePattern '${source.messageTypePattern}' on '${node.id}' is not a valid regular expression: ${
            errorMessage(error)
          }`,
          source,
          { attributes: { node: node.id, pattern: source.messageTypePattern } },
        );
      }
    }
  }
  for (const send of node.q.sends) {
    if ((send.channel === undefined) === (send.destination === undefined)) {
      ctx.report(
        "SUTRA.CONFIG.BPMN.SEND_TARGET_INVALID",
        `q:send on '${node.id}' must name exactly one of destination and channel`,
        send,
        { attributes: { node: node.id } },
      );
    }
  }
  if (
    executable && throwsMessages(node) && node.q.sends.length === 0 && node.q.replies.length === 0
  ) {
    ctx.report(
      "SUTRA.CONFIG.BPMN.SEND_MISSING",
      `${node.kind} '${node.id}' throws a message but has no q:send or q:reply saying where it goes`,
      node,
      { attributes: { node: node.id } },
    );
  }
}
