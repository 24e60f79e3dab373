/**
 * `sutra migrate [status|verify]`: applies the engine's schema migrations to
 * its database, or reports where the database stands against them.
 *
 * @module
 */
import {
  type Diagnostic,
  diagnostic,
  DiagnosticError,
  formatDiagnostic,
} from "../engine/core/diagnostic.ts";
import {
  type Database,
  DEFAULT_EMBEDDED_DIR,
  ENGINE_MIGRATIONS,
  mergeCredentials,
  migrate,
  type Migration,
  migrationStatus,
  type MigrationStatusEntry,
  openDatabase,
  resolveDatabaseTarget,
  verifyMigrations,
} from "../engine/persistence/mod.ts";
import { type CliIo, cliLog, type Command, formatFlag, UsageError } from "./command.ts";
import { parseCommandArgs, stringFlag } from "./describe.ts";

/** Options for {@link createMigrateCommand}. */
export interface MigrateCommandOptions {
  /** Embedded directory used when no URL is given (default `./.sutra/engine-db`). */
  readonly defaultDataDir?: string;
  /** The migrations to apply and check against (default: the engine's own). */
  readonly migrations?: readonly Migration[];
}

const USAGE = `Usage: sutra migrate [status|verify] [options]

Applies the engine's schema migrations to its database (no sub-command), or
inspects them:
  status   every migration with its state (applied, pending, mismatch, unknown)
  verify   exit 0 when the database is exactly at this engine's migrations,
           otherwise exit 1 and print every problem

Options:
  --url URL          database URL (env SUTRA_DB_URL): postgres://…, postgresql://…,
                     file://<dir> or memory://; without one, the embedded
                     database in $SUTRA_DATASOURCE_EMBEDDED_DIR, else
                     ${DEFAULT_EMBEDDED_DIR}
  --user USER        user merged into a server URL (env SUTRA_DB_USERNAME)
  --password PASS    password merged into a server URL (env SUTRA_DB_PASSWORD)
  --schema SCHEMA    schema holding the engine's tables (env SUTRA_DB_SCHEMA)
  --dry-run          list what would be applied and change nothing
  --format text|json report format (default text)
  -h, --help         this text`;

/** The engine's own variable for its embedded directory, read when no URL is given. */
const EMBEDDED_DIR_ENV = "SUTRA_DATASOURCE_EMBEDDED_DIR";

type SubCommand = "apply" | "status" | "verify";

interface Invocation {
  readonly sub: SubCommand;
  readonly format: "text" | "json";
  readonly dryRun: boolean;
  readonly url: string | undefined;
  readonly schema: string | undefined;
}

/** Builds the `migrate` command; tests point it at their own directory and migrations. */
export function createMigrateCommand(options: MigrateCommandOptions = {}): Command {
  const migrations = options.migrations ?? ENGINE_MIGRATIONS;
  return {
    name: "migrate",
    summary: "Apply or inspect the engine database's schema migrations",
    usage: USAGE,
    async run(args: readonly string[], io: CliIo): Promise<number> {
      const invocation = parseInvocation(args, io);
      if (invocation === "help") {
        io.stdout(USAGE + "\n");
        return 0;
      }
      const log = cliLog(io, "migrate");
      // The URL may carry a password: the opened database's description is logged instead.
      log.debug(
        `${invocation.sub}${invocation.dryRun ? " (dry run)" : ""}; schema ` +
          `${invocation.schema ?? "default"}; format ${invocation.format}`,
      );
      log.info(`${migrations.length} migration(s) in this engine`);
      for (const m of migrations) {
        log.trace(`migration ${m.version} ${m.name}: ${m.sql.length} chars`);
      }
      // Without a URL the embedded database is where the engine keeps it, by the engine's variable.
      const dataDir = io.env(EMBEDDED_DIR_ENV) || options.defaultDataDir;
      let db: Database | undefined;
      try {
        db = await log.timed(
          "opening the database",
          () => openDatabase(invocation.url, { schema: invocation.schema, dataDir }),
        );
        log.info(`database ${db.description}`);
        const report = new Report(io, invocation.format, db.description);
        const open = db;
        switch (invocation.sub) {
          case "apply":
            return await log.timed(
              "applying",
              () => runApply(open, migrations, invocation.dryRun, report),
            );
          case "status":
            return report.status(
              await log.timed("reading the ledger", () => migrationStatus(open, migrations)),
            );
          case "verify":
            return report.verify(
              await log.timed("verifying the ledger", () => verifyMigrations(open, migrations)),
              migrations.length,
            );
        }
      } catch (error) {
        if (!(error instanceof DiagnosticError)) throw error;
        const problems = db
          ? error.diagnostics
          : explainHeld(error.diagnostics, invocation.url, { dataDir });
        return new Report(io, invocation.format, db?.description).problems(problems);
      } finally {
        await db?.close();
      }
    },
  };
}

/** The `migrate` command with the engine's migrations and default embedded directory. */
export const migrateCommand: Command = createMigrateCommand();

/**
 * The embedded database serves one process at a time, so while an engine
 * runs on it this command cannot open it: say so, and what to do instead,
 * rather than passing on a bare "unreachable".
 */
function explainHeld(
  diagnostics: readonly Diagnostic[],
  url: string | undefined,
  options: { dataDir?: string },
): readonly Diagnostic[] {
  const [first] = diagnostics;
  // The open's own wording for a directory another process holds (pinned by open_test.ts).
  if (
    first?.code !== "SUTRA.DB.UNREACHABLE" || !/is in use by another process/.test(first.message)
  ) {
    return diagnostics;
  }
  const target = resolveDatabaseTarget(url, options);
  if (target.kind !== "directory") return diagnostics;
  return [diagnostic(
    "SUTRA.CLI.MIGRATE.ENGINE_RUNNING",
    `embedded database ${target.path} is in use by another process, most likely a running ` +
      "engine: the embedded database serves one process at a time. Either stop the engine and " +
      "run this command again; or ask the running engine, " +
      "which applies its migrations when it starts: `curl -sS http://127.0.0.1:8080/sutra/health/ready` " +
      "(its port, SUTRA_HTTP_PORT) shows the schema version under the 'migrations' check; or " +
      "run the engine and this command on a PostgreSQL server (--url postgres://…), which " +
      "serves both at once",
    { attributes: { directory: target.path } },
  )];
}

function parseInvocation(args: readonly string[], io: CliIo): Invocation | "help" {
  const parsed = parseCommandArgs(args, {
    url: { type: "string" },
    user: { type: "string" },
    password: { type: "string" },
    schema: { type: "string" },
    "dry-run": { type: "boolean" },
    format: { type: "string" },
    help: { type: "boolean", short: "h" },
  });
  const { positionals } = parsed;
  if (parsed.flags.help === true) return "help";
  if (positionals.length > 1) {
    throw new UsageError(`expected at most one sub-command, got '${positionals.join(" ")}'`);
  }
  const [word] = positionals;
  if (word !== undefined && word !== "status" && word !== "verify") {
    throw new UsageError(
      `unknown sub-command '${word}' (expected status or verify, or none to apply)`,
    );
  }
  const sub: SubCommand = word ?? "apply";
  const format = formatFlag(stringFlag(parsed, "format"));
  const dryRun = parsed.flags["dry-run"] === true;
  if (dryRun && word !== undefined) {
    throw new UsageError(`--dry-run only applies without a sub-command`);
  }

  const setting = (flag: string, env: string) =>
    stringFlag(parsed, flag) ?? (io.env(env) || undefined);
  const url = setting("url", "SUTRA_DB_URL");
  const username = setting("user", "SUTRA_DB_USERNAME");
  const password = setting("password", "SUTRA_DB_PASSWORD");
  return {
    sub,
    format,
    dryRun,
    url: url === undefined ? undefined : mergeCredentials(url, { username, password }),
    schema: setting("schema", "SUTRA_DB_SCHEMA"),
  };
}

async function runApply(
  db: Database,
  migrations: readonly Migration[],
  dryRun: boolean,
  report: Report,
): Promise<number> {
  const applied = await migrate(db, migrations, { dryRun });
  const head = Math.max(0, ...migrations.map((m) => m.version));
  return report.applied(applied, dryRun, head);
}

function summarize(m: Migration): { version: number; name: string } {
  return { version: m.version, name: m.name };
}

/** Renders each outcome as text or JSON and picks the exit code. */
class Report {
  constructor(
    private readonly io: CliIo,
    private readonly format: "text" | "json",
    private readonly database: string | undefined,
  ) {}

  applied(applied: readonly Migration[], dryRun: boolean, head: number): number {
    if (this.format === "json") {
      const key = dryRun ? "pending" : "applied";
      this.#json({ ok: true, database: this.database, dryRun, [key]: applied.map(summarize) });
      return 0;
    }
    const verb = dryRun ? "would apply" : "applied";
    const lines = applied.map((m) => `${verb} ${m.version} ${m.name}`);
    if (applied.length === 0) lines.push(`${this.database} is up to date at version ${head}`);
    else if (!dryRun) lines.push(`${this.database} is now at version ${head}`);
    this.io.stdout(lines.join("\n") + "\n");
    return 0;
  }

  status(entries: readonly MigrationStatusEntry[]): number {
    if (this.format === "json") {
      this.#json({ ok: true, database: this.database, migrations: entries });
      return 0;
    }
    const rows = [
      ["VERSION", "NAME", "STATE", "APPLIED AT"],
      ...entries.map((e) => [
        String(e.version),
        e.name,
        e.state,
        e.appliedAt?.toISOString() ?? "-",
      ]),
    ];
    const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
    const table = rows.map((r) => r.map((cell, i) => cell.padEnd(widths[i])).join("  ").trimEnd());
    this.io.stdout(`database: ${this.database}\n${table.join("\n")}\n`);
    return 0;
  }

  verify(diagnostics: readonly Diagnostic[], shipped: number): number {
    if (diagnostics.length > 0) return this.problems(diagnostics);
    if (this.format === "json") this.#json({ ok: true, database: this.database, diagnostics: [] });
    else this.io.stdout(`ok: ${this.database} matches this engine's ${shipped} migration(s)\n`);
    return 0;
  }

  problems(diagnostics: readonly Diagnostic[]): number {
    if (this.format === "json") {
      this.#json({ ok: false, database: this.database, diagnostics });
    } else {
      for (const d of diagnostics) this.io.stderr(formatDiagnostic(d) + "\n");
    }
    return 1;
  }

  #json(value: Record<string, unknown>): void {
    this.io.stdout(JSON.stringify(value) + "\n");
  }
}
