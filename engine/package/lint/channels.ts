/**
 * Channel checks: names are unique, every transport is linked in this build,
 * every codec URN resolves, no two channels claim one address, every channel
 * a process names is declared, every message type a process subscribes to
 * is one its channel's codec can yield, and a point-to-point channel has
 * exactly one subscribing start event per message type.
 *
 * @module
 */
import {
  acceptsMessageType,
  type ChannelRoute,
  channelRoutes,
  implementationOf,
  type QSource,
} from "../../bpmn/mod.ts";
import { type Diagnostic, diagnostic } from "../../core/diagnostic.ts";
import type { ChannelDecl } from "../channels_yaml.ts";
import { CHANNELS_YAML } from "../layout.ts";
import { bpmnAt, type LintContext } from "./context.ts";

/** Runs the channel checks. */
export function lintChannels(ctx: LintContext): Diagnostic[] {
  const declared = ctx.pkg.channels.entries;
  if (declared === undefined) return [];
  return [
    ...declarations(ctx, declared),
    ...references(ctx, new Set(declared.map((c) => c.name))),
    ...messageTypes(ctx, declared),
    ...subscribers(ctx, declared),
  ];
}

function declarations(ctx: LintContext, channels: readonly ChannelDecl[]): Diagnostic[] {
  const out: Diagnostic[] = [];
  const file = ctx.pkg.channels.file!;
  const byName = new Map<string, ChannelDecl>();
  const byBind = new Map<string, ChannelDecl>();
  for (const c of channels) {
    const first = byName.get(c.name);
    if (first) {
      out.push(diagnostic(
        "SUTRA.CONFIG.CHANNEL.DUPLICATE",
        `channel '${c.name}' is declared twice (first at line ${
          file.locate(["channels", first.index]).line
        })`,
        { source: file.locate(["channels", c.index, "name"]), attributes: { channel: c.name } },
      ));
    } else {
      byName.set(c.name, c);
    }
    if (!ctx.transports.has(c.transport)) {
      const linked = ctx.transports.names();
      const why = ctx.transports.unavailable?.(c.transport) ??
        `this build does not link (linked: ${linked.length > 0 ? linked.join(", ") : "none"})`;
      out.push(diagnostic(
        "SUTRA.CONFIG.CHANNEL.TRANSPORT_UNAVAILABLE",
        `channel '${c.name}' rides transport '${c.transport}', which ${why}`,
        {
          source: file.locate(["channels", c.index, "transport"]),
          attributes: { channel: c.name, transport: c.transport },
        },
      ));
    } else {
      const at = file.locate(["channels", c.index, "options"]);
      for (const d of ctx.transports.checkOptions?.(c) ?? []) out.push({ ...d, source: at });
    }
    if (c.codec !== undefined && !ctx.pkg.codecs.declares(c.codec)) {
      out.push(diagnostic(
        "SUTRA.CONFIG.CODEC.UNKNOWN",
        `channel '${c.name}' binds codec '${c.codec}', which is neither a codec ` +
          "folder of this package (schemas/<folder>/) nor a codec linked into this build",
        {
          source: file.locate(["channels", c.index, "codec"]),
          attributes: { channel: c.name, codec: c.codec },
        },
      ));
    }
    if (c.bind !== undefined && c.transport === "http" && !HTTP_BIND.test(c.bind.trim())) {
      out.push(diagnostic(
        "SUTRA.CONFIG.CHANNEL.INVALID",
        `channel '${c.name}' binds '${c.bind}', which no HTTP channel can: an inbound channel ` +
          "answers 'POST /channels/<name>', an outbound one sends to '[<METHOD> ]<scheme>://…'",
        { source: file.locate(["channels", c.index, "bind"]), attributes: { channel: c.name } },
      ));
    }
    if (c.bind !== undefined) {
      const key = `${c.transport} ${c.bind.trim().replace(/\s+/g, " ")}`;
      const other = byBind.get(key);
      if (other) {
        out.push(diagnostic(
          "SUTRA.CONFIG.CHANNEL.BIND_CONFLICT",
          `channels '${other.name}' and '${c.name}' both bind ${c.transport} ` +
            `'${c.bind}'`,
          { source: file.locate(["channels", c.index, "bind"]), attributes: { channel: c.name } },
        ));
      } else {
        byBind.set(key, c);
      }
    }
  }
  return out;
}

/**
 * What an http channel's `bind` can be: the inbound route it answers, or
 * the destination its messages go to (a URL, with a method for HTTP, or
 * another transport's address for an outbound-only channel).
 */
const HTTP_BIND =
  /^(?:POST\s+\/channels\/[A-Za-z0-9][A-Za-z0-9._-]*|(?:[A-Z]+\s+)?[a-z][a-z0-9+.-]*:\/\/\S+)$/;

function references(ctx: LintContext, names: ReadonlySet<string>): Diagnostic[] {
  const out: Diagnostic[] = [];
  const unknown = (
    channel: string,
    what: string,
    path: string,
    at: { line: number; column: number },
  ) => {
    if (names.has(channel)) return;
    out.push(diagnostic(
      "SUTRA.CONFIG.CHANNEL.UNKNOWN",
      `${what} names channel '${channel}', which ${
        ctx.pkg.layout.channelsYaml ? CHANNELS_YAML : "the package (it has no channels.yaml)"
      } does not declare`,
      { source: bpmnAt(path, at), attributes: { channel } },
    ));
  };
  for (const { process, index, path } of ctx.processes) {
    if (!index.isExecutable(process)) continue;
    for (const v of process.q.variables) {
      if (v.source !== undefined) unknown(v.source, `variable '${v.name}'`, path, v);
      if (v.schema !== undefined && !ctx.pkg.codecs.declares(v.schema)) {
        out.push(diagnostic(
          "SUTRA.CONFIG.CODEC.UNKNOWN",
          `variable '${v.name}' is typed by codec '${v.schema}', which is neither a codec folder ` +
            "of this package nor a codec linked into this build",
          { source: bpmnAt(path, v), attributes: { codec: v.schema } },
        ));
      }
    }
    for (const { node } of index.nodesOf(process)) {
      for (const s of node.q.sources) unknown(s.channel, `the q:source of '${node.id}'`, path, s);
      for (const s of node.q.sends) {
        if (s.channel !== undefined) unknown(s.channel, `the q:send of '${node.id}'`, path, s);
      }
      const implementation = implementationOf(node);
      if (implementation?.kind === "channel-call") {
        unknown(implementation.channel, `task '${node.id}'`, path, node);
      }
    }
  }
  return out;
}

/**
 * A source that names a message type needs a codec that yields message
 * types: against a closed set the name must be in it (an ERROR otherwise,
 * the route could never fire); a channel with no codec, or a schema-less
 * format that yields none, can only feed a catch-all source (a WARNING).
 */
function messageTypes(ctx: LintContext, channels: readonly ChannelDecl[]): Diagnostic[] {
  const byName = new Map(channels.map((c) => [c.name, c]));
  const out: Diagnostic[] = [];
  for (const { artifact, result } of ctx.pkg.bpmn) {
    if (!result.definitions) continue;
    for (const route of channelRoutes(result.definitions)) {
      const s = route.source;
      const named = s.messageTypeValue ?? s.messageTypePattern;
      const channel = byName.get(route.channel);
      if (named === undefined || !route.executable || channel === undefined) continue;
      const codec = channel.codec === undefined ? undefined : ctx.pkg.codecs.codec(channel.codec);
      if (channel.codec !== undefined && codec === undefined) continue;
      const types = codec?.messageTypes() ?? [];
      const at = bpmnAt(artifact.path, s);
      const attributes = { channel: channel.name, messageType: named };
      if (types.length === 0) {
        if (channel.codec !== undefined && ctx.pkg.codecs.own(channel.codec)) continue;
        out.push(diagnostic(
          "SUTRA.CONFIG.CHANNEL.CODEC_SCHEMALESS",
          `'${route.node.id}' subscribes to message type ${named} on channel '${channel.name}', whose ${
            channel.codec === undefined ? "lack of a codec" : `codec ${channel.codec}`
          } yields no message types; only a source without messageTypeValue/messageTypePattern ` +
            "is sure to match",
          { severity: "WARNING", source: at, attributes },
        ));
      } else if (!types.some((t) => acceptsMessageType(s, t))) {
        out.push(diagnostic(
          "SUTRA.CONFIG.CHANNEL.MESSAGE_TYPE_UNKNOWN",
          `'${route.node.id}' subscribes to message type ${named} on channel '${channel.name}', but ` +
            `its codec ${channel.codec} yields only ${types.join(", ")}`,
          { source: at, attributes },
        ));
      }
    }
  }
  return out;
}

/**
 * Whether two start sources can both accept one message type. Two
 * different patterns are not compared: whether two regular expressions
 * share a word is not decided here, so only provable overlaps are reported.
 */
function overlap(a: QSource, b: QSource): string | undefined {
  const typeOf = (s: QSource) => s.messageTypeValue ?? s.messageTypePattern;
  if (typeOf(a) === undefined || typeOf(b) === undefined) return "every message type";
  if (a.messageTypeValue !== undefined && b.messageTypeValue !== undefined) {
    return a.messageTypeValue === b.messageTypeValue ? `'${a.messageTypeValue}'` : undefined;
  }
  if (a.messageTypeValue !== undefined) {
    return acceptsMessageType(b, a.messageTypeValue) ? `'${a.messageTypeValue}'` : undefined;
  }
  if (b.messageTypeValue !== undefined) {
    return acceptsMessageType(a, b.messageTypeValue) ? `'${b.messageTypeValue}'` : undefined;
  }
  return a.messageTypePattern === b.messageTypePattern ? `/${a.messageTypePattern}/` : undefined;
}

function subscribers(ctx: LintContext, channels: readonly ChannelDecl[]): Diagnostic[] {
  const broadcast = new Set(channels.filter((c) => c.broadcast).map((c) => c.name));
  const byChannel = new Map<string, { route: ChannelRoute; path: string }[]>();
  for (const { artifact, result } of ctx.pkg.bpmn) {
    if (!result.definitions) continue;
    for (const route of channelRoutes(result.definitions)) {
      if (route.role !== "start" || !route.executable || broadcast.has(route.channel)) continue;
      const list = byChannel.get(route.channel) ?? [];
      list.push({ route, path: artifact.path });
      byChannel.set(route.channel, list);
    }
  }
  const out: Diagnostic[] = [];
  for (const [channel, routes] of byChannel) {
    for (let j = 1; j < routes.length; j++) {
      for (let i = 0; i < j; i++) {
        const a = routes[i];
        const b = routes[j];
        const types = overlap(a.route.source, b.route.source);
        if (types === undefined) continue;
        out.push(diagnostic(
          "SUTRA.CONFIG.CHANNEL.SUBSCRIBER_CONFLICT",
          `channel '${channel}' is point-to-point, but ${types} starts both ` +
            `${a.route.process.id}/${a.route.node.id} (${a.path}:${a.route.source.line}) and ` +
            `${b.route.process.id}/${b.route.node.id}; declare the channel broadcast: true to ` +
            "start both, or narrow the message types",
          {
            source: bpmnAt(b.path, b.route.source),
            attributes: { channel, first: a.route.node.id, second: b.route.node.id },
          },
        ));
        break;
      }
    }
  }
  return out;
}
