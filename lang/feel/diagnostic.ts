/**
 * Diagnostics reported by the FEEL parser and compiler.
 *
 * A diagnostic is data, never an exception: the public API returns them so a
 * caller (the CLI, a deploy-time validator, an editor) can show every problem
 * with its position.
 *
 * @module
 */

/** How serious a diagnostic is. */
export type Severity = "ERROR" | "WARNING" | "INFO";

/** Where in the expression text a diagnostic points (line and column are 1-based). */
export interface SourcePosition {
  /** 1-based line number. */
  readonly line: number;
  /** 1-based column, counted in UTF-16 code units like most editors do. */
  readonly column: number;
  /** 0-based offset into the expression text. */
  readonly offset: number;
  /** The document the expression came from, when the caller named one. */
  readonly uri?: string;
}

/** One problem found in a FEEL expression. */
export interface Diagnostic {
  /** Stable code shaped `SUTRA.FEEL.<REASON>`. */
  readonly code: string;
  /** ERROR stops compilation; WARNING and INFO do not. */
  readonly severity: Severity;
  /** Human-readable explanation. */
  readonly message: string;
  /** Position in the expression text, when the problem has one. */
  readonly source?: SourcePosition;
}

/** The diagnostic codes this library emits. */
export const FeelCode = {
  /** The text is not a well-formed FEEL expression or unary-test list. */
  PARSE: "SUTRA.FEEL.PARSE",
  /** `now()`/`today()` used where determinism is required and no clock was supplied. */
  NONDETERMINISTIC: "SUTRA.FEEL.NONDETERMINISTIC",
  /** A defect inside the library itself; reported instead of throwing out of the API. */
  INTERNAL: "SUTRA.FEEL.INTERNAL",
} as const;

/** Builds an ERROR diagnostic. */
export function errorDiagnostic(
  code: string,
  message: string,
  source?: SourcePosition,
): Diagnostic {
  return source === undefined
    ? { code, severity: "ERROR", message }
    : { code, severity: "ERROR", message, source };
}
