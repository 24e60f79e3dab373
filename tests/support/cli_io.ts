/**
 * A CliIo that records what a command writes, for running CLI commands
 * in-process in tests.
 *
 * @module
 */
import type { CliIo } from "../../cli/command.ts";

/** What {@link captureIo} returns: the io to pass in and readers for the output. */
export interface CapturedIo {
  readonly io: CliIo;
  /** Everything written to stdout so far. */
  out(): string;
  /** Everything written to stderr so far. */
  err(): string;
}

/** Options for {@link captureIo}. */
export interface CaptureIoOptions {
  /** Environment the command sees (nothing else). */
  readonly env?: Readonly<Record<string, string>>;
  /** Lines the command reads from stdin. */
  readonly stdin?: readonly string[];
}

/** A recording CliIo. */
export function captureIo(options: CaptureIoOptions = {}): CapturedIo {
  const out: string[] = [];
  const err: string[] = [];
  const stdin = options.stdin ?? [];
  const io: CliIo = {
    stdout: (t) => out.push(t),
    stderr: (t) => err.push(t),
    env: (name) => options.env?.[name],
    stdinLines: async function* () {
      for (const line of stdin) yield line;
    },
  };
  return { io, out: () => out.join(""), err: () => err.join("") };
}
