/**
 * A `sutra` entry point with the package commands, for tests that run the
 * CLI as a real process in another working directory (the README's
 * commands use paths relative to the app folder).
 *
 * @module
 */
import "../../io/codecs/mod.ts";
import "../../io/secrets/mod.ts";
import { processIo } from "../../cli/main.ts";
import { createCommand } from "../../cli/create.ts";
import { deploymentsCommand } from "../../cli/deployments.ts";
import { DISTRIBUTION_TRANSPORTS, lintCommand } from "../../cli/lint.ts";
import { packageCommand } from "../../cli/package.ts";
import { DiagnosticError, formatDiagnostic } from "../../engine/core/diagnostic.ts";

const options = { transports: DISTRIBUTION_TRANSPORTS };
const commands = [
  createCommand(options),
  deploymentsCommand,
  lintCommand(options),
  packageCommand(options),
];

if (import.meta.main) {
  const [name, ...rest] = Deno.args;
  const command = commands.find((c) => c.name === name);
  if (!command) {
    console.error(`unknown command '${name}'`);
    Deno.exit(2);
  }
  try {
    Deno.exit(await command.run(rest, processIo));
  } catch (error) {
    if (!(error instanceof DiagnosticError)) throw error;
    for (const d of error.diagnostics) console.error(formatDiagnostic(d));
    Deno.exit(1);
  }
}

/** The command names this entry runs. */
export const COMMAND_NAMES: readonly string[] = commands.map((c) => c.name);
