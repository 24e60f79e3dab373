/**
 * The shape every CLI command group implements, and the I/O it writes to.
 * Commands never touch `Deno.stdout`/`Deno.exit` directly so tests can run
 * them in-process.
 *
 * @module
 */
import {
  type Diagnostic,
  diagnostic,
  DiagnosticError,
  formatDiagnostic,
} from "../engine/core/diagnostic.ts";
import { errorMessage } from "../engine/core/errors.ts";

/**
 * How much a command says on stderr besides its errors: `quiet` only errors,
 * `normal` also progress lines, then `info` (`-v`), `debug` (`-vv`) and
 * `trace` (`-vvv`).
 */
export type Verbosity = "quiet" | "normal" | "info" | "debug" | "trace";

const LEVELS: readonly Verbosity[] = ["quiet", "normal", "info", "debug", "trace"];

/** Where a command writes and what environment it sees. */
export interface CliIo {
  /** Report output (text or `--format json`). */
  stdout(text: string): void;
  /** Progress, logs and errors. */
  stderr(text: string): void;
  /** Environment lookup (injectable for tests). */
  env(name: string): string | undefined;
  /** Lines typed on standard input, for interactive commands (absent: no input). */
  stdinLines?(): AsyncIterable<string>;
  /** Set by the dispatcher from `--quiet`/`-v`…; absent means `normal`. */
  readonly verbosity?: Verbosity;
}

/** One top-level command (`sutra <name> …`). */
export interface Command {
  readonly name: string;
  /** One line for `sutra --help`. */
  readonly summary: string;
  /** Full usage text for `sutra <name> --help`. */
  readonly usage: string;
  /** Runs with the arguments after the command name; resolves to the exit code. */
  run(args: readonly string[], io: CliIo): Promise<number>;
  /**
   * True when stdout carries a document a caller pipes on (an OpenAPI file, a
   * catalogue, a graph, a JSON summary) rather than a human summary: it stays
   * on stdout under `--quiet`.
   */
  readonly documentOutput?: boolean;
}

/** Exit code for a usage error (unknown command, bad flag, bad argument). */
export const EXIT_USAGE = 2;

/** Thrown by argument parsing; the dispatcher prints usage and exits 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}

/** What {@link parseVerbosity} returns. */
export interface VerbosityArgs {
  readonly verbosity: Verbosity;
  /** The arguments with the verbosity flags taken out. */
  readonly args: string[];
}

/**
 * Takes `--quiet`, `-v`, `-vv` and `-vvv` out of a command's arguments
 * (anywhere before `--`). Repeated `-v` flags add up to at most three;
 * `--quiet` with any `-v` is a usage error.
 */
export function parseVerbosity(args: readonly string[]): VerbosityArgs {
  const rest: string[] = [];
  let quiet = false;
  let level = 0;
  let ended = false;
  for (const arg of args) {
    if (!ended && arg === "--quiet") quiet = true;
    else if (!ended && /^-v+$/.test(arg)) level += arg.length - 1;
    else {
      if (arg === "--") ended = true;
      rest.push(arg);
    }
  }
  if (quiet && level > 0) throw new UsageError("--quiet and -v… contradict each other; give one");
  if (level > 3) throw new UsageError("at most -vvv (trace); -v flags add up to three levels");
  return { verbosity: quiet ? "quiet" : LEVELS[level + 1], args: rest };
}

/** True when `io` prints lines of `level` (an io without a verbosity is `normal`). */
export function speaks(io: CliIo, level: Exclude<Verbosity, "quiet">): boolean {
  return LEVELS.indexOf(io.verbosity ?? "normal") >= LEVELS.indexOf(level);
}

/** A command's stderr log, filtered by the io's verbosity. */
export interface CliLog {
  /** A progress line, shown unless `--quiet`. */
  progress(text: string): void;
  /** `-v`: what the command reads and does. */
  info(text: string): void;
  /** `-vv`: resolved settings and timings. */
  debug(text: string): void;
  /** `-vvv`: every step (each request, each file's digest). */
  trace(text: string): void;
  /** Runs `work`, logging at debug how long it took. */
  timed<T>(what: string, work: () => Promise<T>): Promise<T>;
}

/** The log of command `scope` (the prefix of its lines) on `io`'s stderr. */
export function cliLog(io: CliIo, scope: string): CliLog {
  const at = (level: Exclude<Verbosity, "quiet" | "normal">) => (text: string) => {
    if (speaks(io, level)) io.stderr(`${level.toUpperCase()} ${scope}: ${text}\n`);
  };
  const debug = at("debug");
  return {
    progress: (text) => {
      if (speaks(io, "normal")) io.stderr(`${scope}: ${text}\n`);
    },
    info: at("info"),
    debug,
    trace: at("trace"),
    async timed(what, work) {
      if (!speaks(io, "debug")) return await work();
      const started = performance.now();
      try {
        return await work();
      } finally {
        debug(`${what} took ${(performance.now() - started).toFixed(1)} ms`);
      }
    },
  };
}

/**
 * The io a command runs with: its verbosity set, and under `--quiet` stdout
 * kept only for machine output (`--format json`, or a command whose stdout
 * is a document).
 */
export function verboseIo(io: CliIo, verbosity: Verbosity, keepStdout: boolean): CliIo {
  const quietStdout = verbosity === "quiet" && !keepStdout;
  return { ...io, verbosity, stdout: quietStdout ? () => {} : io.stdout };
}

/**
 * Writes the findings of a text report, one line each, on `to` (stdout
 * unless told); under `--quiet` only the ERRORs, and on stderr, since stdout
 * is silent then.
 */
export function writeFindings(
  io: CliIo,
  findings: readonly Diagnostic[],
  to: "stdout" | "stderr" = "stdout",
): void {
  const quiet = io.verbosity === "quiet";
  const write = quiet ? io.stderr : io[to];
  for (const d of findings) {
    if (!quiet || d.severity === "ERROR") write(formatDiagnostic(d) + "\n");
  }
}

/** `text` or `json`, from `--format`. */
export function formatFlag(value: string | undefined): "text" | "json" {
  const format = value ?? "text";
  if (format !== "text" && format !== "json") {
    throw new UsageError(`--format must be text or json, not '${format}'`);
  }
  return format;
}

/** True when `args` ask for `--format json`. */
export function asksJson(args: readonly string[]): boolean {
  return args.some((arg, i) =>
    arg === "--format=json" || (arg === "--format" && args[i + 1] === "json")
  );
}

/** A file a command was told to read, as bytes; one it cannot read is a `SUTRA.CLI.FILE_UNREADABLE` diagnostic. */
export async function readInputFile(path: string): Promise<Uint8Array> {
  try {
    return await Deno.readFile(path);
  } catch (error) {
    throw unreadable(path, error);
  }
}

/** A file a command was told to read, as text; one it cannot read is a `SUTRA.CLI.FILE_UNREADABLE` diagnostic. */
export async function readInputText(path: string): Promise<string> {
  try {
    return await Deno.readTextFile(path);
  } catch (error) {
    throw unreadable(path, error);
  }
}

function unreadable(path: string, error: unknown): DiagnosticError {
  return new DiagnosticError(diagnostic(
    "SUTRA.CLI.FILE_UNREADABLE",
    `cannot read ${path}: ${errorMessage(error)}`,
    { source: { uri: path } },
  ));
}

/** Re-exported so commands can throw diagnostics without another import. */
export { DiagnosticError };
