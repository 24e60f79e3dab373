/**
 * The validation summary a process sees as its `validation` variable: the
 * accumulated issues (structural ones from the codec first, then content
 * ones from the validator chain, each in order) and what is derived from
 * them.
 *
 * @module
 */
import type { Issue, IssueValue } from "../core/codec.ts";
import type { Severity } from "../core/diagnostic.ts";

/** Which stage found an issue: the codec and its schema, or the validator chain. */
export type ValidationTier = "structural" | "content";

/** One issue as a process reads it: always the same five slots. */
export interface IssueView {
  readonly code: string;
  readonly severity: Severity;
  readonly path: string;
  readonly message: string;
  /** The offending value or a validator's reason; null when none. */
  readonly value: IssueValue;
}

/** The frozen summary bound as `validation`. */
export interface ValidationSummary {
  /** `SOFT_ERRORS` when any issue is an ERROR, else `OK`. */
  readonly outcome: "OK" | "SOFT_ERRORS";
  /** The tier of `firstIssue`; null without issues. */
  readonly tier: ValidationTier | null;
  /** The code of `firstIssue`; null without issues. */
  readonly firstReasonCode: string | null;
  /** The first issue of the most severe severity present, in accumulation order. */
  readonly firstIssue: IssueView | null;
  /** Every issue, structural first, each tier in the order it was found. */
  readonly issues: readonly IssueView[];
}

const RANK: Record<Severity, number> = { ERROR: 3, WARNING: 2, INFO: 1 };

function view(i: Issue): IssueView {
  return Object.freeze({
    code: i.code,
    severity: i.severity,
    path: i.path,
    message: i.message,
    value: i.value ?? null,
  });
}

/** The summary of a message without issues: frozen, so every clean message shares it. */
const CLEAN: ValidationSummary = Object.freeze({
  outcome: "OK",
  tier: null,
  firstReasonCode: null,
  firstIssue: null,
  issues: Object.freeze([]),
});

/** Summarises the accumulated issues. */
export function summarizeValidation(
  structural: readonly Issue[],
  content: readonly Issue[],
): ValidationSummary {
  if (structural.length === 0 && content.length === 0) return CLEAN;
  const tagged = [
    ...structural.map((i) => ({ issue: view(i), tier: "structural" as const })),
    ...content.map((i) => ({ issue: view(i), tier: "content" as const })),
  ];
  let first: (typeof tagged)[number] | undefined;
  for (const t of tagged) {
    if (first === undefined || RANK[t.issue.severity] > RANK[first.issue.severity]) first = t;
  }
  return Object.freeze({
    outcome: tagged.some((t) => t.issue.severity === "ERROR") ? "SOFT_ERRORS" : "OK",
    tier: first?.tier ?? null,
    firstReasonCode: first?.issue.code ?? null,
    firstIssue: first?.issue ?? null,
    issues: Object.freeze(tagged.map((t) => t.issue)),
  });
}
