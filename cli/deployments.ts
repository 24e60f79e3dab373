/**
 * `sutra deployments list DIR [--label KEY=VALUE]… [--format text|json]`:
 * the sealed archives in a directory, each verified by the same reader the
 * engine deploys through, with its deploymentId, slot and labels. An
 * archive that does not verify is reported by name and makes the exit code
 * 1; the others are still listed.
 *
 * @module
 */
import { parseArgs } from "node:util";
import { type Diagnostic, diagnostic, formatDiagnostic } from "../engine/core/diagnostic.ts";
import { ARCHIVE_EXTENSION, readArchiveFile } from "../engine/package/mod.ts";
import { type CliIo, type Command, DiagnosticError, formatFlag, UsageError } from "./command.ts";
import { errorMessage } from "../engine/core/errors.ts";

const USAGE = `Usage: sutra deployments list DIR [--label KEY=VALUE]... [--format text|json]

Lists the sealed archives (*${ARCHIVE_EXTENSION}) in DIR with their deploymentId, slot
and labels. Every archive is fully verified first (structure, every file's
digest, the manifest); one that fails is reported by name and the command
exits 1. Each --label keeps only archives carrying that label value; several
must all match.`;

/** One listed archive. */
export interface DeploymentEntry {
  readonly file: string;
  readonly deploymentId: string;
  readonly slot: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly minContract: number;
  readonly files: number;
}

function parseLabels(values: readonly string[]): [string, string][] {
  return values.map((v) => {
    const eq = v.indexOf("=");
    if (eq <= 0) throw new UsageError(`--label takes KEY=VALUE, not '${v}'`);
    return [v.slice(0, eq), v.slice(eq + 1)];
  });
}

async function archivesIn(dir: string): Promise<string[]> {
  const names: string[] = [];
  try {
    for await (const e of Deno.readDir(dir)) {
      if (e.isFile && e.name.endsWith(ARCHIVE_EXTENSION)) names.push(e.name);
    }
  } catch (error) {
    throw new DiagnosticError(diagnostic(
      "SUTRA.CLI.FILE_UNREADABLE",
      `cannot read ${dir}: ${errorMessage(error)}`,
      { source: { uri: dir } },
    ));
  }
  return names.sort();
}

/** The `deployments` command group (`list`). */
export const deploymentsCommand: Command = {
  name: "deployments",
  summary: "List and verify the sealed archives in a directory",
  usage: USAGE,
  async run(args: readonly string[], io: CliIo): Promise<number> {
    const [sub, ...rest] = args;
    if (sub !== "list") {
      throw new UsageError(
        sub === undefined ? "a sub-command is required (list)" : `unknown sub-command '${sub}'`,
      );
    }
    let values: { label?: string[]; format?: string };
    let positionals: string[];
    try {
      ({ values, positionals } = parseArgs({
        args: rest,
        options: { label: { type: "string", multiple: true }, format: { type: "string" } },
        strict: true,
        allowPositionals: true,
      }));
    } catch (error) {
      throw new UsageError(errorMessage(error));
    }
    const format = formatFlag(values.format);
    if (positionals.length !== 1) throw new UsageError("give exactly one directory");
    const dir = positionals[0].replace(/\/+$/, "") || "/";
    const wanted = parseLabels(values.label ?? []);

    const entries: DeploymentEntry[] = [];
    const failures: Diagnostic[] = [];
    for (const name of await archivesIn(dir)) {
      const path = `${dir}/${name}`;
      const read = await readArchiveFile(path);
      if (!read.archive) {
        failures.push(...read.diagnostics);
        continue;
      }
      const { manifest } = read.archive;
      if (!wanted.every(([k, v]) => manifest.labels[k] === v)) continue;
      entries.push({
        file: path,
        deploymentId: read.archive.deploymentId,
        slot: read.archive.slot,
        labels: manifest.labels,
        minContract: manifest.minContract,
        files: manifest.files.length,
      });
    }
    if (format === "json") {
      io.stdout(JSON.stringify({ deployments: entries, diagnostics: failures }, null, 2) + "\n");
    } else {
      io.stdout(formatTable(entries));
      for (const d of failures) io.stderr(printable(formatDiagnostic(d)) + "\n");
    }
    return failures.length > 0 ? 1 : 0;
  },
};

// C0 and C1 controls and DEL, which a terminal would act on instead of showing.
// deno-lint-ignore no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g;

/**
 * Text with every control character written as its JSON escape (`\u001b`),
 * the way a diagnostic's attributes already show it: names read from a
 * directory or from inside an archive reach the terminal as inert text.
 */
function printable(text: string): string {
  return text.replace(CONTROL, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

function formatTable(entries: readonly DeploymentEntry[]): string {
  if (entries.length === 0) return "no archives\n";
  const rows = [
    ["DEPLOYMENT ID", "SLOT", "LABELS", "FILE"],
    ...entries.map((e) =>
      [
        e.deploymentId,
        e.slot,
        Object.keys(e.labels).sort().map((k) => `${k}=${e.labels[k]}`).join(","),
        e.file,
      ].map(printable)
    ),
  ];
  const widths = [0, 1, 2].map((c) => Math.max(...rows.map((r) => r[c].length)));
  return rows.map((r) => r.map((cell, c) => (c < 3 ? cell.padEnd(widths[c]) : cell)).join("  "))
    .join("\n") + "\n";
}
