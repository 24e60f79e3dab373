/**
 * The shape every CLI command group implements, and the I/O it writes to.
 * Commands never touch `Deno.stdout`/`Deno.exit` directly so tests can run
 * them in-process.
 *
 * @module
 */
import { DiagnosticError } from "../engine/core/diagnostic.ts";

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

/** Re-exported so commands can throw diagnostics without another import. */
export { DiagnosticError };
