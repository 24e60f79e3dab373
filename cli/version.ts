/**
 * `sutra version` (and `sutra --version`): the tool name and version, as
 * text or `--format json`.
 *
 * @module
 */
import { parseArgs } from "node:util";
import { ENGINE_VERSION } from "../engine/core/version.ts";
import { type CliIo, type Command, UsageError } from "./command.ts";
import { errorMessage } from "../engine/core/errors.ts";

/** Options for {@link versionCommand}. */
export interface VersionOptions {
  /** Name the tool reports (derived from the running binary by the dispatcher). */
  readonly programName: string;
}

/** Builds the `version` command for a program name. */
export function versionCommand(options: VersionOptions): Command {
  const name = options.programName;
  return {
    name: "version",
    summary: "Print the tool version",
    usage: `Usage: ${name} version [--format text|json]

Prints the tool name and version. --format json prints
{"name":…,"version":…,"engine":…}.`,
    run(args: readonly string[], io: CliIo): Promise<number> {
      const { values } = parseFlags(args);
      const format = values.format ?? "text";
      if (format === "json") {
        io.stdout(JSON.stringify({ name, version: ENGINE_VERSION, engine: ENGINE_VERSION }) + "\n");
      } else if (format === "text") {
        io.stdout(`${name} ${ENGINE_VERSION}\n`);
      } else {
        throw new UsageError(`--format must be text or json, not '${format}'`);
      }
      return Promise.resolve(0);
    },
  };
}

function parseFlags(args: readonly string[]) {
  try {
    return parseArgs({
      args: [...args],
      options: { format: { type: "string" } },
      strict: true,
      allowPositionals: false,
    });
  } catch (error) {
    throw new UsageError(errorMessage(error));
  }
}
