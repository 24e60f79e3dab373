/**
 * The diagnostic shape and codes of the DMN library.
 *
 * The shape mirrors the engine's one diagnostic type (code, severity,
 * message, source, attributes) without importing it, so this library stands
 * alone and the engine can pass its diagnostics on unchanged.
 *
 * @module
 */

/** How serious a diagnostic is. */
export type Severity = "ERROR" | "WARNING" | "INFO";

/** Where in a model file a diagnostic points (1-based line and column). */
export interface SourceLocation {
  /** The file or URI the model was loaded from. */
  readonly uri: string;
  /** 1-based line. */
  readonly line: number;
  /** 1-based column. */
  readonly column: number;
}

/** One problem found while loading, validating or evaluating a model. */
export interface DmnDiagnostic {
  /** Stable code shaped `SUTRA.DMN.<REASON>`. */
  readonly code: string;
  /** ERROR makes the element unusable; WARNING and INFO do not. */
  readonly severity: Severity;
  /** Human-readable explanation. */
  readonly message: string;
  /** Where the problem is, when it has a place in a file. */
  readonly source?: SourceLocation;
  /** Machine-readable facts: element id and name, the FEEL code behind a failure, … */
  readonly attributes?: Readonly<Record<string, string | number | boolean>>;
}

/** The diagnostic codes this library emits. */
export const DmnCode = {
  /** The file is not well-formed XML. */
  XML: "SUTRA.DMN.XML",
  /** The root element is not a DMN 1.1–1.5 `definitions` element. */
  NOT_DMN: "SUTRA.DMN.NOT_DMN",
  /** A required attribute or child element is missing or has an invalid value. */
  MALFORMED: "SUTRA.DMN.MALFORMED",
  /** A construct this engine does not evaluate (an unknown expression kind, a non-FEEL language). */
  UNSUPPORTED: "SUTRA.DMN.UNSUPPORTED",
  /** A FEEL expression or unary-test cell does not parse. */
  FEEL_SYNTAX: "SUTRA.DMN.FEEL_SYNTAX",
  /** Two elements of one model share an id, or two DRG elements share a name. */
  DUPLICATE: "SUTRA.DMN.DUPLICATE",
  /** A requirement, import or type reference names nothing that exists. */
  UNRESOLVED_REFERENCE: "SUTRA.DMN.UNRESOLVED_REFERENCE",
  /** A typeRef names no built-in type and no item definition. */
  UNKNOWN_TYPE: "SUTRA.DMN.UNKNOWN_TYPE",
  /** Decisions that require themselves, directly or through others. */
  CYCLE: "SUTRA.DMN.CYCLE",
  /** A decision table whose shape is inconsistent (cells per rule, hit policy, aggregation). */
  DECISION_TABLE: "SUTRA.DMN.DECISION_TABLE",
  /** The decision or decision service to evaluate does not exist. */
  UNKNOWN_DECISION: "SUTRA.DMN.UNKNOWN_DECISION",
  /** A defect inside this library, reported instead of throwing. */
  INTERNAL: "SUTRA.DMN.INTERNAL",
} as const;

/** Builds a diagnostic; `source` and `attributes` are left out when undefined. */
export function dmnDiagnostic(
  code: string,
  message: string,
  extra: {
    severity?: Severity;
    source?: SourceLocation;
    attributes?: Readonly<Record<string, string | number | boolean>>;
  } = {},
): DmnDiagnostic {
  return {
    code,
    severity: extra.severity ?? "ERROR",
    message,
    ...(extra.source === undefined ? {} : { source: extra.source }),
    ...(extra.attributes === undefined ? {} : { attributes: extra.attributes }),
  };
}
