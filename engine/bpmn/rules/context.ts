/**
 * What every validation rule receives: the model and its indexes, the
 * expressions with their compiled forms, the caller's shape provider, and a
 * place to report findings with exact positions.
 *
 * @module
 */
import { type Diagnostic, diagnostic, type Severity } from "../../core/diagnostic.ts";
import type { CompiledExpression } from "../../../lang/feel/mod.ts";
import type { SourceText } from "../_source.ts";
import type { ExpressionSite } from "../expression_sites.ts";
import type { Expression, Process } from "../model.ts";
import type { ModelIndex } from "../model_index.ts";
import type { ShapeProvider } from "../shape.ts";

/** Diagnostic attributes. */
export type Attributes = Record<string, string | number | boolean>;

/** Shared state of one validation pass. */
export class RuleContext {
  /** The model and its lookups. */
  readonly index: ModelIndex;
  /** Every expression in the model. */
  readonly sites: readonly ExpressionSite[];
  /** Compiled FEEL for every expression that compiled (filled by the expression rule). */
  readonly compiled = new Map<Expression, CompiledExpression>();
  /** Shapes of payloads and schema types, when the caller knows them. */
  readonly shapes: ShapeProvider;
  /** Findings so far. */
  readonly diagnostics: Diagnostic[] = [];
  readonly #source: SourceText;
  readonly #uri: string;

  constructor(
    index: ModelIndex,
    sites: readonly ExpressionSite[],
    source: SourceText,
    options: { uri: string; shapes?: ShapeProvider },
  ) {
    this.index = index;
    this.sites = sites;
    this.#source = source;
    this.#uri = options.uri;
    this.shapes = options.shapes ?? {};
  }

  /** True when the process is meant to run; execution rules only apply to those. */
  executable(process: Process): boolean {
    return this.index.isExecutable(process);
  }

  /** Reports a finding at a model position. */
  report(
    code: string,
    message: string,
    at: { readonly line: number; readonly column?: number },
    options: { severity?: Severity; attributes?: Attributes } = {},
  ): void {
    const source = at.column === undefined
      ? { uri: this.#uri, line: at.line }
      : { uri: this.#uri, line: at.line, column: at.column };
    this.diagnostics.push(diagnostic(code, message, {
      severity: options.severity ?? "ERROR",
      source,
      attributes: options.attributes,
    }));
  }

  /** Reports a finding at an offset inside an expression's text. */
  reportInExpression(
    expression: Expression,
    offset: number,
    code: string,
    message: string,
    options: { severity?: Severity; attributes?: Attributes } = {},
  ): void {
    const at = expression.rawEnd > expression.rawStart
      ? this.#source.locateDecoded(expression.rawStart, expression.rawEnd, expression.lead + offset)
      : expression;
    this.report(code, message, at, options);
  }
}
