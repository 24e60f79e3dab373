/**
 * Compatibility between two revisions of a package: what the current one
 * breaks for instances started on the baseline and for the callers of its
 * channels. Each breaking change is one ERROR diagnostic with its code:
 *
 * - `SUTRA.COMPAT.PROCESS_REMOVED`: a process is gone;
 * - `SUTRA.COMPAT.WAIT_NODE_REMOVED`: a node an instance may be parked on
 *   is gone or no longer waits, so the instance cannot resume there;
 * - `SUTRA.COMPAT.CHANNEL_REMOVED` / `SUTRA.COMPAT.CHANNEL_CHANGED`: a
 *   channel is gone, or moved to another transport, bind or codec, or now
 *   asks for other credentials;
 * - `SUTRA.COMPAT.MESSAGE_TYPE_CHANGED`: a start or wait node takes another
 *   message type (or pins one where it took any), or a channel's codec no
 *   longer declares a type it declared;
 * - `SUTRA.COMPAT.SCHEMA_NARROWED`: a message type's shape accepts less: a
 *   field removed from a closed record, a field's type changed, an open
 *   record closed.
 *
 * Additions (processes, nodes, channels, message types, fields) are
 * compatible. Schemas are compared by the shape their codec gives each
 * message type, so a tighter facet or a field turned required inside the
 * same shape is not seen.
 *
 * @module
 */
import type { Shape } from "../bpmn/shape.ts";
import { type Diagnostic, diagnostic } from "../core/diagnostic.ts";
import type { ChannelDecl } from "./channels_yaml.ts";
import type { LoadedPackage } from "./load.ts";
import { type ProcessPoint, processSummaries, type ProcessSummary } from "./processes.ts";

/** Why a shape accepts less than another, or undefined when it accepts at least as much. */
export function narrowing(baseline: Shape, current: Shape, at = ""): string | undefined {
  if (current.kind === "any") return undefined;
  const where = at === "" ? "the document" : `'${at.slice(1)}'`;
  if (baseline.kind !== current.kind) {
    return `${where} was ${describe(baseline)} and is now ${describe(current)}`;
  }
  if (baseline.kind === "scalar" && current.kind === "scalar") {
    return baseline.type === current.type
      ? undefined
      : `${where} was ${baseline.type} and is now ${current.type}`;
  }
  if (baseline.kind === "list" && current.kind === "list") {
    return narrowing(baseline.item, current.item, at);
  }
  if (baseline.kind === "record" && current.kind === "record") {
    if (baseline.open && !current.open) return `${where} no longer accepts other fields`;
    for (const [name, field] of Object.entries(baseline.fields)) {
      const next = Object.hasOwn(current.fields, name) ? current.fields[name] : undefined;
      if (next === undefined) {
        if (current.open) continue;
        return `field '${`${at}/${name}`.slice(1)}' was removed`;
      }
      const found = narrowing(field, next, `${at}/${name}`);
      if (found) return found;
    }
  }
  return undefined;
}

function describe(shape: Shape): string {
  return shape.kind === "scalar" ? shape.type : shape.kind === "record" ? "a record" : shape.kind;
}

function breaking(
  code: string,
  message: string,
  uri: string,
  attributes: Record<string, string>,
): Diagnostic {
  return diagnostic(code, message, { source: { uri }, attributes });
}

function accepts(point: ProcessPoint): string {
  return point.messageType ??
    (point.messageTypePattern ? `types matching /${point.messageTypePattern}/` : "any type");
}

function authOf(channel: ChannelDecl): string {
  const auth = channel.auth;
  if (!auth || auth.scheme === "none") return "none";
  return auth.scheme === "apikey" ? `apikey (header ${auth.apikey.header})` : auth.scheme;
}

function compareProcesses(
  before: readonly ProcessSummary[],
  after: readonly ProcessSummary[],
): Diagnostic[] {
  const out: Diagnostic[] = [];
  const now = new Map(after.map((p) => [p.id, p]));
  for (const p of before) {
    const next = now.get(p.id);
    if (!next) {
      out.push(breaking(
        "SUTRA.COMPAT.PROCESS_REMOVED",
        `process '${p.id}' is gone: instances running it and callers starting it break`,
        p.bpmn,
        { process: p.id },
      ));
      continue;
    }
    const points = new Map([...next.starts, ...next.waits].map((w) => [w.node, w]));
    const waiting = new Set(next.waits.map((w) => w.node));
    for (const wait of p.waits) {
      if (!waiting.has(wait.node)) {
        out.push(breaking(
          "SUTRA.COMPAT.WAIT_NODE_REMOVED",
          `'${wait.node}' of process '${p.id}' (a ${wait.kind} waiting for ${wait.trigger}) ${
            points.has(wait.node) || next.tasks.some((t) => t.node === wait.node)
              ? "no longer waits"
              : "is gone"
          }: instances parked there cannot resume`,
          next.bpmn,
          { process: p.id, node: wait.node },
        ));
      }
    }
    for (const point of [...p.starts, ...p.waits]) {
      const now = points.get(point.node);
      if (!now || !point.channel) continue;
      // Taking any type where one was pinned accepts more: compatible.
      const widened = now.messageType === undefined && now.messageTypePattern === undefined;
      if (now.channel !== point.channel || (!widened && accepts(now) !== accepts(point))) {
        out.push(breaking(
          "SUTRA.COMPAT.MESSAGE_TYPE_CHANGED",
          `'${point.node}' of process '${p.id}' took ${
            accepts(point)
          } on channel '${point.channel}' and now takes ${
            now.channel ? `${accepts(now)} on channel '${now.channel}'` : "no message"
          }`,
          next.bpmn,
          { process: p.id, node: point.node, channel: point.channel },
        ));
      }
    }
  }
  return out;
}

function compareChannels(baseline: LoadedPackage, current: LoadedPackage): Diagnostic[] {
  const out: Diagnostic[] = [];
  const now = new Map((current.channels.entries ?? []).map((c) => [c.name, c]));
  for (const channel of baseline.channels.entries ?? []) {
    const attributes = { channel: channel.name };
    const next = now.get(channel.name);
    if (!next) {
      out.push(breaking(
        "SUTRA.COMPAT.CHANNEL_REMOVED",
        `channel '${channel.name}' (${channel.transport}) is gone: its callers are refused`,
        "channels.yaml",
        attributes,
      ));
      continue;
    }
    const changes = [
      ["transport", channel.transport, next.transport],
      ["bind", channel.bind ?? "(default)", next.bind ?? "(default)"],
      ["codec", channel.codec ?? "(default)", next.codec ?? "(default)"],
      ["auth", authOf(channel), authOf(next)],
    ].filter(([, a, b]) => a !== b);
    for (const [what, a, b] of changes) {
      out.push(breaking(
        "SUTRA.COMPAT.CHANNEL_CHANGED",
        `channel '${channel.name}' changed its ${what} from ${a} to ${b}`,
        "channels.yaml",
        attributes,
      ));
    }
    out.push(...compareTypes(baseline, current, channel, next));
  }
  return out;
}

/** The message types a channel's codec declares and the shape of each. */
function compareTypes(
  baseline: LoadedPackage,
  current: LoadedPackage,
  before: ChannelDecl,
  after: ChannelDecl,
): Diagnostic[] {
  const was = before.codec ? baseline.codecs.codec(before.codec) : undefined;
  const is = after.codec ? current.codecs.codec(after.codec) : undefined;
  if (!was || !is) return [];
  const out: Diagnostic[] = [];
  const declared = new Set(is.messageTypes());
  const uri = current.codecs.own(after.codec!)?.folder ?? "channels.yaml";
  const types = was.messageTypes();
  for (const type of types.length > 0 ? types : [undefined]) {
    const attributes = { channel: before.name, ...(type ? { messageType: type } : {}) };
    if (type !== undefined && declared.size > 0 && !declared.has(type)) {
      out.push(breaking(
        "SUTRA.COMPAT.MESSAGE_TYPE_CHANGED",
        `the codec of channel '${before.name}' no longer declares message type '${type}'`,
        uri,
        attributes,
      ));
      continue;
    }
    const [a, b] = [was.shapeOf(type), is.shapeOf(type)];
    const why = a && b ? narrowing(a, b) : undefined;
    if (why) {
      out.push(breaking(
        "SUTRA.COMPAT.SCHEMA_NARROWED",
        `message type ${type ? `'${type}' ` : ""}of channel '${before.name}' accepts less: ${why}`,
        uri,
        attributes,
      ));
    }
  }
  return out;
}

/** Every breaking change from `baseline` to `current`, processes first, then channels. */
export function compareRevisions(baseline: LoadedPackage, current: LoadedPackage): Diagnostic[] {
  return [
    ...compareProcesses(processSummaries(baseline), processSummaries(current)),
    ...compareChannels(baseline, current),
  ];
}
