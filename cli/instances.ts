/**
 * `sutra instances list|show|retry|cancel|set-variable|migrate`: the
 * operator's instance commands, each one call to a running engine's admin
 * API (docs/operations.md). Text by default, the engine's JSON answer with
 * `--format json`. A refusal prints the engine's diagnostics on stderr and
 * exits 1.
 *
 * @module
 */
import { type Diagnostic, formatDiagnostic } from "../engine/core/diagnostic.ts";
import { type CliIo, type Command, formatFlag, UsageError } from "./command.ts";
import {
  type AdminAnswer,
  type AdminClient,
  adminClient,
  CONNECTION_FLAGS,
  CONNECTION_USAGE,
} from "./_admin_client.ts";
import { type CommandArgs, parseCommandArgs, stringFlag } from "./describe.ts";

/**
 * Prints an answer: `render(body)` (or the JSON body) on stdout when it
 * succeeded, else the engine's diagnostics on stderr; answers the exit code.
 */
export function report(
  answer: AdminAnswer,
  format: "text" | "json",
  io: CliIo,
  render: (body: Record<string, unknown>) => string,
): number {
  const ok = answer.status >= 200 && answer.status < 300;
  if (format === "json") {
    io.stdout(JSON.stringify(answer.body, null, 2) + "\n");
    return ok ? 0 : 1;
  }
  if (ok) {
    io.stdout(render(answer.body));
    return 0;
  }
  io.stderr(`the engine refused (${answer.status}):\n`);
  for (const d of (answer.body.diagnostics as Diagnostic[] | undefined) ?? []) {
    io.stderr(formatDiagnostic(d) + "\n");
  }
  return 1;
}

/** Fixed-width columns; the last one is not padded. */
export function table(rows: readonly (readonly string[])[]): string {
  const widths = rows[0].map((_, c) => Math.max(...rows.map((r) => r[c].length)));
  return rows.map((r) =>
    r.map((cell, c) => (c < r.length - 1 ? cell.padEnd(widths[c]) : cell)).join("  ").trimEnd()
  ).join("\n") + "\n";
}

const USAGE = `Usage: sutra instances list [filters] [--limit N] [--cursor C] [--all] [options]
       sutra instances show ID [options]
       sutra instances retry ID [options]
       sutra instances cancel ID [options]
       sutra instances set-variable ID NAME=VALUE... [options]
       sutra instances migrate ID --target DEPLOYMENT [migration flags] [options]
       sutra instances migrate --source DEPLOYMENT --target DEPLOYMENT [batch flags] [options]

Operates on the instances of a running engine through its admin API.

list      GET /admin/instances, newest first, one page (--all follows every page).
          Filters: --process P, --status RUNNING|WAITING|SUSPENDED|COMPLETED|TERMINATED|FAILED,
          --deployment D, --alias NAME=VALUE, --started-after T, --started-before T
          (ISO-8601 instants), --failure-code CODE.
show      GET /admin/instances/{id}: status, failure, variables (redacted), waits, aliases.
retry     POST /admin/instances/{id}/retry: runs a FAILED instance's failed node again
          with a fresh attempt budget.
cancel    POST /admin/instances/{id}/cancel: terminates the instance.
set-variable
          PATCH /admin/instances/{id}/variables. VALUE is read as JSON when it is JSON
          (12.5, true, null, "text", {"@d":"2026-03-01"}) and as a string otherwise.
migrate   POST /admin/instances/{id}/migrate, or with --source the batch
          POST /admin/instances/migrate. Flags: --target DEPLOYMENT (required),
          --target-process P, --map FROM=TO (repeatable), --dry-run, --resume; batch
          only: --process P, --status SUSPENDED|FAILED, --include-terminal, --limit N.
          Exits 1 unless every instance migrated (or, dry, would): re-run a batch
          until it exits 0.

Options:
${CONNECTION_USAGE}`;

const LIST_FLAGS = {
  process: { type: "string" },
  status: { type: "string" },
  deployment: { type: "string" },
  alias: { type: "string" },
  "started-after": { type: "string" },
  "started-before": { type: "string" },
  "failure-code": { type: "string" },
  limit: { type: "string" },
  cursor: { type: "string" },
  all: { type: "boolean" },
} as const;

const MIGRATE_FLAGS = {
  target: { type: "string" },
  "target-process": { type: "string" },
  map: { type: "string", multiple: true },
  "dry-run": { type: "boolean" },
  resume: { type: "boolean" },
  source: { type: "string" },
  process: { type: "string" },
  status: { type: "string" },
  "include-terminal": { type: "boolean" },
  limit: { type: "string" },
} as const;

/** An instance summary as the engine lists it. */
interface Summary {
  instanceId: string;
  processId: string;
  deploymentId: string;
  status: string;
  createdAt: string;
  failure: { code: string; node: string | null } | null;
}

function oneId(positionals: readonly string[], sub: string): string {
  if (positionals.length !== 1) {
    throw new UsageError(`instances ${sub} takes exactly one instance ID`);
  }
  return positionals[0];
}

const path = (id: string) => `/admin/instances/${encodeURIComponent(id)}`;

function listTable(instances: readonly Summary[]): string {
  if (instances.length === 0) return "no instances\n";
  return table([
    ["INSTANCE", "STATUS", "PROCESS", "DEPLOYMENT", "STARTED", "FAILURE"],
    ...instances.map((i) => [
      i.instanceId,
      i.status,
      i.processId,
      i.deploymentId.slice(0, 12),
      i.createdAt,
      i.failure ? `${i.failure.code}${i.failure.node ? ` at ${i.failure.node}` : ""}` : "",
    ]),
  ]);
}

async function list(client: AdminClient, parsed: CommandArgs, format: "text" | "json", io: CliIo) {
  if (parsed.positionals.length > 0) throw new UsageError("instances list takes no ID");
  const query = new URLSearchParams();
  const names: [string, string][] = [
    ["process", "process"],
    ["status", "status"],
    ["deployment", "deployment"],
    ["alias", "alias"],
    ["started-after", "startedAfter"],
    ["started-before", "startedBefore"],
    ["failure-code", "failureCode"],
    ["limit", "limit"],
    ["cursor", "cursor"],
  ];
  for (const [flag, param] of names) {
    const value = stringFlag(parsed, flag);
    if (value !== undefined) query.set(param, value);
  }
  const all: Summary[] = [];
  for (;;) {
    const answer = await client.call("GET", `/admin/instances?${query}`);
    if (answer.status !== 200 || parsed.flags.all !== true) {
      return report(answer, format, io, (b) => {
        const next = b.next === undefined ? "" : `more: --cursor ${b.next}\n`;
        return listTable(b.instances as Summary[]) + next;
      });
    }
    all.push(...answer.body.instances as Summary[]);
    if (answer.body.next === undefined) {
      return report({ status: 200, body: { instances: all } }, format, io, () => listTable(all));
    }
    query.set("cursor", String(answer.body.next));
  }
}

function showText(b: Record<string, unknown>): string {
  const lines = [
    `instance   ${b.instanceId}`,
    `status     ${b.status}`,
    `process    ${b.processId}`,
    `deployment ${b.deploymentId}`,
    `started    ${b.createdAt}`,
  ];
  const failure = b.failure as { code: string; detail: string | null; node: string | null } | null;
  if (failure) {
    lines.push(`failure    ${failure.code}${failure.node ? ` at ${failure.node}` : ""}`);
    if (failure.detail) lines.push(`           ${failure.detail}`);
  }
  const variables = (b.variables ?? {}) as Record<string, string>;
  lines.push("variables");
  for (const name of Object.keys(variables).sort()) lines.push(`  ${name} = ${variables[name]}`);
  const waits = (b.waits ?? []) as { node: string; kind: string; channel?: string }[];
  lines.push("waits");
  for (const w of waits) {
    lines.push(`  ${w.node} (${w.kind}${w.channel ? ` on ${w.channel}` : ""})`);
  }
  const aliases = (b.aliases ?? []) as { name: string; value: string; live: boolean }[];
  lines.push("aliases");
  for (const a of aliases) lines.push(`  ${a.name}=${a.value}${a.live ? "" : " (retired)"}`);
  return lines.join("\n") + "\n";
}

/** `NAME=VALUE` pairs as a variables object; VALUE is JSON when it parses, else a string. */
export function variableAssignments(pairs: readonly string[]): Record<string, unknown> {
  if (pairs.length === 0) throw new UsageError("set-variable needs at least one NAME=VALUE");
  const out: Record<string, unknown> = {};
  for (const pair of pairs) {
    const eq = pair.indexOf("=");
    if (eq <= 0) throw new UsageError(`set-variable takes NAME=VALUE, not '${pair}'`);
    const text = pair.slice(eq + 1);
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      value = text;
    }
    out[pair.slice(0, eq)] = value;
  }
  return out;
}

function migrationBody(parsed: CommandArgs, batch: boolean): Record<string, unknown> {
  const target = stringFlag(parsed, "target");
  if (target === undefined) throw new UsageError("migrate needs --target DEPLOYMENT");
  const mapping: Record<string, string> = {};
  for (const pair of (parsed.flags.map as unknown as string[] | undefined) ?? []) {
    const eq = pair.indexOf("=");
    if (eq <= 0 || eq === pair.length - 1) {
      throw new UsageError(`--map takes FROM=TO, not '${pair}'`);
    }
    mapping[pair.slice(0, eq)] = pair.slice(eq + 1);
  }
  const body: Record<string, unknown> = { targetDeploymentId: target };
  const targetProcess = stringFlag(parsed, "target-process");
  if (targetProcess !== undefined) body.targetProcessId = targetProcess;
  if (Object.keys(mapping).length > 0) body.nodeMapping = mapping;
  if (parsed.flags["dry-run"] === true) body.dryRun = true;
  if (parsed.flags.resume === true) body.resume = true;
  const batchOnly = ["process", "status", "include-terminal", "limit"];
  if (!batch) {
    const given = batchOnly.filter((f) => parsed.flags[f] !== undefined);
    if (given.length > 0) {
      throw new UsageError(
        `--${given[0]} selects a batch: give --source instead of an instance ID`,
      );
    }
    return body;
  }
  const filter: Record<string, unknown> = { sourceDeploymentId: stringFlag(parsed, "source") };
  const process = stringFlag(parsed, "process");
  if (process !== undefined) filter.processId = process;
  const status = stringFlag(parsed, "status");
  if (status !== undefined) filter.status = status.toUpperCase();
  if (parsed.flags["include-terminal"] === true) filter.includeTerminal = true;
  body.filter = filter;
  const limit = stringFlag(parsed, "limit");
  if (limit !== undefined) {
    if (!/^\d+$/.test(limit)) throw new UsageError(`--limit takes a whole number, not '${limit}'`);
    body.limit = Number(limit);
  }
  return body;
}

interface Verdict {
  instanceId: string;
  outcome: string;
  resumed: boolean;
  diagnostics: Diagnostic[];
}

function verdictText(v: Verdict): string {
  const lines = [`${v.instanceId}: ${v.outcome}${v.resumed ? " (resumed)" : ""}`];
  for (const d of v.diagnostics) lines.push(`  ${formatDiagnostic(d)}`);
  return lines.join("\n") + "\n";
}

async function migrate(
  client: AdminClient,
  parsed: CommandArgs,
  format: "text" | "json",
  io: CliIo,
) {
  const batch = stringFlag(parsed, "source") !== undefined;
  if (batch && parsed.positionals.length > 0) {
    throw new UsageError("give either an instance ID or --source, not both");
  }
  const body = migrationBody(parsed, batch);
  const answer = batch
    ? await client.call("POST", "/admin/instances/migrate", body)
    : await client.call("POST", `${path(oneId(parsed.positionals, "migrate"))}/migrate`, body);
  const verdicts = batch
    ? (answer.body.instances as Verdict[] | undefined)
    : answer.body.outcome === undefined
    ? undefined
    : [answer.body as unknown as Verdict];
  if (verdicts === undefined) return report(answer, format, io, () => "");
  const done = verdicts.every((v) => v.outcome === "MIGRATED" || v.outcome === "VALID");
  if (format === "json") io.stdout(JSON.stringify(answer.body, null, 2) + "\n");
  else {
    for (const v of verdicts) io.stdout(verdictText(v));
    if (batch) {
      const totals = answer.body.totals as Record<string, number>;
      io.stdout(
        Object.entries(totals).filter(([, n]) => n > 0).map(([k, n]) => `${k} ${n}`).join(", ") ||
          "no instance matched",
      );
      io.stdout("\n");
    }
  }
  return done ? 0 : 1;
}

/** The `instances` command group. */
export const instancesCommand: Command = {
  name: "instances",
  summary: "List, inspect, retry, cancel, fix and migrate instances on a running engine",
  usage: USAGE,
  async run(args: readonly string[], io: CliIo): Promise<number> {
    const [sub, ...rest] = args;
    const subs = ["list", "show", "retry", "cancel", "set-variable", "migrate"];
    if (sub === undefined || !subs.includes(sub)) {
      throw new UsageError(
        sub === undefined
          ? `a sub-command is required (${subs.join(", ")})`
          : `unknown sub-command '${sub}'`,
      );
    }
    const parsed = parseCommandArgs(rest, {
      ...CONNECTION_FLAGS,
      ...(sub === "list" ? LIST_FLAGS : sub === "migrate" ? MIGRATE_FLAGS : {}),
    });
    const format = formatFlag(stringFlag(parsed, "format"));
    const client = adminClient(parsed, io, "instances");
    switch (sub) {
      case "list":
        return await list(client, parsed, format, io);
      case "show": {
        const answer = await client.call("GET", path(oneId(parsed.positionals, sub)));
        return report(answer, format, io, showText);
      }
      case "retry": {
        const answer = await client.call("POST", `${path(oneId(parsed.positionals, sub))}/retry`);
        return report(answer, format, io, (b) => `${b.instanceId}: retrying ${b.retrying}\n`);
      }
      case "cancel": {
        const answer = await client.call("POST", `${path(oneId(parsed.positionals, sub))}/cancel`);
        return report(answer, format, io, (b) => `${b.instanceId}: ${b.status}\n`);
      }
      case "set-variable": {
        const [id, ...pairs] = parsed.positionals;
        if (id === undefined) throw new UsageError("set-variable takes an instance ID first");
        const answer = await client.call("PATCH", `${path(id)}/variables`, {
          variables: variableAssignments(pairs),
        });
        return report(
          answer,
          format,
          io,
          (b) => `${b.instanceId}: set ${(b.changed as string[]).join(", ")}\n`,
        );
      }
      default:
        return await migrate(client, parsed, format, io);
    }
  },
};
