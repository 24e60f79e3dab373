/**
 * `sutra openapi ARCHIVE|DIR`: prints the OpenAPI 3.1 document of a
 * package's HTTP channels (see `engine/package/openapi.ts`) — the document
 * the engine serves for the deployment at
 * `GET /sutra/deployments/{id}/openapi.json`.
 *
 * @module
 */
import { openApiDocument } from "../engine/package/openapi.ts";
import { cliLog, type Command, UsageError } from "./command.ts";
import { parseCommandArgs } from "./describe.ts";
import type { PackageCommandOptions } from "./lint.ts";
import { loadPackageSource } from "./package_source.ts";

const USAGE = `Usage: sutra openapi ARCHIVE|DIR

Prints the OpenAPI 3.1 document (JSON) of the HTTP channels of a sealed
.sutra archive or a package directory: one POST operation per channel, its
request body from the channel codec's message types, its answers (the
process's q:reply, or the receipt of an on-persist channel) and the refusals
the engine answers with, and the channel's auth as a security scheme.
Channels on other transports and the data stores are listed under the
x-sutra-channels and x-sutra-datastores extensions. A package with errors is
refused with its diagnostics (exit 1).`;

/** The `openapi` command. */
export function openapiCommand(options: PackageCommandOptions): Command {
  return {
    name: "openapi",
    summary: "Print the OpenAPI 3.1 document of a package's HTTP channels",
    usage: USAGE,
    documentOutput: true,
    async run(args, io) {
      const { positionals } = parseCommandArgs(args, {});
      if (positionals.length !== 1) {
        throw new UsageError(
          positionals.length === 0
            ? "an archive or a package directory is required"
            : "give exactly one archive or package directory",
        );
      }
      const source = await loadPackageSource(positionals[0], {
        ...options,
        log: cliLog(io, "openapi"),
      });
      const document = openApiDocument(source.package, {
        ...(source.deploymentId ? { deploymentId: source.deploymentId } : {}),
      });
      io.stdout(JSON.stringify(document, null, 2) + "\n");
      return 0;
    },
  };
}
