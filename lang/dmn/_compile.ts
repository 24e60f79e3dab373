/**
 * The boxed-expression compiler: turns a model's expressions into closures
 * `(scope) => value` once, at load, so an evaluation only runs code. Each
 * expression kind lives in its own module under `boxed/`; this module holds
 * what they share (scopes, FEEL compilation and evaluation, diagnostics) and
 * the table that dispatches on the kind.
 *
 * @module
 */
import {
  builtins,
  compile,
  type CompiledExpression,
  type EvalEnv,
  FeelCode,
  FeelContext,
  type FeelType,
  type FeelValue,
} from "../feel/mod.ts";
import {
  DmnCode,
  type DmnDiagnostic,
  dmnDiagnostic,
  type Severity,
  type SourceLocation,
} from "./diagnostic.ts";
import type { Expression, Located } from "./model.ts";
import { javaExternals } from "./java.ts";
import { coerceToType, type ModelTypes } from "./types.ts";
import { compileConditional } from "./boxed/conditional.ts";
import { compileContext } from "./boxed/context.ts";
import { compileFilter } from "./boxed/filter.ts";
import { compileFunctionDefinition } from "./boxed/function_definition.ts";
import { compileInvocation } from "./boxed/invocation.ts";
import { compileIterator } from "./boxed/iterator.ts";
import { compileList } from "./boxed/list.ts";
import { compileLiteral } from "./boxed/literal.ts";
import { compileRelation } from "./boxed/relation.ts";
import { compileDecisionTable } from "./decision_table/compile.ts";

/** The evaluation environment: FEEL's warning sink and clock, plus unsupported-construct reports. */
export interface DmnEnv extends EvalEnv {
  /** Records that a construct this engine does not evaluate was reached (its value is null). */
  unsupported(what: string): void;
  /** Records a defect inside the FEEL or DMN library; the evaluation is then refused. */
  defect(message: string): void;
}

/** The names visible to an expression at run time and the environment of the evaluation. */
export interface RunScope {
  /** Values by name: inputs, required decisions, knowledge, context entries, parameters. */
  readonly values: ReadonlyMap<string, FeelValue>;
  /** Where warnings go. */
  readonly env: DmnEnv;
}

/** A compiled expression. */
export type Evaluator = (scope: RunScope) => FeelValue;

/** The names visible to an expression at compile time (so FEEL can read multi-word names). */
export class StaticScope {
  /** A scope of exactly `names`. */
  constructor(readonly names: ReadonlySet<string>) {}

  /** This scope plus `more`. */
  with(...more: string[]): StaticScope {
    if (more.every((n) => this.names.has(n))) return this;
    return new StaticScope(new Set([...this.names, ...more]));
  }
}

/** What the compiler needs to know about the model an expression belongs to. */
export interface ModelContext {
  /** Its types. */
  readonly types: ModelTypes;
  /** Item definition names usable after `instance of`. */
  readonly feelTypes: ReadonlyMap<string, FeelType>;
  /** Names FEEL must know besides the scope's (item definition and component names). */
  readonly knownNames: ReadonlySet<string>;
  /** Where load-time problems are collected. */
  readonly diagnostics: DmnDiagnostic[];
}

/** Compiles the expressions of one model. */
export class Compiler {
  /** A compiler for the expressions of one model, described by `ctx`. */
  constructor(readonly ctx: ModelContext) {}

  /**
   * Compiles any boxed expression; a declared typeRef converts its value
   * (a function definition's typeRef describes the function, so it is left
   * to the function's own result handling).
   */
  expression(x: Expression, scope: StaticScope): Evaluator {
    const run = this.#expression(x, scope);
    const type = x.kind === "function" ? undefined : this.type(x.typeRef, x);
    if (type === undefined) return run;
    const what = `the ${x.kind === "literal" ? "expression" : x.kind} value`;
    return (s) => coerceToType(run(s), type, s.env, what);
  }

  #expression(x: Expression, scope: StaticScope): Evaluator {
    switch (x.kind) {
      case "literal":
        return compileLiteral(this, x, scope);
      case "context":
        return compileContext(this, x, scope);
      case "invocation":
        return compileInvocation(this, x, scope);
      case "relation":
        return compileRelation(this, x, scope);
      case "list":
        return compileList(this, x, scope);
      case "function":
        return compileFunctionDefinition(this, x, scope);
      case "conditional":
        return compileConditional(this, x, scope);
      case "filter":
        return compileFilter(this, x, scope);
      case "for":
      case "some":
      case "every":
        return compileIterator(this, x, scope);
      case "decisionTable":
        return compileDecisionTable(this, x, scope);
    }
  }

  /** Records a load-time problem at `at`. */
  report(
    code: string,
    message: string,
    at: Located & { readonly textStart?: SourceLocation },
    extra: {
      severity?: Severity;
      attributes?: Record<string, string | number | boolean>;
      /** A position inside the element's text, mapped to the file when the text's start is known. */
      inText?: { readonly line: number; readonly column: number };
    } = {},
  ): void {
    const attributes = { ...(at.id === undefined ? {} : { id: at.id }), ...extra.attributes };
    const start = at.textStart;
    const inText = extra.inText;
    const source = start === undefined || inText === undefined ? at.source : {
      uri: start.uri,
      line: start.line + inText.line - 1,
      column: inText.line === 1 ? start.column + inText.column - 1 : inText.column,
    };
    this.ctx.diagnostics.push(dmnDiagnostic(code, message, {
      source,
      ...(extra.severity === undefined ? {} : { severity: extra.severity }),
      ...(Object.keys(attributes).length === 0 ? {} : { attributes }),
    }));
  }

  /**
   * Compiles FEEL text (an expression or a unary-test list) in `scope`;
   * undefined, with a diagnostic at `at`, when it does not parse.
   */
  feel(
    text: string,
    scope: StaticScope,
    at: Located,
    mode: "expression" | "unaryTests" = "expression",
  ): CompiledExpression | undefined {
    const c = this.#compile(text, scope, mode);
    if (c.diagnostics === undefined) {
      this.#checkNames(c.compiled, scope, at);
      return c.compiled;
    }
    const d = c.diagnostics[0];
    this.report(DmnCode.FEEL_SYNTAX, `${d.message} in ${JSON.stringify(text.trim())}`, at, {
      attributes: { feelCode: d.code },
      ...(d.source === undefined ? {} : { inText: d.source }),
    });
    return undefined;
  }

  /** Compiles FEEL text in `scope`; undefined, with nothing reported, when it does not parse. */
  tryFeel(text: string, scope: StaticScope): CompiledExpression | undefined {
    return this.#compile(text, scope, "expression").compiled;
  }

  #compile(text: string, scope: StaticScope, mode: "expression" | "unaryTests") {
    return compile(text, {
      mode,
      names: [...scope.names, ...this.ctx.knownNames],
      types: this.ctx.feelTypes,
      externals: javaExternals,
    });
  }

  /** Reports names an expression reads that nothing in its scope provides. */
  #checkNames(compiled: CompiledExpression, scope: StaticScope, at: Located): void {
    for (const path of compiled.paths) {
      // A built-in passed as a value (`sort(xs, max)`) is read like a name.
      if (scope.names.has(path) || this.ctx.knownNames.has(path) || builtins.has(path)) continue;
      let known = false;
      for (let i = path.indexOf("."); i > 0 && !known; i = path.indexOf(".", i + 1)) {
        known = scope.names.has(path.slice(0, i));
      }
      if (!known) {
        this.report(
          DmnCode.UNRESOLVED_REFERENCE,
          `'${path}' is not a requirement, parameter or context entry in scope here`,
          at,
          { severity: "WARNING" },
        );
      }
    }
  }

  /** Resolves a typeRef, reporting an unknown one at `at` (the value is then left untyped). */
  type(typeRef: string | undefined, at: Located): FeelType | undefined {
    if (typeRef === undefined) return undefined;
    const t = this.ctx.types.resolve(typeRef);
    if (t === undefined) {
      this.report(DmnCode.UNKNOWN_TYPE, `type '${typeRef}' is not defined`, at, {
        severity: "WARNING",
      });
    }
    return t?.kind === "Any" ? undefined : t;
  }
}

/** Evaluates compiled FEEL in `scope`; refusals and warnings go to the scope's environment. */
export function runFeel(
  compiled: CompiledExpression,
  scope: RunScope,
  input?: FeelValue,
): FeelValue {
  return runIn(compiled, new FeelContext(scope.values as Map<string, FeelValue>), scope.env, input);
}

/**
 * Evaluates compiled FEEL against a ready FEEL context (so many cells can
 * share one): warnings go to `env`, a refusal is a warning, and a defect of
 * the FEEL library is reported as one.
 */
export function runIn(
  compiled: CompiledExpression,
  context: FeelContext,
  env: DmnEnv,
  input?: FeelValue,
): FeelValue {
  const r = compiled.evaluate(context, {
    ...(env.now === undefined ? {} : { now: env.now }),
    ...(env.zone === undefined ? {} : { zone: env.zone }),
    ...(input === undefined ? {} : { input }),
  });
  if (r.diagnostics !== undefined) {
    for (const d of r.diagnostics) {
      if (d.code === FeelCode.INTERNAL) env.defect(d.message);
      else env.warn(d.message);
    }
    return null;
  }
  for (const w of r.warnings) env.warn(w);
  return r.value;
}
