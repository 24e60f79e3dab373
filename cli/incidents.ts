/**
 * `sutra incidents [--kind K] [--limit N]`: what needs an operator on a
 * running engine (`GET /admin/incidents`) — FAILED instances, deliveries
 * the outbox gave up on, external tasks out of retries, lost data-store
 * writes a replay could not apply — newest first.
 *
 * @module
 */
import { type CliIo, type Command, formatFlag, UsageError } from "./command.ts";
import { parseCommandArgs, stringFlag } from "./describe.ts";
import { adminClient, CONNECTION_FLAGS, CONNECTION_USAGE } from "./_admin_client.ts";
import { report, table } from "./instances.ts";
import { INCIDENT_KINDS } from "../engine/runtime/instances/incidents.ts";

const USAGE =
  `Usage: sutra incidents [--kind instance|delivery|external-task|store-write] [--limit N] [options]

Lists what needs an operator on a running engine (GET /admin/incidents), newest
first: FAILED instances (retry them with 'sutra instances retry ID', or repair
the model and 'sutra instances migrate ID --target … --resume'), deliveries the
outbox gave up on, external tasks whose worker budget is spent, and data-store
writes lost in a crash that could not be replayed (a key moved since).

Options:
  --kind K              only incidents of this kind
  --limit N             at most N incidents (default 100)
${CONNECTION_USAGE}`;

interface Incident {
  kind: string;
  id: string;
  instanceId: string | null;
  code: string;
  node: string | null;
  at: string;
  message: string | null;
}

function incidentTable(incidents: readonly Incident[]): string {
  if (incidents.length === 0) return "no incidents\n";
  return table([
    ["AT", "KIND", "CODE", "ID", "INSTANCE", "NODE", "MESSAGE"],
    ...incidents.map((i) => [
      i.at,
      i.kind,
      i.code,
      // A FAILED instance's incident is the instance itself.
      i.id === i.instanceId ? "" : i.id,
      i.instanceId ?? "",
      i.node ?? "",
      (i.message ?? "").replace(/\s+/g, " ").slice(0, 100),
    ]),
  ]);
}

/** The `incidents` command. */
export const incidentsCommand: Command = {
  name: "incidents",
  summary: "List what needs an operator on a running engine",
  usage: USAGE,
  async run(args: readonly string[], io: CliIo): Promise<number> {
    const parsed = parseCommandArgs(args, {
      ...CONNECTION_FLAGS,
      kind: { type: "string" },
      limit: { type: "string" },
    });
    if (parsed.positionals.length > 0) throw new UsageError("incidents takes no arguments");
    const format = formatFlag(stringFlag(parsed, "format"));
    const kind = stringFlag(parsed, "kind");
    if (kind !== undefined && !(INCIDENT_KINDS as readonly string[]).includes(kind)) {
      throw new UsageError(`--kind must be one of ${INCIDENT_KINDS.join(", ")}, not '${kind}'`);
    }
    const query = new URLSearchParams();
    for (const name of ["kind", "limit"]) {
      const value = stringFlag(parsed, name);
      if (value !== undefined) query.set(name, value);
    }
    const answer = await adminClient(parsed, io, "incidents").call(
      "GET",
      `/admin/incidents?${query}`,
    );
    return report(answer, format, io, (b) => incidentTable(b.incidents as Incident[]));
  },
};
