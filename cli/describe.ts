/**
 * `sutra describe FILE [--format json]`: what the engine sees in a BPMN
 * file — processes, start and end events, tasks with their implementation
 * and intake refs, gateways, channel sources and replies. It reads the
 * model only (no schema check, no validation), so it works on a file that
 * does not load yet.
 *
 * @module
 */
import { parseArgs } from "node:util";
import { formatDiagnostic } from "../engine/core/diagnostic.ts";
import {
  type Definitions,
  type EventNode,
  type FlowNode,
  type Implementation,
  implementationOf,
  isEvent,
  isGateway,
  isSubProcess,
  ModelIndex,
  type QSource,
  readBpmn,
} from "../engine/bpmn/mod.ts";
import { isNamedImplementation, namedImplementation } from "../engine/package/processes.ts";
import {
  type CliIo,
  type Command,
  DiagnosticError,
  formatFlag,
  readInputFile,
  UsageError,
} from "./command.ts";
import { errorMessage } from "../engine/core/errors.ts";

/**
 * Reads and parses a BPMN file for an inspection command: reader findings
 * go to stderr as notes; a file that cannot be read or is not BPMN fails
 * with its diagnostics.
 */
export async function readModelArgument(path: string, io: CliIo): Promise<Definitions> {
  const bytes = await readInputFile(path);
  const read = readBpmn(bytes, { uri: path });
  if (!read.definitions) throw new DiagnosticError(read.diagnostics);
  for (const d of read.diagnostics) io.stderr(`note: ${formatDiagnostic(d)}\n`);
  return read.definitions;
}

/** Flags and positionals of an inspection command. */
export interface CommandArgs {
  readonly flags: Readonly<Record<string, string | boolean | undefined>>;
  readonly positionals: readonly string[];
}

/**
 * Parses flags strictly (`string` and `boolean` options, optionally with a
 * one-letter alias); usage errors instead of exceptions.
 */
export function parseCommandArgs(
  args: readonly string[],
  options: Readonly<Record<string, { type: "string" | "boolean"; short?: string }>>,
): CommandArgs {
  try {
    const { values, positionals } = parseArgs({
      args: [...args],
      options,
      strict: true,
      allowPositionals: true,
    });
    return { flags: values, positionals };
  } catch (error) {
    throw new UsageError(errorMessage(error));
  }
}

/** A string flag's value (undefined when absent). */
export function stringFlag(args: CommandArgs, name: string): string | undefined {
  const value = args.flags[name];
  return typeof value === "string" ? value : undefined;
}

/** The single FILE positional of an inspection command. */
export function fileArgument(positionals: readonly string[]): string {
  if (positionals.length !== 1) {
    throw new UsageError(
      positionals.length === 0 ? "a BPMN file is required" : "give exactly one BPMN file",
    );
  }
  return positionals[0];
}

/** A one-line description of what a task does. */
export function describeImplementation(implementation: Implementation): string {
  if (isNamedImplementation(implementation)) return namedImplementation(implementation);
  switch (implementation.kind) {
    case "script":
      return "FEEL script";
    case "send":
      return "send";
    case "wait":
      return "wait for relay";
    case "data":
      return "data task";
    case "none":
      return "no-op";
    case "unsupported":
      return `unsupported '${implementation.value}'`;
  }
}

interface SourceSummary {
  channel: string;
  node: string;
  role: "start" | "relay";
  messageTypeValue?: string;
  messageTypePattern?: string;
  variable: string;
  ack?: string;
  validators: string[];
  redactors: string[];
  aliases: string[];
}

interface NodeSummary {
  id: string;
  name?: string;
  kind: string;
  /** Sub-process the node sits in, when nested. */
  in?: string;
  trigger?: string;
  timer?: string;
  implementation?: string;
  retry?: string;
  timeout?: string;
  reply?: string;
  send?: string;
  calls?: string[];
  outgoing?: number;
  default?: string;
  source?: SourceSummary;
}

interface ProcessSummary {
  id: string;
  name?: string;
  executable: boolean;
  idempotent: boolean;
  variables: string[];
  coverage: string[];
  startEvents: NodeSummary[];
  endEvents: NodeSummary[];
  events: NodeSummary[];
  tasks: NodeSummary[];
  subProcesses: NodeSummary[];
  gateways: NodeSummary[];
  sources: SourceSummary[];
  replies: NodeSummary[];
}

/** The structural summary `describe` prints (and emits as JSON). */
export interface DescribeReport {
  file: string;
  definitions: string;
  processes: ProcessSummary[];
}

function trigger(node: EventNode): string {
  if (node.definitions.length > 1) return "multiple";
  return node.definitions[0]?.type ?? (node.q.sources.length > 0 ? "message" : "none");
}

function sourceSummary(source: QSource, node: FlowNode, role: "start" | "relay"): SourceSummary {
  const s: SourceSummary = {
    channel: source.channel,
    node: node.id,
    role,
    variable: source.name,
    validators: source.validators.map((v) =>
      v.kind === "complex" ? v.source : `${v.ref}(${v.path.text})`
    ),
    redactors: [...source.redactors],
    aliases: [...source.aliases, ...node.q.aliases].map((a) => a.name),
  };
  if (source.messageTypeValue !== undefined) s.messageTypeValue = source.messageTypeValue;
  if (source.messageTypePattern !== undefined) s.messageTypePattern = source.messageTypePattern;
  if (source.ack !== undefined) s.ack = source.ack;
  return s;
}

/** Builds the report from a model. */
export function describeModel(definitions: Definitions): DescribeReport {
  const index = new ModelIndex(definitions);
  const processes = definitions.processes.map((process): ProcessSummary => {
    const summary: ProcessSummary = {
      id: process.id,
      executable: index.isExecutable(process),
      idempotent: process.q.processes[0]?.idempotent ?? false,
      variables: process.q.variables.map((v) =>
        `${v.name}${
          v.type
            ? `: ${v.type}`
            : v.schema
            ? `: ${v.schema}${v.schemaType ? `#${v.schemaType}` : ""}`
            : ""
        }${v.transient ? " (transient)" : ""}${v.sensitive ? " (sensitive)" : ""}`
      ),
      coverage: process.q.coverage.map((c) => `${c.path}: ${c.flows.join(" ")}`),
      startEvents: [],
      endEvents: [],
      events: [],
      tasks: [],
      subProcesses: [],
      gateways: [],
      sources: [],
      replies: [],
    };
    if (process.name !== undefined) summary.name = process.name;
    for (const { node, container } of index.nodesOf(process)) {
      const n: NodeSummary = { id: node.id, kind: node.kind };
      if (node.name !== undefined) n.name = node.name;
      if (container.owner) n.in = container.owner.id;
      const source = node.q.sources[0];
      if (source) {
        const role = node.kind === "startEvent" && !container.owner ? "start" : "relay";
        n.source = sourceSummary(source, node, role);
        summary.sources.push(n.source);
      }
      const reply = node.q.replies[0];
      if (reply) {
        n.reply = [reply.mode, reply.contentType, reply.continue ? "continue" : undefined]
          .filter((x) => x).join(" ");
        summary.replies.push(n);
      }
      const send = node.q.sends[0];
      if (send) n.send = send.channel ? `channel ${send.channel}` : `${send.destination ?? "?"}`;
      if (isEvent(node)) {
        n.trigger = trigger(node);
        const timer = node.definitions.find((d) => d.type === "timer");
        if (timer?.type === "timer" && timer.expression) {
          n.timer = `${timer.form} ${timer.expression.text}`;
        }
        const list = node.kind === "startEvent"
          ? summary.startEvents
          : node.kind === "endEvent"
          ? summary.endEvents
          : summary.events;
        list.push(n);
      } else if (isGateway(node)) {
        n.outgoing = node.outgoing.length;
        if (node.defaultFlow) n.default = node.defaultFlow;
        summary.gateways.push(n);
      } else {
        const implementation = implementationOf(node);
        if (implementation) n.implementation = describeImplementation(implementation);
        const retry = node.q.retries[0];
        if (retry) {
          n.retry = `${retry.maxAttempts} attempts, backoff ×${retry.backoffCoefficient} from ${
            retry.initialDelayMillis / 1000
          }s`;
        }
        if (node.q.timeouts[0]) n.timeout = `${node.q.timeouts[0].durationMillis / 1000}s`;
        if (node.kind === "callActivity") {
          n.calls = [
            ...(node.calledElement ? [node.calledElement] : []),
            ...node.q.dispatches.flatMap((d) => [
              ...d.cases.map((c) => `${c.calledElement} when ${c.when.text}`),
              ...(d.default ? [`${d.default} otherwise`] : []),
            ]),
          ];
        }
        (isSubProcess(node) ? summary.subProcesses : summary.tasks).push(n);
      }
    }
    return summary;
  });
  return { file: definitions.uri, definitions: definitions.id, processes };
}

function label(n: NodeSummary): string {
  return n.name ? `${n.id} "${n.name.replace(/\s+/g, " ")}"` : n.id;
}

function detail(n: NodeSummary): string {
  const parts: string[] = [];
  if (n.trigger && n.trigger !== "none") parts.push(n.trigger);
  if (n.timer) parts.push(n.timer);
  if (n.source) parts.push(`channel ${n.source.channel}`);
  if (n.implementation) parts.push(n.implementation);
  if (n.retry) parts.push(`retry ${n.retry}`);
  if (n.timeout) parts.push(`timeout ${n.timeout}`);
  if (n.reply) parts.push(`reply ${n.reply}`);
  if (n.send) parts.push(`send ${n.send}`);
  if (n.calls && n.calls.length > 0) parts.push(`calls ${n.calls.join("; ")}`);
  if (n.outgoing !== undefined) parts.push(`${n.outgoing} outgoing`);
  if (n.default) parts.push(`default ${n.default}`);
  if (n.in) parts.push(`in ${n.in}`);
  return parts.join(", ");
}

function section(title: string, nodes: readonly NodeSummary[], showKind: boolean): string[] {
  if (nodes.length === 0) return [];
  const rows = nodes.map((n) => showKind ? [label(n), n.kind, detail(n)] : [label(n), detail(n)]);
  const widths = rows[0].slice(0, -1).map((_, c) =>
    Math.min(44, Math.max(...rows.map((r) => r[c].length)))
  );
  const line = (r: string[]) =>
    ("    " + r.map((cell, c) => c < widths.length ? cell.padEnd(widths[c]) : cell).join("  "))
      .trimEnd();
  return [`  ${title}`, ...rows.map(line)];
}

/** Renders the report as text. */
export function formatDescribe(report: DescribeReport): string {
  const lines = [`${report.file}: definitions ${report.definitions || "(no id)"}`];
  for (const p of report.processes) {
    const flags = [p.executable ? "executable" : "not executable", p.idempotent ? "idempotent" : ""]
      .filter((f) => f).join(", ");
    lines.push("", `process ${p.id}${p.name ? ` "${p.name}"` : ""} (${flags})`);
    if (p.variables.length > 0) lines.push(`  variables: ${p.variables.join(", ")}`);
    lines.push(...section("start events", p.startEvents, false));
    lines.push(...section("intermediate and boundary events", p.events, true));
    lines.push(...section("end events", p.endEvents, false));
    lines.push(...section("tasks", p.tasks, true));
    lines.push(...section("sub-processes", p.subProcesses, true));
    lines.push(...section("gateways", p.gateways, true));
    if (p.sources.length > 0) {
      lines.push("  channel sources");
      for (const s of p.sources) {
        const accepts = s.messageTypeValue
          ? `type ${s.messageTypeValue}`
          : s.messageTypePattern
          ? `types /${s.messageTypePattern}/`
          : "any type";
        const extra = [
          `${accepts} → ${s.variable}`,
          s.ack ? `ack ${s.ack}` : "",
          s.validators.length > 0 ? `validators ${s.validators.join(", ")}` : "",
          s.redactors.length > 0 ? `redactors ${s.redactors.join(", ")}` : "",
          s.aliases.length > 0 ? `aliases ${s.aliases.join(", ")}` : "",
        ].filter((x) => x).join("; ");
        lines.push(`    ${s.channel} → ${s.node} (${s.role})  ${extra}`);
      }
    }
    if (p.replies.length > 0) {
      lines.push("  replies");
      for (const r of p.replies) lines.push(`    ${r.id}  ${r.reply}`);
    }
    if (p.coverage.length > 0) {
      lines.push("  coverage paths");
      for (const c of p.coverage) lines.push(`    ${c}`);
    }
  }
  return lines.join("\n") + "\n";
}

/** The `describe` command. */
export const describeCommand: Command = {
  name: "describe",
  summary: "Summarise what the engine sees in a BPMN file",
  usage: `Usage: sutra describe FILE [--format text|json]

Prints the processes of a BPMN file with their start and end events, tasks
(implementation, retry, timeout, reply), gateways, channel sources (message
type, validators, redactors, aliases) and replies. Reads the model only, so
it also works on a file that does not validate yet.`,
  async run(args: readonly string[], io: CliIo): Promise<number> {
    const parsed = parseCommandArgs(args, { format: { type: "string" } });
    const format = formatFlag(stringFlag(parsed, "format"));
    const definitions = await readModelArgument(fileArgument(parsed.positionals), io);
    const report = describeModel(definitions);
    io.stdout(format === "json" ? JSON.stringify(report, null, 2) + "\n" : formatDescribe(report));
    return 0;
  },
};
