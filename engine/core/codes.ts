/**
 * The catalogue of diagnostic codes the engine and CLI emit. Every
 * `SUTRA.*` code literal in the source tree must appear here
 * (`codes_test.ts` enforces it), so this file doubles as the reference list
 * `docs/diagnostics.md` is checked against.
 *
 * @module
 */

/** Code → one-line meaning. Grouped by category; keep each group sorted. */
export const CODES = {
  // Command line
  "SUTRA.CLI.CONTEXT_INVALID":
    "A line of a `sutra explain --context` file is not `name: value` with a JSON or FEEL value.",
  "SUTRA.CLI.FILE_UNREADABLE": "A file named on the command line cannot be read.",
  "SUTRA.CLI.USAGE": "Unknown command, unknown flag or a missing/invalid argument.",
  // Configuration
  "SUTRA.CONFIG.FILE.UNREADABLE":
    "The configuration file named by SUTRA_CONFIG exists but cannot be read or parsed.",
  "SUTRA.CONFIG.PROPERTY.INVALID": "A configuration value failed its type or range check.",
  "SUTRA.CONFIG.PROPERTY.UNKNOWN":
    "A sutra.* key in the configuration file is not a known key (warning).",
  // Engine database
  "SUTRA.DB.MIGRATION.CHECKSUM_MISMATCH":
    "An applied migration's recorded checksum differs from the shipped script.",
  "SUTRA.DB.MIGRATION.FAILED": "A migration script failed; its transaction was rolled back.",
  "SUTRA.DB.MIGRATION.PENDING": "The database has migrations that are not applied yet.",
  "SUTRA.DB.MIGRATION.UNKNOWN_VERSION":
    "The ledger records a migration this engine does not ship (the database is newer).",
  "SUTRA.DB.UNREACHABLE": "The engine database could not be opened or connected to.",
  "SUTRA.DB.URL_INVALID":
    "The datasource URL is not a postgres://, postgresql://, file path or memory:// URL.",
  // FEEL
  "SUTRA.FEEL.INTERNAL": "A defect inside the FEEL library, reported instead of thrown.",
  "SUTRA.FEEL.NONDETERMINISTIC":
    "now()/today() where a replay-safe expression is required and no clock is supplied.",
  "SUTRA.FEEL.PARSE": "The text is not a well-formed FEEL expression or unary-test list.",
  // Engine lifecycle and HTTP
  "SUTRA.ENGINE.BOOT_FAILED": "The engine could not start; the message names the failing stage.",
  "SUTRA.HTTP.NOT_FOUND": "No route matches the request path.",
  "SUTRA.HTTP.METHOD_NOT_ALLOWED": "The route exists but not for this HTTP method.",
  "SUTRA.HTTP.LISTEN_FAILED": "The HTTP listener could not bind its port.",
  // Runtime
  "SUTRA.RUNTIME.UNEXPECTED": "An unexpected internal error, contained to one request or instance.",
  // Secrets
  "SUTRA.SECRET.REFERENCE_INVALID":
    "A secret reference is malformed or uses an unregistered scheme.",
  "SUTRA.SECRET.UNRESOLVED":
    "A secret reference names an environment variable or file that does not exist.",
} as const;

/** Every known diagnostic code. */
export type SutraCode = keyof typeof CODES;

/** True when `code` is in the catalogue. */
export function isKnownCode(code: string): code is SutraCode {
  return Object.hasOwn(CODES, code);
}
