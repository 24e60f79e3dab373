/**
 * The diagnostic shape and codes of the `.srl` rule language.
 *
 * The shape mirrors the engine's one diagnostic type (code, severity,
 * message, source, attributes) without importing it: this library stands
 * alone, and the engine can pass these objects on unchanged.
 *
 * @module
 */

/** How serious a diagnostic is. */
export type Severity = "ERROR" | "WARNING" | "INFO";

/** Where in a ruleset file a diagnostic points (1-based line and column). */
export interface SourceLocation {
  /** The file or URN the ruleset was loaded from. */
  readonly uri: string;
  /** 1-based line. */
  readonly line: number;
  /** 1-based column, in UTF-16 code units. */
  readonly column: number;
}

/** One problem found while parsing or evaluating a ruleset. */
export interface SrlDiagnostic {
  /** Stable code shaped `SUTRA.SRL.<REASON>`. */
  readonly code: string;
  /** Parse and evaluation failures are always ERROR. */
  readonly severity: Severity;
  /** Human-readable explanation. */
  readonly message: string;
  /** Where the problem is. */
  readonly source?: SourceLocation;
  /** Machine-readable facts: the rule name, the FEEL code behind the failure, the action. */
  readonly attributes?: Readonly<Record<string, string | number | boolean>>;
}

/** The diagnostic codes this library emits. */
export const SrlCode = {
  /** The rule framing is malformed (missing `when`, unterminated string, stray token, …). */
  PARSE: "SUTRA.SRL.PARSE",
  /** `insert` or `retract`: reserved for a future stateful phase. */
  RESERVED_ACTION: "SUTRA.SRL.RESERVED_ACTION",
  /** An action verb other than `report` and `set`. */
  UNKNOWN_ACTION: "SUTRA.SRL.UNKNOWN_ACTION",
  /** An action with the wrong number of arguments, or a `set` target that is not a name. */
  ACTION_ARGUMENTS: "SUTRA.SRL.ACTION_ARGUMENTS",
  /** An embedded FEEL condition or argument does not parse. */
  EXPRESSION: "SUTRA.SRL.EXPRESSION",
  /** Two rules share one name, so diagnostics and traces could not tell them apart. */
  DUPLICATE_RULE: "SUTRA.SRL.DUPLICATE_RULE",
  /** A condition failed to evaluate or did not give a boolean. */
  CONDITION_FAILED: "SUTRA.SRL.CONDITION_FAILED",
  /** An action argument failed to evaluate or has the wrong type. */
  ACTION_FAILED: "SUTRA.SRL.ACTION_FAILED",
  /** A defect inside this library, reported instead of throwing. */
  INTERNAL: "SUTRA.SRL.INTERNAL",
} as const;

/** Builds an ERROR diagnostic. */
export function srlError(
  code: string,
  message: string,
  source?: SourceLocation,
  attributes?: Readonly<Record<string, string | number | boolean>>,
): SrlDiagnostic {
  return {
    code,
    severity: "ERROR",
    message,
    ...(source === undefined ? {} : { source }),
    ...(attributes === undefined ? {} : { attributes }),
  };
}
