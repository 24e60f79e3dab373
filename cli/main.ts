/**
 * The `sutra` command dispatcher: finds the command, handles `--help`
 * everywhere, takes the verbosity flags (`--quiet`, `-v`…) off every
 * command, and turns usage errors into a `SUTRA.CLI.USAGE` line with the
 * usage on stderr and exit 2 and diagnostics into one line each and exit 1.
 *
 * @module
 */
import { diagnostic, DiagnosticError, formatDiagnostic } from "../engine/core/diagnostic.ts";
import { transports as linkedTransports } from "../engine/core/transport.ts";
import { ENGINE_VERSION } from "../engine/core/version.ts";
import {
  asksJson,
  type CliIo,
  type Command,
  EXIT_USAGE,
  parseVerbosity,
  UsageError,
  verboseIo,
} from "./command.ts";
import { compatBaselineCommand } from "./compat_baseline.ts";
import { createCommand } from "./create.ts";
import { deployCommand, undeployCommand } from "./deploy.ts";
import { deploymentsCommand } from "./deployments.ts";
import { incidentsCommand } from "./incidents.ts";
import { instancesCommand } from "./instances.ts";
import { describeCommand } from "./describe.ts";
import { docgenCommand } from "./docgen.ts";
import { dispatchGraphCommand } from "./dispatch_graph.ts";
import { explainCommand } from "./explain.ts";
import { lintCommand } from "./lint.ts";
import { migrateCommand } from "./migrate.ts";
import { coverageCommand } from "./coverage.ts";
import { openapiCommand } from "./openapi.ts";
import { auditReplayCommand } from "./audit_replay.ts";
import { cryptoCommand } from "./crypto.ts";
import { packageCommand } from "./package.ts";
import { simulateCommand } from "./simulate.ts";
import { testCommand } from "./test_simulate.ts";
import { versionCommand } from "./version.ts";
import { errorMessage } from "../engine/core/errors.ts";

/** Options for {@link runCli}. */
export interface RunCliOptions {
  readonly io?: CliIo;
  /** Name printed in usage and `version` (defaults to the running binary's name). */
  readonly programName?: string;
}

/** The CLI's I/O bound to the real process. */
export const processIo: CliIo = {
  stdout: (text) => writeAll(Deno.stdout, text),
  stderr: (text) => writeAll(Deno.stderr, text),
  env: (name) => Deno.env.get(name),
  stdinLines: () => readLines(Deno.stdin.readable),
};

async function* readLines(stream: ReadableStream<Uint8Array>): AsyncIterable<string> {
  let buffer = "";
  for await (const chunk of stream.pipeThrough(new TextDecoderStream())) {
    buffer += chunk;
    let nl: number;
    while ((nl = buffer.indexOf("\n")) >= 0) {
      yield buffer.slice(0, nl).replace(/\r$/, "");
      buffer = buffer.slice(nl + 1);
    }
  }
  if (buffer !== "") yield buffer;
}

const encoder = new TextEncoder();

function writeAll(stream: { writeSync(p: Uint8Array): number }, text: string): void {
  const bytes = encoder.encode(text);
  let written = 0;
  while (written < bytes.length) written += stream.writeSync(bytes.subarray(written));
}

/** The program name from the running binary; `deno run cli.ts` reports `sutra`. */
export function programNameFromBinary(): string {
  const base = Deno.execPath().split(/[\\/]/).pop()?.replace(/\.exe$/i, "") ?? "sutra";
  return base === "deno" || base === "" ? "sutra" : base;
}

/** Every command, in help order. */
export function commands(programName: string): Command[] {
  // Channels are checked against the transports this binary links, as the engine checks them.
  const transports = linkedTransports;
  return [
    createCommand({ transports }),
    lintCommand({ transports }),
    packageCommand({ transports }),
    openapiCommand({ transports }),
    docgenCommand({ transports }),
    compatBaselineCommand({ transports }),
    deploymentsCommand,
    deployCommand({ transports }),
    undeployCommand,
    instancesCommand,
    incidentsCommand,
    describeCommand,
    dispatchGraphCommand,
    simulateCommand,
    testCommand,
    explainCommand,
    coverageCommand({ transports }),
    migrateCommand,
    cryptoCommand,
    auditReplayCommand,
    versionCommand({ programName }),
  ];
}

/** `--quiet` and `-v…` given before the command name move after it, where they are read. */
function commandFirst(argv: readonly string[]): readonly string[] {
  const lead = argv.findIndex((a) => a !== "--quiet" && !/^-v+$/.test(a));
  if (lead <= 0) return argv;
  return [argv[lead], ...argv.slice(0, lead), ...argv.slice(lead + 1)];
}

/** Runs the CLI with `argv` (without the program name); resolves to the exit code. */
export async function runCli(
  argv: readonly string[],
  options: RunCliOptions = {},
): Promise<number> {
  const io = options.io ?? processIo;
  const programName = options.programName ?? programNameFromBinary();
  const all = commands(programName);
  const [first, ...rest] = commandFirst(argv);

  if (first === undefined || first === "--help" || first === "-h" || first === "help") {
    if (first === "help" && rest.length > 0) return await runCli([rest[0], "--help"], options);
    io[first === undefined ? "stderr" : "stdout"](topUsage(programName, all));
    return first === undefined ? EXIT_USAGE : 0;
  }
  if (first === "--version" || first === "-V") {
    io.stdout(`${programName} ${ENGINE_VERSION}\n`);
    return 0;
  }
  const command = all.find((c) => c.name === first);
  if (!command) {
    const line = formatDiagnostic(
      diagnostic("SUTRA.CLI.USAGE", `${programName}: unknown command '${first}'`),
    );
    io.stderr(`${line}\n\n${topUsage(programName, all)}`);
    return EXIT_USAGE;
  }
  if (rest.includes("--help") || rest.includes("-h")) {
    io.stdout(command.usage + "\n");
    return 0;
  }
  try {
    const { verbosity, args } = parseVerbosity(rest);
    const keepStdout = command.documentOutput === true || asksJson(args);
    return await command.run(args, verboseIo(io, verbosity, keepStdout));
  } catch (error) {
    if (error instanceof UsageError) {
      const line = formatDiagnostic(
        diagnostic("SUTRA.CLI.USAGE", `${programName} ${command.name}: ${error.message}`),
      );
      io.stderr(`${line}\n\n${command.usage}\n`);
      return EXIT_USAGE;
    }
    if (error instanceof DiagnosticError) {
      for (const d of error.diagnostics) io.stderr(formatDiagnostic(d) + "\n");
      return 1;
    }
    const message = errorMessage(error);
    io.stderr(
      `ERROR SUTRA.RUNTIME.UNEXPECTED: ${programName} ${command.name} failed: ${message}\n`,
    );
    return 1;
  }
}

function topUsage(programName: string, all: readonly Command[]): string {
  const width = Math.max(...all.map((c) => c.name.length));
  const lines = all.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`);
  return `Usage: ${programName} <command> [options]

Commands:
${lines.join("\n")}

Every command also takes --quiet (errors and JSON output only) or -v, -vv,
-vvv (info, debug, trace logs on stderr).

Run '${programName} <command> --help' for a command's options.
`;
}
