/**
 * `sutra compat-baseline --baseline DIR|ARCHIVE --current DIR|ARCHIVE`:
 * lists every change from the baseline revision of a package to the current
 * one that breaks running instances or callers (see
 * `engine/package/compat.ts`), one line each with its code, and exits 1
 * when there is any — a CI gate between releases.
 *
 * @module
 */

import { compareRevisions } from "../engine/package/compat.ts";
import { cliLog, type Command, formatFlag, UsageError, writeFindings } from "./command.ts";
import { parseCommandArgs, stringFlag } from "./describe.ts";
import { type PackageCommandOptions } from "./lint.ts";
import { loadPackageSource } from "./package_source.ts";

const USAGE =
  `Usage: sutra compat-baseline --baseline DIR|ARCHIVE --current DIR|ARCHIVE [--format text|json]

Compares the current revision of a package (a directory or a sealed archive)
with a baseline revision and lists every change that breaks instances
started on the baseline or the callers of its channels, each with its code:
SUTRA.COMPAT.PROCESS_REMOVED, SUTRA.COMPAT.WAIT_NODE_REMOVED,
SUTRA.COMPAT.CHANNEL_REMOVED, SUTRA.COMPAT.CHANNEL_CHANGED,
SUTRA.COMPAT.MESSAGE_TYPE_CHANGED and SUTRA.COMPAT.SCHEMA_NARROWED.
Additions are compatible. Exits 0 when nothing breaks, 1 when something
does (or a revision has errors of its own).`;

/** The `compat-baseline` command. */
export function compatBaselineCommand(options: PackageCommandOptions): Command {
  return {
    name: "compat-baseline",
    summary: "List the breaking changes between two revisions of a package",
    usage: USAGE,
    async run(args, io) {
      const parsed = parseCommandArgs(args, {
        baseline: { type: "string" },
        current: { type: "string" },
        format: { type: "string" },
      });
      const format = formatFlag(stringFlag(parsed, "format"));
      if (parsed.positionals.length > 0) {
        throw new UsageError(`unexpected argument '${parsed.positionals[0]}'`);
      }
      const baselinePath = stringFlag(parsed, "baseline");
      const currentPath = stringFlag(parsed, "current");
      if (baselinePath === undefined) throw new UsageError("--baseline is required");
      if (currentPath === undefined) throw new UsageError("--current is required");
      const log = cliLog(io, "compat-baseline");
      log.debug(`baseline ${baselinePath}; current ${currentPath}; format ${format}`);
      const baseline = await loadPackageSource(baselinePath, { ...options, log });
      const current = await loadPackageSource(currentPath, { ...options, log });
      const found = compareRevisions(baseline.package, current.package);
      if (format === "json") {
        io.stdout(
          JSON.stringify({ compatible: found.length === 0, breaking: found }, null, 2) + "\n",
        );
      } else {
        writeFindings(io, found);
        io.stdout(
          found.length === 0
            ? `compatible: nothing in ${currentPath} breaks ${baselinePath}\n`
            : `${found.length} breaking change(s)\n`,
        );
      }
      return found.length === 0 ? 0 : 1;
    },
  };
}
