/**
 * The one diagnostic shape every layer reports with, and the error that
 * carries a list of them across a boundary.
 *
 * @module
 */

/** How serious a diagnostic is. */
export type Severity = "ERROR" | "WARNING" | "INFO";

/** Where in a source artifact a diagnostic points. */
export interface SourceLocation {
  /** File path or URN of the artifact. */
  readonly uri: string;
  /** 1-based line, when known. */
  readonly line?: number;
  /** 1-based column, when known. */
  readonly column?: number;
}

/** A structured finding: `SUTRA.<CATEGORY>.<REASON>` plus what and where. */
export interface Diagnostic {
  readonly code: string;
  readonly severity: Severity;
  readonly message: string;
  readonly source?: SourceLocation;
  /** Flat map of extra facts (key, value, limit, …) for machines to read. */
  readonly attributes?: Readonly<Record<string, string | number | boolean>>;
}

/** Options for {@link diagnostic}. */
export interface DiagnosticOptions {
  readonly severity?: Severity;
  readonly source?: SourceLocation;
  readonly attributes?: Readonly<Record<string, string | number | boolean>>;
}

const CODE_SHAPE = /^SUTRA(\.[A-Z0-9_]+){2,}$/;

/** Builds a diagnostic, checking the code's shape (severity defaults to ERROR). */
export function diagnostic(
  code: string,
  message: string,
  options: DiagnosticOptions = {},
): Diagnostic {
  if (!CODE_SHAPE.test(code)) {
    throw new Error(`diagnostic code '${code}' is not shaped SUTRA.<CATEGORY>.<REASON>`);
  }
  const d: { -readonly [K in keyof Diagnostic]: Diagnostic[K] } = {
    code,
    severity: options.severity ?? "ERROR",
    message: clipped(printable(message), MAX_MESSAGE),
  };
  if (options.source) {
    d.source = { ...options.source, uri: clipped(printable(options.source.uri), MAX_VALUE) };
  }
  if (options.attributes && Object.keys(options.attributes).length > 0) {
    d.attributes = Object.fromEntries(
      Object.entries(options.attributes).map((
        [k, v],
      ) => [k, typeof v === "string" ? clipped(v, MAX_VALUE) : v]),
    );
  }
  return d;
}

// Diagnostics quote what they refuse, and what they refuse may be hostile: a value of megabytes, or
// control characters that would drive the terminal that prints the line. Both are cut down to
// something a person can read; the full value stays with its sender.
const MAX_MESSAGE = 4_000;
const MAX_VALUE = 1_000;

// deno-lint-ignore no-control-regex
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

/** `text` with its control characters (line breaks and tabs kept) written as `\u` escapes. */
function printable(text: string): string {
  return text.replace(CONTROL, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/** `text` cut to `max` characters (never inside a surrogate pair), saying how much was left off. */
function clipped(text: string, max: number): string {
  if (text.length <= max) return text;
  const end = /[\ud800-\udbff]/.test(text[max - 1]) ? max - 1 : max;
  return `${text.slice(0, end)}… (${text.length - end} more characters)`;
}

/** True when any diagnostic in the list is an ERROR. */
export function hasErrors(diagnostics: readonly Diagnostic[]): boolean {
  return diagnostics.some((d) => d.severity === "ERROR");
}

/** Renders one diagnostic as a single human-readable line. */
export function formatDiagnostic(d: Diagnostic): string {
  let where = "";
  if (d.source) {
    where = d.source.uri;
    if (d.source.line !== undefined) where += `:${d.source.line}`;
    if (d.source.column !== undefined) where += `:${d.source.column}`;
    where += ": ";
  }
  const attrs = d.attributes
    ? Object.entries(d.attributes).map(([k, v]) => ` ${k}=${JSON.stringify(v)}`).join("")
    : "";
  return `${where}${d.severity} ${d.code}: ${d.message}${attrs}`;
}

/**
 * An error carrying diagnostics across an API boundary. Edges (CLI, HTTP,
 * boot) catch it and report the diagnostics instead of a stack trace.
 */
export class DiagnosticError extends Error {
  /** The findings, at least one. */
  readonly diagnostics: readonly Diagnostic[];

  constructor(diagnostics: Diagnostic | readonly Diagnostic[]) {
    const list = Array.isArray(diagnostics) ? diagnostics : [diagnostics as Diagnostic];
    super(list.map(formatDiagnostic).join("\n"));
    this.name = "DiagnosticError";
    this.diagnostics = list;
  }
}
