/**
 * Diagnostic codes: decoded input limits (see docs/limits.md) and the CLI
 * fixes of the same round (docs/cli.md).
 * Part of the catalogue in `codes.ts`.
 *
 * @module
 */

/** Code → one-line meaning; keep sorted. */
export const INPUT_CODES = {
  "SUTRA.CLI.MIGRATE.ENGINE_RUNNING":
    "sutra migrate cannot open the embedded database a running engine holds; says what to do.",
  "SUTRA.INPUT.ALIAS.ILL_FORMED": "An alias value holds a lone surrogate (422; nothing written).",
  "SUTRA.INPUT.ALIAS.NUL": "An alias value holds a NUL character (422; nothing written).",
  "SUTRA.INPUT.ALIAS.TOO_LONG": "An alias value is longer than 512 bytes of UTF-8 (422).",
  "SUTRA.INPUT.STORE_KEY.ILL_FORMED": "A data-store key holds a lone surrogate (422).",
  "SUTRA.INPUT.STORE_KEY.NUL": "A data-store key holds a NUL character (422; nothing written).",
  "SUTRA.INPUT.STORE_KEY.TOO_LONG": "A data-store key is longer than 512 bytes of UTF-8 (422).",
  "SUTRA.PARSE.JSON.TOO_DEEP":
    "JSON arrays and objects nest deeper than 512 levels (line, column).",
  "SUTRA.PARSE.NUMBER.OUT_OF_RANGE":
    "A decoded number is too large to be a number at all (JSON 1e400, YAML .inf or .nan) (JSON pointer).",
  "SUTRA.PARSE.TEXT.LONE_SURROGATE":
    "A decoded string or member name holds a lone surrogate (JSON pointer).",
  "SUTRA.PARSE.YAML.TOO_DEEP":
    "YAML collections nest deeper than 512 levels, or an alias holds itself.",
} as const;
