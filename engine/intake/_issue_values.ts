/**
 * Turning what a rules language returns into issues.
 *
 * @module
 */
import { type Issue, type IssueValue } from "../core/codec.ts";
import type { Diagnostic, Severity } from "../core/diagnostic.ts";
import { type FeelValue, toJs } from "../../lang/feel/mod.ts";

/** A FEEL value as an issue's `value`: scalars as they are, anything else left out. */
export function issueValue(value: FeelValue | undefined): IssueValue | undefined {
  if (value === undefined) return undefined;
  const js = toJs(value);
  const t = typeof js;
  return js === null || t === "string" || t === "number" || t === "boolean"
    ? js as IssueValue
    : undefined;
}

/** The diagnostics of a rules library, as engine diagnostics. */
export function asDiagnostics(
  found: readonly {
    readonly code: string;
    readonly severity: Severity;
    readonly message: string;
    readonly source?: { readonly uri: string; readonly line?: number; readonly column?: number };
  }[],
): Diagnostic[] {
  return found.map((d) => {
    const out: { -readonly [K in keyof Diagnostic]: Diagnostic[K] } = {
      code: d.code,
      severity: d.severity,
      message: d.message,
    };
    if (d.source) out.source = d.source;
    return out;
  });
}

/** The issue a validator that could not run becomes: an ordinary content issue, never a skip. */
export function validatorFailed(source: string, reason: string): Issue {
  return {
    code: "SUTRA.VALIDATE.VALIDATOR_FAILED",
    severity: "ERROR",
    path: "",
    message: `validator ${source} could not run: ${reason}`,
    value: source,
  };
}
