/**
 * Diagnostic codes: compiled flavours, permissions and the engine command line (see docs/install.md).
 * Part of the catalogue in `codes.ts`.
 *
 * @module
 */

/** Code → one-line meaning; keep sorted. */
export const SHIPPING_CODES = {
  "SUTRA.BUILD.COMPILE_FAILED": "`deno compile` (or `deno install`) exited with an error.",
  "SUTRA.BUILD.DENORT_MISSING":
    "`deno compile` needs a denort runtime: DENORT_BIN is unset or names no file.",
  "SUTRA.BUILD.FLAVOUR_UNKNOWN": "`--flavour` names a flavour the build does not define.",
  "SUTRA.BUILD.TRANSPORT_UNKNOWN":
    "`--transports` names a transport the build table does not know, or none this tree has.",
  "SUTRA.BUILD.USAGE": "An unknown option or a bad value on the compile or install command line.",
  "SUTRA.ENGINE.PERMISSION_DENIED":
    "The engine was asked to do something its build's permissions do not allow (a host, a path).",
} as const;
