/**
 * Parses `.srl` text into a {@link Ruleset}:
 *
 * ```
 * ruleset := rule*
 * rule    := "rule" STRING attr* "when" <condition> "then" action* "end"
 * attr    := "salience" INTEGER | "activation-group" STRING
 * action  := verb ";"
 * verb    := "report" "(" <feel> "," <feel> "," <feel> ")"
 *          | "set"    "(" IDENT "," <feel> ")"
 * ```
 *
 * Every embedded expression is compiled with the FEEL library right here, so
 * a ruleset that parses is ready to evaluate. All problems are collected:
 * after a framing error the parser resumes at the next line that starts a
 * rule, so one run reports every broken rule.
 *
 * @module
 */
import { compile, type Diagnostic as FeelDiagnostic, RESERVED_WORDS } from "../feel/mod.ts";
import { type SourceLocation, SrlCode, type SrlDiagnostic, srlError } from "./diagnostic.ts";
import {
  agendaOf,
  type Rule,
  type RuleAction,
  type RuleExpression,
  type Ruleset,
} from "./ruleset.ts";
import { LineMap, Scanner, type Segment, SrlSyntaxError } from "./_scanner.ts";

/** Options for {@link parseRuleset}. */
export interface ParseRulesetOptions {
  /** The file or URN the text came from; copied into every diagnostic. Defaults to `<input>`. */
  readonly uri?: string;
  /**
   * Variable names in scope that contain spaces or operator characters
   * (`net amount`, `tax-rate`), so FEEL can read them as one name.
   */
  readonly names?: Iterable<string>;
}

/** The outcome of {@link parseRuleset}: a ruleset, or every reason there is none. */
export type ParseRulesetResult =
  | { readonly ruleset: Ruleset; readonly diagnostics?: undefined }
  | { readonly ruleset?: undefined; readonly diagnostics: SrlDiagnostic[] };

const RESERVED_VERBS = new Set(["insert", "retract"]);
const IDENT = /^[\p{L}_][\p{L}\p{N}_]*$/u;
// FEEL words a `set` target could never be read back as.
const NEXT_RULE = /^[ \t]*rule\b/m;
const FEEL_POSITION_SUFFIX = /\s*\(line \d+, column \d+\)$/;
const BARE_IF = /^if\b/;

/**
 * Parses and compiles a ruleset. Never throws: malformed input comes back as
 * diagnostics with the file, line, column and (where known) the rule name.
 *
 * @example
 * ```ts
 * const r = parseRuleset(`rule "positive" when amount <= 0 then
 *   report("SUTRA.VALIDATE.AMOUNT", "amount", "must be positive"); end`);
 * ```
 */
export function parseRuleset(text: string, options: ParseRulesetOptions = {}): ParseRulesetResult {
  const uri = options.uri ?? "<input>";
  try {
    return new Parser(text, uri, [...(options.names ?? [])]).run();
  } catch (e) {
    const reason = e instanceof Error ? e.message : String(e);
    return {
      diagnostics: [srlError(SrlCode.INTERNAL, `the ruleset parser failed: ${reason}`, {
        uri,
        line: 1,
        column: 1,
      })],
    };
  }
}

class Parser {
  readonly #s: Scanner;
  readonly #lines: LineMap;
  readonly #diagnostics: SrlDiagnostic[] = [];
  readonly #rules: Rule[] = [];
  #readsClock = false;
  /** Name of the rule being parsed, for diagnostics. */
  #rule: string | undefined;

  constructor(readonly text: string, readonly uri: string, readonly names: string[]) {
    this.#s = new Scanner(text);
    this.#lines = new LineMap(text);
  }

  run(): ParseRulesetResult {
    while (!this.#atEndOrRecover()) {
      try {
        const rule = this.#parseRule();
        if (rule !== undefined) this.#rules.push(rule);
      } catch (e) {
        if (!(e instanceof SrlSyntaxError)) throw e;
        this.#error(SrlCode.PARSE, e.message, e.offset);
        this.#recover(e.offset);
      }
    }
    this.#checkDuplicates();
    if (this.#diagnostics.length > 0) return { diagnostics: this.#diagnostics };
    return {
      ruleset: {
        uri: this.uri,
        rules: this.#rules,
        agenda: agendaOf(this.#rules),
        readsClock: this.#readsClock,
      },
    };
  }

  #atEndOrRecover(): boolean {
    try {
      return this.#s.atEnd();
    } catch (e) {
      // An unterminated comment between rules: report it and stop.
      if (!(e instanceof SrlSyntaxError)) throw e;
      this.#error(SrlCode.PARSE, e.message, e.offset);
      return true;
    }
  }

  /** Parses one rule; undefined when it had errors already reported. */
  #parseRule(): Rule | undefined {
    const s = this.#s;
    this.#rule = undefined;
    s.skipTrivia();
    const start = s.pos;
    const keyword = s.word();
    if (keyword !== "rule") {
      throw new SrlSyntaxError(`expected 'rule', found ${this.#describe(start)}`, start);
    }
    const nameAt = this.#nextOffset();
    const name = s.string();
    if (name === null) {
      throw new SrlSyntaxError(
        `'rule' must be followed by the rule name in double quotes, found ${
          this.#describe(nameAt)
        }`,
        nameAt,
      );
    }
    this.#rule = name;
    const attributes = this.#attributes();
    const whenAt = s.pos - "when".length;
    const condAt = s.pos;
    const condSegment = s.condition();
    if (condSegment === null) {
      throw new SrlSyntaxError(
        `the condition of rule "${name}" has no 'then'`,
        whenAt,
      );
    }
    if (condSegment.text === "") {
      throw new SrlSyntaxError(`rule "${name}" has an empty condition`, condAt);
    }
    s.word(); // the `then` the condition stopped at
    const condition = this.#expression(condSegment, "condition");
    if (condition === undefined && BARE_IF.test(condSegment.text)) {
      // The scan stopped at the if's own `then`: the rest of the rule cannot be read.
      this.#recover(s.pos);
      return undefined;
    }
    const actions = this.#actions(start);
    if (condition === undefined || actions === undefined) return undefined;
    return {
      name,
      index: this.#rules.length,
      salience: attributes.salience ?? 0,
      ...(attributes.group === undefined ? {} : { activationGroup: attributes.group }),
      source: this.#location(start),
      condition,
      actions,
    };
  }

  #attributes(): { salience?: number; group?: string } {
    const s = this.#s;
    const out: { salience?: number; group?: string } = {};
    while (true) {
      const at = this.#nextOffset();
      const word = s.word();
      if (word === "when") return out;
      if (word === "salience") {
        if (out.salience !== undefined) throw new SrlSyntaxError("'salience' is given twice", at);
        const valueAt = this.#nextOffset();
        const value = s.integer();
        const n = value === null ? NaN : Number(value);
        if (!Number.isSafeInteger(n)) {
          throw new SrlSyntaxError(
            `'salience' needs an integer, found ${this.#describe(valueAt)}`,
            valueAt,
          );
        }
        out.salience = n;
      } else if (word === "activation-group") {
        if (out.group !== undefined) {
          throw new SrlSyntaxError("'activation-group' is given twice", at);
        }
        const valueAt = this.#nextOffset();
        const group = s.string();
        if (group === null) {
          throw new SrlSyntaxError(
            `'activation-group' needs a name in double quotes, found ${this.#describe(valueAt)}`,
            valueAt,
          );
        }
        out.group = group;
      } else {
        throw new SrlSyntaxError(
          `expected 'salience', 'activation-group' or 'when', found ${this.#describe(at)}`,
          at,
        );
      }
    }
  }

  /** Parses actions up to `end`; undefined when one of them had a reported error. */
  #actions(ruleStart: number): RuleAction[] | undefined {
    const s = this.#s;
    const actions: RuleAction[] = [];
    let failed = false;
    while (true) {
      const at = this.#nextOffset();
      if (at >= this.text.length) {
        throw new SrlSyntaxError(`rule "${this.#rule}" is not closed with 'end'`, ruleStart);
      }
      const verb = s.word();
      if (verb === "end") return failed ? undefined : actions;
      if (verb === null) {
        throw new SrlSyntaxError(`expected an action or 'end', found ${this.#describe(at)}`, at);
      }
      if (RESERVED_VERBS.has(verb)) {
        // Reported before the arguments are read: Drools-style arguments need not be FEEL.
        this.#error(
          SrlCode.RESERVED_ACTION,
          `'${verb}' is reserved for a future stateful phase and is not supported; use report(...) or set(...)`,
          at,
          { action: verb },
        );
        failed = true;
      }
      if (!s.accept("(")) {
        throw new SrlSyntaxError(
          `expected '(' after '${verb}', found ${this.#describe(this.#nextOffset())}`,
          this.#nextOffset(),
        );
      }
      const args = s.arguments();
      if (args === null) {
        throw new SrlSyntaxError(`the arguments of '${verb}' are not closed with ')'`, at);
      }
      if (!s.accept(";")) {
        throw new SrlSyntaxError(
          `expected ';' after the '${verb}(…)' action, found ${this.#describe(this.#nextOffset())}`,
          this.#nextOffset(),
        );
      }
      if (RESERVED_VERBS.has(verb)) continue;
      const action = this.#action(verb, args, at);
      if (action === undefined) failed = true;
      else actions.push(action);
    }
  }

  #action(verb: string, args: Segment[], at: number): RuleAction | undefined {
    const source = this.#location(at);
    if (verb === "report") {
      if (!this.#arity(verb, args, 3, at)) return undefined;
      const [code, path, message] = args.map((a, i) => this.#argument(a, verb, i + 1));
      if (code === undefined || path === undefined || message === undefined) return undefined;
      return { verb, source, code, path, message };
    }
    if (verb === "set") {
      if (!this.#arity(verb, args, 2, at)) return undefined;
      const target = args[0].text;
      if (!IDENT.test(target) || RESERVED_WORDS.has(target)) {
        this.#error(
          SrlCode.ACTION_ARGUMENTS,
          `the first argument of 'set' must be a variable name, found '${target}'`,
          args[0].offset,
          { action: verb },
        );
        return undefined;
      }
      const value = this.#argument(args[1], verb, 2);
      return value === undefined ? undefined : { verb, source, target, value };
    }
    this.#error(
      SrlCode.UNKNOWN_ACTION,
      `unknown action '${verb}': the actions are report(code, path, message) and set(name, value)`,
      at,
      { action: verb },
    );
    return undefined;
  }

  #arity(verb: string, args: Segment[], expected: number, at: number): boolean {
    const blank = args.findIndex((a) => a.text === "");
    if (args.length === expected && blank < 0) return true;
    const message = args.length !== expected
      ? `'${verb}' takes ${expected} arguments, found ${args.length}`
      : `argument ${blank + 1} of '${verb}' is empty`;
    this.#error(SrlCode.ACTION_ARGUMENTS, message, blank < 0 ? at : args[blank].offset, {
      action: verb,
    });
    return false;
  }

  #argument(segment: Segment, verb: string, position: number): RuleExpression | undefined {
    return this.#expression(segment, `argument ${position} of '${verb}'`);
  }

  #expression(segment: Segment, role: string): RuleExpression | undefined {
    const c = compile(segment.text, { names: this.names });
    if (c.diagnostics !== undefined) {
      for (const d of c.diagnostics) this.#feelError(d, segment, role);
      return undefined;
    }
    if (c.compiled.readsClock) this.#readsClock = true;
    return { text: segment.text, source: this.#location(segment.offset), compiled: c.compiled };
  }

  #feelError(d: FeelDiagnostic, segment: Segment, role: string): void {
    const at = segment.offset + (d.source?.offset ?? 0);
    // FEEL counts lines within the expression; the diagnostic's source has the file position.
    const reason = d.message.replace(FEEL_POSITION_SUFFIX, "");
    const hint = role === "condition" && BARE_IF.test(segment.text)
      ? " (a FEEL if/then/else inside a condition must be parenthesised)"
      : "";
    this.#error(SrlCode.EXPRESSION, `${role} is not valid FEEL: ${reason}${hint}`, at, {
      feelCode: d.code,
    });
  }

  #checkDuplicates(): void {
    const seen = new Map<string, Rule>();
    for (const rule of this.#rules) {
      const first = seen.get(rule.name);
      if (first === undefined) {
        seen.set(rule.name, rule);
        continue;
      }
      this.#diagnostics.push(srlError(
        SrlCode.DUPLICATE_RULE,
        `rule "${rule.name}" is declared twice (first at line ${first.source.line})`,
        rule.source,
        { rule: rule.name },
      ));
    }
  }

  /** Resumes at the next line that starts with `rule`, or at the end. */
  #recover(from: number): void {
    const rest = this.text.slice(from + 1);
    const m = NEXT_RULE.exec(rest);
    this.#s.pos = m === null ? this.text.length : from + 1 + m.index;
  }

  #nextOffset(): number {
    this.#s.skipTrivia();
    return this.#s.pos;
  }

  #describe(offset: number): string {
    if (offset >= this.text.length) return "the end of the file";
    const m = /^("[^"\n]*"?|[A-Za-z_][A-Za-z0-9_-]*|\S)/.exec(this.text.slice(offset));
    return `'${m![0]}'`;
  }

  #location(offset: number): SourceLocation {
    return { uri: this.uri, ...this.#lines.position(offset) };
  }

  #error(
    code: string,
    message: string,
    offset: number,
    attributes: Record<string, string> = {},
  ): void {
    const attrs = this.#rule === undefined ? attributes : { rule: this.#rule, ...attributes };
    this.#diagnostics.push(srlError(code, message, this.#location(offset), attrs));
  }
}
