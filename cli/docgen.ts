/**
 * `sutra docgen --input DIR [--output FILE] [--check]`: the markdown
 * catalogue of a package (see `engine/package/docgen.ts`), printed, written
 * to FILE, or — with `--check` — compared with FILE without writing
 * anything, so a CI or pre-commit hook can refuse a stale catalogue.
 *
 * @module
 */
import { diagnostic, formatDiagnostic } from "../engine/core/diagnostic.ts";
import { errorMessage } from "../engine/core/errors.ts";
import { catalogue } from "../engine/package/docgen.ts";
import { cliLog, type Command, DiagnosticError, UsageError } from "./command.ts";
import { parseCommandArgs, stringFlag } from "./describe.ts";
import type { PackageCommandOptions } from "./lint.ts";
import { loadPackageSource } from "./package_source.ts";

const USAGE = `Usage: sutra docgen --input DIR [--output FILE] [--check]

Prints a markdown catalogue of the package directory DIR: its processes
(start events, the nodes a running instance waits on, tasks and what
implements them, coverage paths), channels, message types with their
fields, decisions and rulesets, templates, data stores and coverage files.
The text depends only on the package, so it can be committed.

  --output FILE  write the catalogue to FILE instead of printing it
  --check        write nothing; exit 1 with SUTRA.DOCGEN.STALE when FILE
                 (which --output names) differs from the catalogue`;

/** The `docgen` command. */
export function docgenCommand(options: PackageCommandOptions): Command {
  return {
    name: "docgen",
    summary: "Generate (or check) the markdown catalogue of a package",
    usage: USAGE,
    documentOutput: true,
    async run(args, io) {
      const parsed = parseCommandArgs(args, {
        input: { type: "string" },
        output: { type: "string" },
        check: { type: "boolean" },
      });
      if (parsed.positionals.length > 0) {
        throw new UsageError(`unexpected argument '${parsed.positionals[0]}'`);
      }
      const input = stringFlag(parsed, "input");
      if (input === undefined) throw new UsageError("--input DIR is required");
      const output = stringFlag(parsed, "output");
      const check = parsed.flags.check === true;
      if (check && output === undefined) {
        throw new UsageError("--check compares with a file: name it with --output");
      }
      if (!(await isDirectory(input))) {
        throw new DiagnosticError(diagnostic(
          "SUTRA.CLI.FILE_UNREADABLE",
          `--input ${input} is not a package directory`,
          { source: { uri: input } },
        ));
      }
      const log = cliLog(io, "docgen");
      log.debug(`input ${input}; output ${output ?? "stdout"}; check ${check}`);
      const text = catalogue((await loadPackageSource(input, { ...options, log })).package);
      if (output === undefined) {
        io.stdout(text);
        return 0;
      }
      if (check) {
        const committed = await Deno.readTextFile(output).catch(() => undefined);
        if (committed === text) return 0;
        io.stderr(
          formatDiagnostic(diagnostic(
            "SUTRA.DOCGEN.STALE",
            committed === undefined
              ? `${output} does not exist; run sutra docgen --input ${input} --output ${output}`
              : `${output} is not the catalogue of ${input}; run sutra docgen --input ${input} --output ${output}`,
            { source: { uri: output } },
          )) + "\n",
        );
        return 1;
      }
      try {
        await Deno.writeTextFile(output, text);
      } catch (error) {
        throw new DiagnosticError(diagnostic(
          "SUTRA.CLI.FILE_UNWRITABLE",
          `cannot write ${output}: ${errorMessage(error)}`,
          { source: { uri: output } },
        ));
      }
      log.progress(`wrote ${output}`);
      return 0;
    },
  };
}

async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await Deno.stat(path)).isDirectory;
  } catch {
    return false;
  }
}
