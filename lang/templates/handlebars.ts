/**
 * Handlebars templates (`npm:handlebars`), compiled at load.
 *
 * Each template set gets its own isolated Handlebars environment per
 * escaping family, holding the FEEL-aware helpers and every `.hbs` template
 * of the set as a partial (named by its key without `.hbs`). Escaping
 * follows the declared content type: XML and HTML bodies get Handlebars'
 * markup escaping, JSON bodies get JSON string escaping, other text none.
 * Only the known helpers may be called, so a misspelt helper is a load
 * diagnostic rather than a render-time surprise.
 *
 * @module
 */
import Handlebars from "handlebars";
import { type Family, familyOf } from "./content_type.ts";
import {
  type SourceLocation,
  TemplateCode,
  type TemplateDiagnostic,
  templateError,
} from "./diagnostic.ts";
import type { CompiledTemplate, RenderOutcome, RenderRequest } from "./_template.ts";
import { type Helper, HELPER_NAMES, HelperError, helpersFor, jsonEscape } from "./_helpers.ts";
import { toView } from "./_view.ts";

/** A Handlebars syntax tree node (only what the partial check reads). */
interface HbsNode {
  readonly type: string;
  readonly loc?: { readonly start: { readonly line: number; readonly column: number } };
  readonly [key: string]: unknown;
}

type RenderFunction = (context: unknown, options?: object) => string;

interface JsCompiler {
  compile(environment: unknown, options: object, context: undefined, asObject: true): TemplateSpec;
}

/**
 * A compiled template in Handlebars' precompiled format: `main` receives the
 * runtime container whose `escapeExpression` every `{{value}}` goes through.
 */
interface TemplateSpec {
  main: (container: { escapeExpression: (value: unknown) => string }, ...rest: unknown[]) => string;
}

/** The runtime parts of an isolated Handlebars environment used here. */
interface HbsEnv {
  parse(text: string): HbsNode;
  Compiler: new () => { compile(ast: HbsNode, options: object): unknown };
  JavaScriptCompiler: new () => JsCompiler;
  template(spec: TemplateSpec): RenderFunction;
  SafeString: new (text: string) => { toHTML(): string };
  helpers: Record<string, Helper>;
  registerHelper(name: string, fn: Helper): void;
  registerPartial(name: string, fn: RenderFunction): void;
}

const KNOWN_HELPERS = Object.fromEntries(HELPER_NAMES.map((n) => [n, true]));

/**
 * Makes a compiled template escape `{{value}}` as JSON string content: the
 * escaper is read from the container on every entry, so it is swapped there.
 */
function escapeAsJson(spec: TemplateSpec): void {
  const main = spec.main;
  spec.main = function (this: unknown, container, ...rest) {
    container.escapeExpression = jsonEscape;
    return main.call(this, container, ...rest);
  };
}

/** The partial name of a template key: the key without its `.hbs` extension. */
export function partialName(key: string): string {
  return key.replace(/\.hbs$/i, "");
}

/** A partial named in a template, with where it is named. */
export interface PartialReference {
  /** The partial name as written. */
  readonly name: string;
  /** 1-based line. */
  readonly line: number;
  /** 1-based column. */
  readonly column: number;
}

/** Compiles and renders the Handlebars templates of one template set. */
export class HandlebarsEngine {
  readonly #envs = new Map<Family, HbsEnv>();
  readonly #templates: HandlebarsTemplate[] = [];

  /**
   * Parses and compiles `text`; diagnostics (with file and line) when it
   * does not compile.
   */
  compile(
    key: string,
    uri: string,
    text: string,
    contentType: string,
  ): { template: HandlebarsTemplate; diagnostics?: undefined } | {
    template?: undefined;
    diagnostics: TemplateDiagnostic[];
  } {
    let ast: HbsNode;
    try {
      ast = (Handlebars as unknown as HbsEnv).parse(text);
    } catch (e) {
      return { diagnostics: [compileDiagnostic(e, uri, key)] };
    }
    const template = new HandlebarsTemplate(this, key, uri, text, contentType, references(ast));
    try {
      // Compiled now, not on first render: unknown helpers and block mismatches surface at load.
      template.functionFor(familyOf(contentType));
    } catch (e) {
      return { diagnostics: [compileDiagnostic(e, uri, key)] };
    }
    this.#templates.push(template);
    for (const [family, env] of this.#envs) registerPartial(env, family, template);
    return { template };
  }

  /** Compiles `text` for one escaping family. */
  build(text: string, family: Family): RenderFunction {
    const env = this.#env(family);
    const options = {
      data: true,
      knownHelpers: KNOWN_HELPERS,
      knownHelpersOnly: true,
      noEscape: family === "text",
    };
    // The steps of Handlebars.compile, done eagerly (its own compile defers them to the first call).
    const ast = env.parse(text);
    const environment = new env.Compiler().compile(ast, options);
    const spec = new env.JavaScriptCompiler().compile(environment, options, undefined, true);
    if (family === "json") escapeAsJson(spec);
    return env.template(spec);
  }

  #env(family: Family): HbsEnv {
    let env = this.#envs.get(family);
    if (env !== undefined) return env;
    env = Handlebars.create() as unknown as HbsEnv;
    for (const [name, fn] of Object.entries(helpersFor(family, env))) env.registerHelper(name, fn);
    this.#envs.set(family, env);
    for (const template of this.#templates) registerPartial(env, family, template);
    return env;
  }
}

function registerPartial(env: HbsEnv, family: Family, template: HandlebarsTemplate): void {
  // A function, not text: Handlebars would compile a text partial with its default escaping.
  env.registerPartial(
    partialName(template.key),
    (context, options) => template.functionFor(family)(context, options),
  );
}

/** A compiled Handlebars template. */
export class HandlebarsTemplate implements CompiledTemplate {
  /** Always `handlebars`. */
  readonly engine = "handlebars" as const;
  readonly #functions = new Map<Family, RenderFunction>();

  /** Built by {@link HandlebarsEngine.compile}. */
  constructor(
    readonly owner: HandlebarsEngine,
    readonly key: string,
    readonly uri: string,
    readonly text: string,
    readonly contentType: string,
    /** Partials this template names statically. */
    readonly partials: readonly PartialReference[],
  ) {}

  /** The render function for one escaping family, compiled on first use. */
  functionFor(family: Family): RenderFunction {
    let fn = this.#functions.get(family);
    if (fn === undefined) {
      fn = this.owner.build(this.text, family);
      this.#functions.set(family, fn);
    }
    return fn;
  }

  /** Renders the variables; a failing helper or a Handlebars runtime error is a diagnostic. */
  render(request: RenderRequest): RenderOutcome {
    if (request.source !== undefined) {
      return {
        diagnostics: [templateError(
          TemplateCode.SOURCE_INVALID,
          "a Handlebars template takes no XML source document; pass the data as variables",
          { uri: this.uri },
          { template: this.key },
        )],
      };
    }
    try {
      return { body: this.functionFor(familyOf(request.contentType))(toView(request.variables)) };
    } catch (e) {
      return { diagnostics: [this.#renderDiagnostic(e)] };
    }
  }

  #renderDiagnostic(e: unknown): TemplateDiagnostic {
    const source: { uri: string; line?: number; column?: number } = { uri: this.uri };
    let message: string;
    if (e instanceof HelperError) {
      message = e.message;
      if (e.line !== undefined) source.line = e.line;
      if (e.column !== undefined) source.column = e.column;
    } else {
      const at = handlebarsPosition(e);
      message = at.message;
      if (at.line !== undefined) source.line = at.line;
      if (at.column !== undefined) source.column = at.column;
    }
    return templateError(TemplateCode.RENDER, `rendering ${this.key} failed: ${message}`, source, {
      template: this.key,
    });
  }
}

/** Partials named statically in a template, minus those it defines inline. */
function references(ast: HbsNode): PartialReference[] {
  const found: PartialReference[] = [];
  const inline = new Set<string>();
  walk(ast, (node) => {
    if (node.type === "PartialStatement") {
      const name = literalName(node.name);
      const start = node.loc?.start;
      if (name !== undefined && !name.startsWith("@") && start !== undefined) {
        found.push({ name, line: start.line, column: start.column + 1 });
      }
    } else if (node.type === "DecoratorBlock" && literalName(node.path) === "inline") {
      const name = literalName((node.params as unknown[] | undefined)?.[0]);
      if (name !== undefined) inline.add(name);
    }
  });
  return found.filter((r) => !inline.has(r.name));
}

function literalName(node: unknown): string | undefined {
  if (!isNode(node)) return undefined;
  if (node.type === "PathExpression") return String(node.original);
  if (node.type === "StringLiteral" || node.type === "NumberLiteral") return String(node.value);
  return undefined;
}

function isNode(value: unknown): value is HbsNode {
  return typeof value === "object" && value !== null && typeof (value as HbsNode).type === "string";
}

function walk(node: HbsNode, visit: (node: HbsNode) => void): void {
  visit(node);
  for (const child of Object.values(node)) {
    if (Array.isArray(child)) {
      for (const c of child) if (isNode(c)) walk(c, visit);
    } else if (isNode(child)) {
      walk(child, visit);
    }
  }
}

const SYNTAX_ERROR = /^(?:Parse|Lexical) error on line (\d+)[:.]/;
const POSITION_SUFFIX = / - (\d+):(\d+)$/;

/** A Handlebars error's message and position (Handlebars counts columns from 0). */
function handlebarsPosition(e: unknown): { message: string; line?: number; column?: number } {
  const raw = e instanceof Error ? e.message : String(e);
  const syntax = SYNTAX_ERROR.exec(raw);
  if (syntax !== null) {
    // The message quotes a flattened excerpt with a caret; its last line says what was expected.
    const lines = raw.split("\n");
    return { message: `syntax error: ${lines[lines.length - 1]}`, line: Number(syntax[1]) };
  }
  const err = e as { lineNumber?: unknown; column?: unknown };
  const line = typeof err.lineNumber === "number" ? err.lineNumber : undefined;
  const column = typeof err.column === "number" ? err.column + 1 : undefined;
  return { message: raw.replace(POSITION_SUFFIX, ""), line, column };
}

function compileDiagnostic(e: unknown, uri: string, key: string): TemplateDiagnostic {
  const at = handlebarsPosition(e);
  const source: SourceLocation = {
    uri,
    ...(at.line === undefined ? {} : { line: at.line }),
    ...(at.column === undefined ? {} : { column: at.column }),
  };
  return templateError(TemplateCode.COMPILE, `${key} does not compile: ${at.message}`, source, {
    template: key,
  });
}
