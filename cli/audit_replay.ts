/**
 * `sutra audit-replay ID --from-jsonl PATH [--tenant T] [--until TYPE|INSTANT]`:
 * one instance's audit events out of JSONL audit files, in order, without
 * the engine database.
 *
 * @module
 */
import {
  type AuditRecord,
  parseUntil,
  replayInstance,
  type ReplayUntil,
} from "../engine/runtime/audit/mod.ts";
import { type CliIo, type Command, formatFlag, UsageError } from "./command.ts";
import { parseCommandArgs, stringFlag } from "./describe.ts";

const USAGE = `Usage: sutra audit-replay <INSTANCE_ID> --from-jsonl <PATH> [options]

Prints one instance's audit events, in order, from the files of a JSONL
audit sink (sutra.audit.jsonl.dir): PATH is one .jsonl file or a directory,
read recursively (every tenant, target, replica and rotated file). Variables
appear only as the engine wrote them: masked.

Options:
  --from-jsonl PATH      the audit file or directory (required)
  --tenant TENANT        only events of this tenant
  --until TYPE|INSTANT   stop after the first event of TYPE (instance.completed,
                         or INSTANCE_COMPLETED), or after the last event at or
                         before an ISO-8601 INSTANT (2026-12-02T10:00:00Z)
  --format text|json     text (default): one event a line; json: one JSON
                         object a line, exactly as stored
  -h, --help             this text`;

interface Invocation {
  readonly instanceId: string;
  readonly path: string;
  readonly tenant?: string;
  readonly until?: ReplayUntil;
  readonly format: "text" | "json";
}

function parseInvocation(args: readonly string[]): Invocation | "help" {
  const parsed = parseCommandArgs(args, {
    "from-jsonl": { type: "string" },
    tenant: { type: "string" },
    until: { type: "string" },
    format: { type: "string" },
    help: { type: "boolean", short: "h" },
  });
  const { positionals } = parsed;
  if (parsed.flags.help === true) return "help";
  if (positionals.length !== 1) {
    throw new UsageError(`expected one instance id, got ${positionals.length}`);
  }
  const path = stringFlag(parsed, "from-jsonl");
  if (path === undefined || path === "") throw new UsageError("--from-jsonl PATH is required");
  const format = formatFlag(stringFlag(parsed, "format"));
  const tenant = stringFlag(parsed, "tenant");
  const until = stringFlag(parsed, "until");
  return {
    instanceId: positionals[0],
    path,
    format,
    ...(tenant !== undefined ? { tenant } : {}),
    ...(until !== undefined ? { until: parseUntil(until) } : {}),
  };
}

/** One event as a text line: seq, instant, type, then whatever it names. */
function textLine(r: AuditRecord): string {
  const parts = [String(r.seq).padStart(4), r.at, r.type];
  if (r.node !== undefined) parts.push(`node=${r.node}`);
  if (r.flow !== undefined) parts.push(`flow=${r.flow}`);
  if (r.code !== undefined) parts.push(`code=${r.code}`);
  if (r.variables !== undefined) parts.push(`variables=${JSON.stringify(r.variables)}`);
  return parts.join("  ");
}

/** The `audit-replay` command. */
export const auditReplayCommand: Command = {
  name: "audit-replay",
  summary: "Print one instance's audit events from JSONL audit files",
  usage: USAGE,
  async run(args: readonly string[], io: CliIo): Promise<number> {
    const invocation = parseInvocation(args);
    if (invocation === "help") {
      io.stdout(USAGE + "\n");
      return 0;
    }
    const replay = await replayInstance(invocation.path, invocation);
    for (const where of replay.skipped) {
      io.stderr(`skipped a line that is no audit record: ${where}\n`);
    }
    if (replay.records.length === 0) {
      io.stderr(
        `no audit events of instance '${invocation.instanceId}' under ${invocation.path}\n`,
      );
      return 1;
    }
    const render = invocation.format === "json" ? (r: AuditRecord) => JSON.stringify(r) : textLine;
    io.stdout(replay.records.map(render).join("\n") + "\n");
    return 0;
  },
};
