/**
 * The diagnostic shape and codes of template loading and rendering.
 *
 * The shape mirrors the engine's one diagnostic type (code, severity,
 * message, source, attributes) without importing it, so this library stands
 * alone and the engine can pass these objects on unchanged.
 *
 * @module
 */

/** How serious a diagnostic is. */
export type Severity = "ERROR" | "WARNING" | "INFO";

/** Where in a template file a diagnostic points. */
export interface SourceLocation {
  /** The file or URN the template came from. */
  readonly uri: string;
  /** 1-based line, when the engine behind the template reports one. */
  readonly line?: number;
  /** 1-based column, when known. */
  readonly column?: number;
}

/** One problem found while loading or rendering a template. */
export interface TemplateDiagnostic {
  /** Stable code shaped `SUTRA.TEMPLATE.<REASON>`. */
  readonly code: string;
  /** Load and render failures are ERROR. */
  readonly severity: Severity;
  /** Human-readable explanation. */
  readonly message: string;
  /** Where the problem is. */
  readonly source?: SourceLocation;
  /** Machine-readable facts: the template key, the engine's own error code. */
  readonly attributes?: Readonly<Record<string, string | number | boolean>>;
}

/** The diagnostic codes this library emits. */
export const TemplateCode = {
  /** A template does not compile (Handlebars syntax, XSLT static error, malformed XML). */
  COMPILE: "SUTRA.TEMPLATE.COMPILE",
  /** A file whose extension is not `.hbs`, `.xsl` or `.xslt`. */
  UNSUPPORTED: "SUTRA.TEMPLATE.UNSUPPORTED",
  /** Two sources were loaded under one key. */
  DUPLICATE_KEY: "SUTRA.TEMPLATE.DUPLICATE_KEY",
  /** A Handlebars template names a partial that no loaded template provides. */
  UNKNOWN_PARTIAL: "SUTRA.TEMPLATE.UNKNOWN_PARTIAL",
  /** A render asked for a key that was not loaded (or did not compile). */
  UNKNOWN: "SUTRA.TEMPLATE.UNKNOWN",
  /** Rendering failed: a helper rejected its input, or an XSLT dynamic error. */
  RENDER: "SUTRA.TEMPLATE.RENDER",
  /** The rendered body is not what its content type promises (JSON that does not parse, XML that is not well-formed). */
  INVALID_OUTPUT: "SUTRA.TEMPLATE.INVALID_OUTPUT",
  /** The XML source document handed to an XSLT render is not well-formed, or was given to a Handlebars template. */
  SOURCE_INVALID: "SUTRA.TEMPLATE.SOURCE_INVALID",
} as const;

/** Builds an ERROR diagnostic. */
export function templateError(
  code: string,
  message: string,
  source?: SourceLocation,
  attributes?: Readonly<Record<string, string | number | boolean>>,
): TemplateDiagnostic {
  return {
    code,
    severity: "ERROR",
    message,
    ...(source === undefined ? {} : { source }),
    ...(attributes === undefined ? {} : { attributes }),
  };
}
