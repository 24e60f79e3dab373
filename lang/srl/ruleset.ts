/**
 * The parsed form of a `.srl` file: rules with their compiled FEEL, in
 * declaration order and in agenda order.
 *
 * @module
 */
import type { CompiledExpression } from "../feel/mod.ts";
import type { SourceLocation } from "./diagnostic.ts";

/** An embedded FEEL expression: its text, where it starts, and its compiled form. */
export interface RuleExpression {
  /** The expression text as written (trimmed). */
  readonly text: string;
  /** Where the expression starts in the file. */
  readonly source: SourceLocation;
  /** Compiled once at parse time, evaluated on every run. */
  readonly compiled: CompiledExpression;
}

/** `report(code, path, message);` — appends one issue. */
export interface ReportAction {
  readonly verb: "report";
  /** Where the verb is written. */
  readonly source: SourceLocation;
  /** Must evaluate to a non-empty string. */
  readonly code: RuleExpression;
  /** Must evaluate to a string: the context path the issue is about. */
  readonly path: RuleExpression;
  /** Must evaluate to a string. */
  readonly message: RuleExpression;
}

/** `set(name, expr);` — binds a value for later rules and the outputs. */
export interface SetAction {
  readonly verb: "set";
  /** Where the verb is written. */
  readonly source: SourceLocation;
  /** The variable name bound. */
  readonly target: string;
  /** The value bound. */
  readonly value: RuleExpression;
}

/** One action of a rule's `then` part. */
export type RuleAction = ReportAction | SetAction;

/** One `rule "name" … when … then … end` block. */
export interface Rule {
  /** The name between quotes; unique within the ruleset. */
  readonly name: string;
  /** 0-based position in the file, the tie-breaker of the agenda. */
  readonly index: number;
  /** Higher fires earlier; 0 when not given. */
  readonly salience: number;
  /** Within a group only the first rule whose condition holds fires. */
  readonly activationGroup?: string;
  /** Where the `rule` keyword is. */
  readonly source: SourceLocation;
  /** Must evaluate to a boolean. */
  readonly condition: RuleExpression;
  /** Run in order when the condition is true. */
  readonly actions: readonly RuleAction[];
}

/** A parsed, compiled ruleset: build one with `parseRuleset`. */
export interface Ruleset {
  /** The file or URN it was parsed from (used in every diagnostic). */
  readonly uri: string;
  /** Rules in declaration order. */
  readonly rules: readonly Rule[];
  /** Rules in firing order: salience descending, then declaration order. */
  readonly agenda: readonly Rule[];
  /** Whether any expression calls `now()` or `today()` and so needs a clock. */
  readonly readsClock: boolean;
}

/** Orders rules for the single forward pass: −salience, then declaration order. */
export function agendaOf(rules: readonly Rule[]): Rule[] {
  return [...rules].sort((a, b) => b.salience - a.salience || a.index - b.index);
}
