/**
 * `sutra simulate FILE --channel NAME --dry-run [--message-type TYPE]`:
 * which process and node a message on a channel would reach, from the
 * file's own q:source declarations. Nothing runs; `--dry-run` is required
 * to say so. An unknown channel lists every channel the file declares.
 *
 * @module
 */
import { acceptsMessageType, type ChannelRoute, channelRoutes } from "../engine/bpmn/mod.ts";
import { type CliIo, type Command, formatFlag, UsageError } from "./command.ts";
import { fileArgument, parseCommandArgs, readModelArgument, stringFlag } from "./describe.ts";

interface RouteReport {
  process: string;
  executable: boolean;
  node: string;
  nodeName?: string;
  kind: string;
  role: "start" | "relay";
  accepts: string;
  variable: string;
  ack?: string;
  aliases: string[];
}

function report(route: ChannelRoute): RouteReport {
  const s = route.source;
  const r: RouteReport = {
    process: route.process.id,
    executable: route.executable,
    node: route.node.id,
    kind: route.node.kind,
    role: route.role,
    accepts: s.messageTypeValue ??
      (s.messageTypePattern !== undefined ? `/${s.messageTypePattern}/` : "*"),
    variable: s.name,
    aliases: [...s.aliases, ...route.node.q.aliases].map((a) => `${a.name} = ${a.expression.text}`),
  };
  if (route.node.name !== undefined) r.nodeName = route.node.name;
  if (s.ack !== undefined) r.ack = s.ack;
  return r;
}

function describeRoute(r: RouteReport): string {
  const where = `${r.kind} '${r.node}'${r.nodeName ? ` "${r.nodeName}"` : ""}`;
  const head = r.role === "start"
    ? `starts process '${r.process}' at ${where}`
    : `resumes an instance of process '${r.process}' parked at ${where}`;
  const details = [
    `accepts ${r.accepts === "*" ? "any message type" : `message type ${r.accepts}`}`,
    `payload bound to '${r.variable}'`,
    r.ack ? `ack ${r.ack}` : "",
  ].filter((d) => d);
  const lines = [
    `  ${head}${r.executable ? "" : " (process is not executable)"}`,
    `    ${details.join("; ")}`,
  ];
  if (r.aliases.length > 0) {
    lines.push(`    ${r.role === "start" ? "records" : "correlates on"} ${r.aliases.join(", ")}`);
  }
  return lines.join("\n");
}

/** The `simulate` command. */
export const simulateCommand: Command = {
  name: "simulate",
  summary: "Show which process and node a channel routes to (no execution)",
  usage:
    `Usage: sutra simulate FILE --channel NAME --dry-run [--message-type TYPE] [--format text|json]

Resolves, from the file's q:source declarations, which process and start
event a message on the channel starts, and which parked nodes it can
resume. --message-type narrows the answer to sources accepting that type.
Nothing is executed; --dry-run is required. When no source declares the
channel, the error lists every channel the file declares.`,
  async run(args: readonly string[], io: CliIo): Promise<number> {
    const parsed = parseCommandArgs(args, {
      channel: { type: "string" },
      "dry-run": { type: "boolean" },
      "message-type": { type: "string" },
      format: { type: "string" },
    });
    const format = formatFlag(stringFlag(parsed, "format"));
    if (parsed.flags["dry-run"] !== true) {
      throw new UsageError("--dry-run is required: simulate reports routing and runs nothing");
    }
    const channel = stringFlag(parsed, "channel");
    if (!channel) throw new UsageError("--channel NAME is required");
    const file = fileArgument(parsed.positionals);
    const definitions = await readModelArgument(file, io);
    const all = channelRoutes(definitions);
    const onChannel = all.filter((r) => r.channel === channel);
    const messageType = stringFlag(parsed, "message-type");
    const routes = messageType === undefined
      ? onChannel
      : onChannel.filter((r) => acceptsMessageType(r.source, messageType));
    const declared = [...new Set(all.map((r) => r.channel))].sort();
    const reports = routes.map(report);

    if (format === "json") {
      const out: Record<string, unknown> = { file, channel, routes: reports };
      if (messageType !== undefined) out.messageType = messageType;
      if (onChannel.length === 0) out.declaredChannels = declared;
      if (onChannel.length > 0 && routes.length === 0) out.channelAccepts = onChannel.map(report);
      io.stdout(JSON.stringify(out, null, 2) + "\n");
      return routes.length > 0 ? 0 : 1;
    }
    if (onChannel.length === 0) {
      io.stderr(
        `channel '${channel}' is not declared by any q:source in ${file}; ` +
          (declared.length > 0
            ? `declared channels: ${declared.join(", ")}\n`
            : "the file declares no channels\n"),
      );
      return 1;
    }
    if (routes.length === 0) {
      io.stderr(
        `no q:source on channel '${channel}' accepts message type '${messageType}'; it accepts:\n` +
          onChannel.map((r) => describeRoute(report(r))).join("\n") + "\n",
      );
      return 1;
    }
    const what = messageType === undefined ? "" : ` with message type ${messageType}`;
    io.stdout(`channel '${channel}'${what} (${file}):\n${reports.map(describeRoute).join("\n")}\n`);
    return 0;
  },
};
