/**
 * Runs a ruleset over a context: one deterministic forward pass over the
 * agenda (salience descending, then declaration order). Each rule is tried at
 * most once; once a rule of an activation group fires, the group's later
 * rules are skipped; a `set` is visible to every later rule and lands in the
 * outputs.
 *
 * Fail-closed: the first condition or action that cannot be evaluated stops
 * the pass and the result is that diagnostic alone, never a partial list of
 * issues that would read as "valid".
 *
 * @module
 */
import {
  type EvaluateOptions,
  FeelContext,
  FeelFunction,
  type FeelValue,
  fromJs,
  type InputContext,
  typeName,
  typeOf,
} from "../feel/mod.ts";
import { type Severity, SrlCode, type SrlDiagnostic, srlError } from "./diagnostic.ts";
import type { ReportAction, Rule, RuleExpression, Ruleset, SetAction } from "./ruleset.ts";
import { valueAtPath } from "./_path.ts";

/** A clock: epoch milliseconds. The engine's `Clock` fits this shape. */
export interface RuleClock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
}

/** Options for {@link evaluate}. */
export interface EvaluateRulesetOptions {
  /**
   * The clock `now()` and `today()` read. Without one, a rule calling them
   * fails with a diagnostic: evaluation stays replay-safe by default.
   */
  readonly clock?: RuleClock;
  /** IANA zone for `now()` and `today()`; UTC when absent. */
  readonly zone?: string;
}

/** One structured finding appended by `report(code, path, message)`. */
export interface SrlIssue {
  /** The code the rule reported. */
  readonly code: string;
  /** Always ERROR: a report is a violation. */
  readonly severity: Severity;
  /** The context path the issue is about, as the rule gave it. */
  readonly path: string;
  /** The message the rule built. */
  readonly message: string;
  /** The value found at `path` when the rule fired (null when absent). */
  readonly value: FeelValue;
  /** The rule that reported it. */
  readonly rule: string;
}

/** A completed pass: issues in firing order, `set` outputs, and the rules that fired. */
export interface SrlEvaluation {
  /** Every reported issue, in the order the rules fired. */
  readonly issues: SrlIssue[];
  /** Every `set` binding, last write wins, in first-write order. */
  readonly outputs: Map<string, FeelValue>;
  /** Names of the rules whose condition held, in firing order. */
  readonly fired: string[];
  readonly diagnostics?: undefined;
}

/** A pass that could not complete: why, with file, rule and position. */
export interface SrlRefusal {
  readonly issues?: undefined;
  readonly outputs?: undefined;
  readonly fired?: undefined;
  readonly diagnostics: SrlDiagnostic[];
}

/** The outcome of {@link evaluate}. */
export type SrlResult = SrlEvaluation | SrlRefusal;

const NONDETERMINISTIC = "SUTRA.FEEL.NONDETERMINISTIC";

/**
 * `exists(value)`: true unless the value is null or absent. Rules guard
 * optional fields with it (`exists(payload.currency) and …`); it is an .srl
 * addition, not a FEEL built-in, so an input entry of that name wins.
 */
const EXISTS = new FeelFunction(
  [[{ name: "value" }]],
  (args) => args[0] !== null && args[0] !== undefined,
  "exists",
);

/** Signals a fail-closed stop inside the pass. */
class Stop {
  constructor(readonly diagnostic: SrlDiagnostic) {}
}

/**
 * Evaluates `ruleset` against `context` (a plain JS object or a FEEL
 * context). Never throws.
 *
 * @example
 * ```ts
 * const { ruleset } = parseRuleset(text);
 * const r = evaluate(ruleset!, { payload }, { clock: { now: () => Date.now() } });
 * if (r.diagnostics) throw new Error(r.diagnostics[0].message);
 * r.issues; // [{ code, severity, path, message, value, rule }]
 * ```
 */
export function evaluate(
  ruleset: Ruleset,
  context: InputContext,
  options: EvaluateRulesetOptions = {},
): SrlResult {
  try {
    return new Pass(ruleset, context, options).run();
  } catch (e) {
    if (e instanceof Stop) return { diagnostics: [e.diagnostic] };
    const reason = e instanceof Error ? e.message : String(e);
    return {
      diagnostics: [srlError(SrlCode.INTERNAL, `ruleset evaluation failed: ${reason}`, {
        uri: ruleset.uri,
        line: 1,
        column: 1,
      })],
    };
  }
}

class Pass {
  readonly #working: FeelContext;
  readonly #feel: EvaluateOptions;
  readonly #issues: SrlIssue[] = [];
  readonly #outputs = new Map<string, FeelValue>();
  readonly #fired: string[] = [];

  constructor(readonly ruleset: Ruleset, context: InputContext, options: EvaluateRulesetOptions) {
    // Converted once per pass so rules read FEEL values instead of re-converting JS input.
    const input = context instanceof FeelContext ? context : fromJs(context);
    if (!(input instanceof FeelContext)) throw new TypeError("the context must be an object");
    this.#working = new FeelContext(new Map(input.entries));
    if (!this.#working.entries.has("exists")) this.#working.entries.set("exists", EXISTS);
    const clock = options.clock;
    this.#feel = {
      deterministic: true,
      ...(clock === undefined ? {} : { now: () => clock.now() }),
      ...(options.zone === undefined ? {} : { zone: options.zone }),
    };
  }

  run(): SrlEvaluation {
    const firedGroups = new Set<string>();
    for (const rule of this.ruleset.agenda) {
      const group = rule.activationGroup;
      if (group !== undefined && firedGroups.has(group)) continue;
      if (!this.#holds(rule)) continue;
      if (group !== undefined) firedGroups.add(group);
      this.#fired.push(rule.name);
      for (const action of rule.actions) {
        if (action.verb === "report") this.#report(rule, action);
        else this.#set(rule, action);
      }
    }
    return { issues: this.#issues, outputs: this.#outputs, fired: this.#fired };
  }

  #holds(rule: Rule): boolean {
    const { value, warnings } = this.#eval(
      rule,
      rule.condition,
      SrlCode.CONDITION_FAILED,
      "the condition",
    );
    if (typeof value === "boolean") return value;
    throw this.#stop(
      SrlCode.CONDITION_FAILED,
      `the condition of rule "${rule.name}" gave ${describe(value)} instead of true or false${
        because(warnings)
      }`,
      rule,
      rule.condition,
    );
  }

  #report(rule: Rule, action: ReportAction): void {
    const code = this.#string(rule, action.code, "code");
    if (code === "") {
      throw this.#stop(
        SrlCode.ACTION_FAILED,
        `report in rule "${rule.name}" gave an empty code`,
        rule,
        action.code,
      );
    }
    const path = this.#string(rule, action.path, "path");
    const message = this.#string(rule, action.message, "message");
    this.#issues.push({
      code,
      severity: "ERROR",
      path,
      message,
      value: valueAtPath(this.#working, path),
      rule: rule.name,
    });
  }

  #set(rule: Rule, action: SetAction): void {
    const { value, warnings } = this.#eval(
      rule,
      action.value,
      SrlCode.ACTION_FAILED,
      `set(${action.target}, …)`,
    );
    // A null that FEEL explains with a warning is a failed computation, not a chosen null.
    if (value === null && warnings.length > 0) {
      throw this.#stop(
        SrlCode.ACTION_FAILED,
        `set(${action.target}, …) in rule "${rule.name}" could not compute a value${
          because(warnings)
        }`,
        rule,
        action.value,
      );
    }
    this.#working.entries.set(action.target, value);
    this.#outputs.set(action.target, value);
  }

  #string(rule: Rule, expr: RuleExpression, role: string): string {
    const { value, warnings } = this.#eval(rule, expr, SrlCode.ACTION_FAILED, `the report ${role}`);
    if (typeof value === "string") return value;
    throw this.#stop(
      SrlCode.ACTION_FAILED,
      `the report ${role} in rule "${rule.name}" gave ${describe(value)} instead of a string${
        because(warnings)
      }`,
      rule,
      expr,
    );
  }

  #eval(
    rule: Rule,
    expr: RuleExpression,
    code: string,
    role: string,
  ): { value: FeelValue; warnings: string[] } {
    const r = expr.compiled.evaluate(this.#working, this.#feel);
    if (r.diagnostics === undefined) return r;
    const first = r.diagnostics[0];
    const reason = first.code === NONDETERMINISTIC
      ? "it calls now() or today() and no clock was supplied (pass the `clock` option)"
      : first.message;
    throw this.#stop(
      code,
      `${role} of rule "${rule.name}" could not be evaluated: ${reason}`,
      rule,
      expr,
      first.code,
    );
  }

  #stop(code: string, message: string, rule: Rule, expr: RuleExpression, feelCode?: string): Stop {
    const attributes: Record<string, string> = { rule: rule.name, expression: expr.text };
    if (feelCode !== undefined) attributes.feelCode = feelCode;
    return new Stop(srlError(code, message, expr.source, attributes));
  }
}

function describe(value: FeelValue): string {
  return value === null ? "null" : `a ${typeName(typeOf(value))}`;
}

function because(warnings: string[]): string {
  return warnings.length === 0 ? "" : ` (${warnings.join("; ")})`;
}
