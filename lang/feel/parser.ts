/**
 * FEEL parser: text to {@link Node} for expressions and unary-test lists.
 *
 * A hand-written recursive-descent parser following the DMN 1.5 operator
 * precedence (loosest first): textual expressions (`if`, `for`, `some`,
 * `every`, `function`), `or`, `and`, comparisons (`= != < <= > >=`,
 * `between`, `in`), `instance of`, `+ -`, `* /`, `**` (left-associative),
 * unary `-`, then postfix path, filter and invocation.
 *
 * @module
 */
import type {
  Argument,
  ContextEntry,
  Iteration,
  Node,
  Parameter,
  RangeNode,
  Span,
  TypeNode,
} from "./ast.ts";
import { builtins } from "./builtins/mod.ts";
import { type Diagnostic, errorDiagnostic, FeelCode } from "./diagnostic.ts";
import { FeelSyntaxError, LineMap, type Token, tokenize } from "./lexer.ts";
import {
  isNamePart,
  joinableWords,
  joinTokens,
  longestMatch,
  type NameMatch,
  NameTable,
  RESERVED,
} from "./_parse_names.ts";

/** What the text is: a single expression, or a unary-test list as in a decision-table cell. */
export type ParseMode = "expression" | "unaryTests";

/** Options for {@link parse}. */
export interface ParseOptions {
  /** Defaults to `"expression"`. */
  readonly mode?: ParseMode;
  /**
   * Names in scope besides the built-in functions (input variables, context
   * keys, type names). Needed only for names that contain keywords or
   * operator characters, e.g. `values in a list` or `net-amount`.
   */
  readonly names?: Iterable<string>;
  /** Copied into every diagnostic's source position. */
  readonly uri?: string;
}

/** The parse outcome: an AST, or the diagnostics explaining why there is none. */
export type ParseResult =
  | { readonly ast: Node; readonly diagnostics?: undefined }
  | { readonly ast?: undefined; readonly diagnostics: Diagnostic[] };

/** Multi-word names that only make sense as types. */
const TYPE_NAMES = ["date and time", "days and time duration", "years and months duration"];

let builtinTable: NameTable | undefined;
let typeTable: NameTable | undefined;

/** Parses FEEL `text`; never throws for malformed input. */
export function parse(text: string, options: ParseOptions = {}): ParseResult {
  const lines = new LineMap(text);
  let error: FeelSyntaxError;
  try {
    const parser = new Parser(tokenize(text, lines), lines, options.names);
    return { ast: options.mode === "unaryTests" ? parser.unaryTests() : parser.topExpression() };
  } catch (e) {
    if (e instanceof FeelSyntaxError) error = e;
    // Nesting deep enough to exhaust the stack is reported, not thrown.
    else if (e instanceof RangeError) {
      error = new FeelSyntaxError("expression nested too deeply", lines.span(0, 0));
    } else throw e;
  }
  const { line, column, offset } = error.at;
  const source = options.uri === undefined
    ? { line, column, offset }
    : { line, column, offset, uri: options.uri };
  return {
    diagnostics: [
      errorDiagnostic(FeelCode.PARSE, `${error.message} (line ${line}, column ${column})`, source),
    ],
  };
}

class Parser {
  readonly #tokens: Token[];
  readonly #lines: LineMap;
  #p = 0;
  /** Scopes, outermost first: built-ins, caller names, then lexical bindings. */
  readonly #scopes: NameTable[];
  /** Inside an interval's upper endpoint a `[` may close the interval instead of filtering. */
  #intervalEnd = false;

  constructor(tokens: Token[], lines: LineMap, names: Iterable<string> | undefined) {
    this.#tokens = tokens;
    this.#lines = lines;
    builtinTable ??= new NameTable(builtins.keys());
    this.#scopes = [builtinTable, new NameTable(names)];
  }

  // ---- entry points -------------------------------------------------------

  topExpression(): Node {
    const node = this.#expression();
    this.#expectEnd();
    return node;
  }

  unaryTests(): Node {
    const first = this.#peek();
    if (this.#isSym("-") && this.#peek(1).type === "eof") {
      this.#p++;
      return { kind: "UnaryTests", tests: [], negated: false, any: true, span: this.#span(first) };
    }
    if (this.#isWord("not") && this.#isSym("(", 1)) {
      // `not(…)` spanning the whole text negates the tests inside; otherwise
      // (`not(a) or b`) it is the built-in function in a positive test.
      const start = this.#p;
      try {
        this.#p += 2;
        const tests = this.#testList(")");
        this.#expectSym(")");
        this.#expectEnd();
        return { kind: "UnaryTests", tests, negated: true, any: false, span: this.#span(first) };
      } catch (e) {
        if (!(e instanceof FeelSyntaxError)) throw e;
        this.#p = start;
      }
    }
    const tests = this.#testList("eof");
    this.#expectEnd();
    return { kind: "UnaryTests", tests, negated: false, any: false, span: this.#span(first) };
  }

  // ---- token helpers ------------------------------------------------------

  #peek(k = 0): Token {
    return this.#tokens[Math.min(this.#p + k, this.#tokens.length - 1)];
  }

  #next(): Token {
    const t = this.#tokens[this.#p];
    if (t.type !== "eof") this.#p++;
    return t;
  }

  #isSym(s: string, k = 0): boolean {
    const t = this.#peek(k);
    return t.type === "symbol" && t.text === s;
  }

  #isWord(w: string, k = 0): boolean {
    const t = this.#peek(k);
    return t.type === "name" && t.text === w;
  }

  #expectSym(s: string): Token {
    if (!this.#isSym(s)) this.#fail(`expected '${s}' but found ${describe(this.#peek())}`);
    return this.#next();
  }

  #expectWord(w: string): Token {
    if (!this.#isWord(w)) this.#fail(`expected '${w}' but found ${describe(this.#peek())}`);
    return this.#next();
  }

  #expectEnd(): void {
    const t = this.#peek();
    if (t.type !== "eof") this.#fail(`unexpected ${describe(t)}; expected the end of the text`);
  }

  #fail(message: string, at: Token = this.#peek()): never {
    throw new FeelSyntaxError(message, this.#lines.span(at.offset, at.end));
  }

  /** The span from `start` to the end of the last consumed token. */
  #span(start: Token | Span): Span {
    const last = this.#tokens[Math.max(this.#p - 1, 0)];
    return this.#lines.span(start.offset, Math.max(last.end, start.offset));
  }

  // ---- names --------------------------------------------------------------

  #withScope<T>(body: (scope: NameTable) => T): T {
    const scope = new NameTable();
    this.#scopes.push(scope);
    try {
      return body(scope);
    } finally {
      this.#scopes.pop();
    }
  }

  #knownAt(at: number): NameMatch | null {
    return longestMatch(this.#scopes, this.#tokens, at);
  }

  /** Reads a name reference: the longest known name, extended by plain words. */
  #name(tables?: readonly NameTable[]): { name: string; span: Span } {
    const start = this.#peek();
    const best = longestMatch(tables ?? this.#scopes, this.#tokens, this.#p);
    const known = best?.length ?? 1;
    const extra = joinableWords(this.#tokens, this.#p + known);
    let name = best?.name ?? start.text;
    if (extra > 0) {
      const from = this.#p + known;
      name += (this.#tokens[from].spaced ? " " : "") + joinTokens(this.#tokens, from, from + extra);
    }
    this.#p += known + extra;
    return { name, span: this.#span(start) };
  }

  /** Reads a declared name (variable, parameter, key) up to the first non-name token. */
  #bindingName(what: string, stopAt?: string): { name: string; span: Span } {
    const start = this.#p;
    while (isNamePart(this.#peek()) && !(stopAt !== undefined && this.#isWord(stopAt))) this.#p++;
    if (this.#p === start) this.#fail(`expected ${what} but found ${describe(this.#peek())}`);
    const first = this.#tokens[start];
    return { name: joinTokens(this.#tokens, start, this.#p), span: this.#span(first) };
  }

  // ---- expressions --------------------------------------------------------

  #expression(): Node {
    const t = this.#peek();
    if (t.type === "name" && this.#knownAt(this.#p) === null) {
      switch (t.text) {
        case "if":
          return this.#if();
        case "for":
          return this.#for();
        case "some":
        case "every":
          return this.#quantified();
        case "function":
          return this.#function();
      }
    }
    return this.#disjunction();
  }

  #if(): Node {
    const start = this.#next();
    const condition = this.#expression();
    this.#expectWord("then");
    const then = this.#expression();
    this.#expectWord("else");
    const otherwise = this.#expression();
    return { kind: "If", condition, then, else: otherwise, span: this.#span(start) };
  }

  #iterations(scope: NameTable): Iteration[] {
    const iterations: Iteration[] = [];
    do {
      const { name, span } = this.#bindingName("a variable name", "in");
      this.#expectWord("in");
      const source = this.#expression();
      let to: Node | undefined;
      if (this.#isSym("..")) {
        this.#next();
        to = this.#expression();
      }
      scope.add(name);
      iterations.push(to === undefined ? { name, span, source } : { name, span, source, to });
    } while (this.#isSym(",") && this.#next());
    return iterations;
  }

  #for(): Node {
    const start = this.#next();
    return this.#withScope((scope) => {
      const iterations = this.#iterations(scope);
      this.#expectWord("return");
      const body = this.#expression();
      return { kind: "For", iterations, body, span: this.#span(start) };
    });
  }

  #quantified(): Node {
    const start = this.#next();
    const quantifier = start.text as "some" | "every";
    return this.#withScope((scope) => {
      const iterations = this.#iterations(scope);
      this.#expectWord("satisfies");
      const condition = this.#expression();
      return { kind: "Quantified", quantifier, iterations, condition, span: this.#span(start) };
    });
  }

  #function(): Node {
    const start = this.#next();
    this.#expectSym("(");
    return this.#withScope((scope) => {
      const params: Parameter[] = [];
      while (!this.#isSym(")")) {
        if (params.length > 0) this.#expectSym(",");
        const { name, span } = this.#bindingName("a parameter name");
        if (params.some((p) => p.name === name)) this.#fail(`duplicate parameter '${name}'`);
        let type: TypeNode | undefined;
        if (this.#isSym(":")) {
          this.#next();
          type = this.#type();
        }
        scope.add(name);
        params.push(type === undefined ? { name, span } : { name, type, span });
      }
      this.#next();
      const external = this.#isWord("external");
      if (external) this.#next();
      const body = this.#expression();
      return { kind: "Function", params, body, external, span: this.#span(start) };
    });
  }

  #disjunction(): Node {
    const start = this.#peek();
    let left = this.#conjunction();
    while (this.#isWord("or")) {
      this.#next();
      const right = this.#conjunction();
      left = { kind: "Logical", op: "or", left, right, span: this.#span(start) };
    }
    return left;
  }

  #conjunction(): Node {
    const start = this.#peek();
    let left = this.#comparison();
    while (this.#isWord("and")) {
      this.#next();
      const right = this.#comparison();
      left = { kind: "Logical", op: "and", left, right, span: this.#span(start) };
    }
    return left;
  }

  #comparison(): Node {
    const start = this.#peek();
    let left = this.#instanceOf();
    for (;;) {
      const t = this.#peek();
      if (t.type === "symbol" && COMPARISONS.has(t.text)) {
        this.#next();
        const right = this.#instanceOf();
        const op = t.text as "=" | "!=" | "<" | "<=" | ">" | ">=";
        left = { kind: "Binary", op, left, right, span: this.#span(start) };
      } else if (this.#isWord("between")) {
        this.#next();
        const low = this.#instanceOf();
        this.#expectWord("and");
        const high = this.#instanceOf();
        left = { kind: "Between", value: left, low, high, span: this.#span(start) };
      } else if (this.#isWord("in")) {
        this.#next();
        const tests = this.#inTests();
        left = { kind: "In", value: left, tests, span: this.#span(start) };
      } else {
        return left;
      }
    }
  }

  /** The right side of `in`: one positive unary test, or `(t1, t2, …)`. */
  #inTests(): Node[] {
    if (!this.#isSym("(")) {
      return [this.#instanceOf()];
    }
    const open = this.#next();
    return this.#nested(() => {
      const first = this.#expression();
      if (this.#isSym("..")) return [this.#finishInterval(open, false, first)];
      const tests = [first];
      while (this.#isSym(",")) {
        this.#next();
        tests.push(this.#expression());
      }
      this.#expectSym(")");
      return tests;
    });
  }

  /** Comma-separated positive unary tests up to `end` (a symbol or `eof`). */
  #testList(end: string): Node[] {
    const tests: Node[] = [];
    do {
      tests.push(this.#expression());
    } while (this.#isSym(",") && this.#next());
    const t = this.#peek();
    if (end === "eof" ? t.type !== "eof" : !this.#isSym(end)) {
      this.#fail(`unexpected ${describe(t)} in a unary test list`);
    }
    return tests;
  }

  #instanceOf(): Node {
    const start = this.#peek();
    let left = this.#additive();
    while (this.#isWord("instance") && this.#isWord("of", 1)) {
      this.#p += 2;
      const type = this.#type();
      left = { kind: "InstanceOf", value: left, type, span: this.#span(start) };
    }
    return left;
  }

  #additive(): Node {
    const start = this.#peek();
    let left = this.#multiplicative();
    while (this.#isSym("+") || this.#isSym("-")) {
      const op = this.#next().text as "+" | "-";
      const right = this.#multiplicative();
      left = { kind: "Binary", op, left, right, span: this.#span(start) };
    }
    return left;
  }

  #multiplicative(): Node {
    const start = this.#peek();
    let left = this.#power();
    while (this.#isSym("*") || this.#isSym("/")) {
      const op = this.#next().text as "*" | "/";
      const right = this.#power();
      left = { kind: "Binary", op, left, right, span: this.#span(start) };
    }
    return left;
  }

  #power(): Node {
    const start = this.#peek();
    let left = this.#unary();
    while (this.#isSym("**")) {
      this.#next();
      const right = this.#unary();
      left = { kind: "Binary", op: "**", left, right, span: this.#span(start) };
    }
    return left;
  }

  #unary(): Node {
    if (!this.#isSym("-")) return this.#postfix();
    const start = this.#next();
    const operand = this.#unary();
    return { kind: "Negation", operand, span: this.#span(start) };
  }

  #postfix(): Node {
    const start = this.#peek();
    let node = this.#primary();
    for (;;) {
      if (this.#isSym(".") && this.#peek(1).type === "name") {
        this.#next();
        const member = this.#name().name;
        node = { kind: "Path", base: node, member, span: this.#span(start) };
      } else if (this.#isSym("[") && !(this.#intervalEnd && !startsExpression(this.#peek(1)))) {
        this.#next();
        const filter = this.#nested(() => this.#expression());
        this.#expectSym("]");
        node = { kind: "Filter", base: node, filter, span: this.#span(start) };
      } else if (this.#isSym("(")) {
        this.#next();
        const { args, named } = this.#arguments();
        node = { kind: "Invocation", callee: node, args, named, span: this.#span(start) };
      } else {
        return node;
      }
    }
  }

  /** Parses a bracketed sub-expression, where an enclosing interval's `[` rule no longer applies. */
  #nested<T>(body: () => T): T {
    const saved = this.#intervalEnd;
    this.#intervalEnd = false;
    try {
      return body();
    } finally {
      this.#intervalEnd = saved;
    }
  }

  #arguments(): { args: Argument[]; named: boolean } {
    const args: Argument[] = [];
    if (this.#isSym(")")) {
      this.#next();
      return { args, named: false };
    }
    let q = this.#p;
    while (isNamePart(this.#tokens[q])) q++;
    const named = q > this.#p && this.#tokens[q].type === "symbol" && this.#tokens[q].text === ":";
    this.#nested(() => {
      do {
        if (named) {
          const { name } = this.#bindingName("a parameter name");
          if (args.some((a) => a.name === name)) this.#fail(`parameter '${name}' given twice`);
          this.#expectSym(":");
          args.push({ name, value: this.#expression() });
        } else {
          args.push({ value: this.#expression() });
        }
      } while (this.#isSym(",") && this.#next());
    });
    this.#expectSym(")");
    return { args, named };
  }

  #primary(): Node {
    const t = this.#peek();
    switch (t.type) {
      case "number":
        this.#next();
        return { kind: "Number", text: t.text, span: this.#span(t) };
      case "string":
        this.#next();
        return { kind: "String", value: t.text, span: this.#span(t) };
      case "name":
        return this.#word(t);
      case "symbol":
        return this.#symbolPrimary(t);
      default:
        return this.#fail("unexpected end of the text; an expression is missing");
    }
  }

  #word(t: Token): Node {
    if (t.text === "?") {
      this.#next();
      return { kind: "Name", name: "?", span: this.#span(t) };
    }
    if (RESERVED.has(t.text) && this.#knownAt(this.#p) === null) {
      switch (t.text) {
        case "true":
        case "false":
          this.#next();
          return { kind: "Boolean", value: t.text === "true", span: this.#span(t) };
        case "null":
          this.#next();
          return { kind: "Null", span: this.#span(t) };
        case "if":
        case "for":
        case "some":
        case "every":
        case "function":
          return this.#expression();
        default:
          this.#fail(`unexpected keyword '${t.text}'`);
      }
    }
    const { name, span } = this.#name();
    return { kind: "Name", name, span };
  }

  #symbolPrimary(t: Token): Node {
    switch (t.text) {
      case "@": {
        this.#next();
        const s = this.#peek();
        if (s.type !== "string") this.#fail(`expected a string after '@' but found ${describe(s)}`);
        this.#next();
        return { kind: "Temporal", text: s.text, span: this.#span(t) };
      }
      case "(": {
        this.#next();
        const inner = this.#nested(() => this.#expression());
        if (this.#isSym("..")) return this.#finishInterval(t, false, inner);
        this.#expectSym(")");
        return inner;
      }
      case "[":
        return this.#listOrInterval(t);
      case "]": {
        this.#next();
        const start = this.#nested(() => this.#expression());
        return this.#finishInterval(t, false, start);
      }
      case "{":
        return this.#context(t);
      case "<":
      case "<=":
      case ">":
      case ">=": {
        this.#next();
        const endpoint = this.#additive();
        const upper = t.text[0] === "<";
        const included = t.text.length === 2;
        return {
          kind: "Range",
          start: upper ? null : endpoint,
          startIncluded: upper ? false : included,
          end: upper ? endpoint : null,
          endIncluded: upper ? included : false,
          span: this.#span(t),
        };
      }
      case "=":
      case "!=": {
        this.#next();
        const value = this.#additive();
        return { kind: "UnaryCompare", op: t.text, value, span: this.#span(t) };
      }
    }
    return this.#fail(`unexpected ${describe(t)}`);
  }

  #listOrInterval(open: Token): Node {
    this.#next();
    if (this.#isSym("]")) {
      this.#next();
      return { kind: "List", items: [], span: this.#span(open) };
    }
    return this.#nested(() => {
      const first = this.#expression();
      if (this.#isSym("..")) return this.#finishInterval(open, true, first);
      const items = [first];
      while (this.#isSym(",")) {
        this.#next();
        items.push(this.#expression());
      }
      this.#expectSym("]");
      return { kind: "List", items, span: this.#span(open) };
    });
  }

  /** Parses `..end` and the closing bracket of an interval whose start is parsed. */
  #finishInterval(open: Token, startIncluded: boolean, start: Node): RangeNode {
    this.#expectSym("..");
    const saved = this.#intervalEnd;
    this.#intervalEnd = true;
    let end: Node;
    try {
      end = this.#expression();
    } finally {
      this.#intervalEnd = saved;
    }
    const close = this.#peek();
    if (!(this.#isSym("]") || this.#isSym(")") || this.#isSym("["))) {
      this.#fail(`expected ']', ')' or '[' to close the interval but found ${describe(close)}`);
    }
    this.#next();
    return {
      kind: "Range",
      start,
      startIncluded,
      end,
      endIncluded: close.text === "]",
      span: this.#span(open),
    };
  }

  #context(open: Token): Node {
    this.#next();
    return this.#nested(() =>
      this.#withScope((scope) => {
        const entries: ContextEntry[] = [];
        while (!this.#isSym("}")) {
          if (entries.length > 0) this.#expectSym(",");
          const k = this.#peek();
          let key: { name: string; span: Span };
          if (k.type === "string") {
            this.#next();
            key = { name: k.text, span: this.#span(k) };
          } else {
            key = this.#bindingName("a context key");
          }
          this.#expectSym(":");
          const value = this.#expression();
          entries.push({ key: key.name, keySpan: key.span, value });
          scope.add(key.name);
        }
        this.#next();
        return { kind: "Context", entries, span: this.#span(open) };
      })
    );
  }

  // ---- types --------------------------------------------------------------

  #type(): TypeNode {
    const start = this.#peek();
    if (start.type !== "name") this.#fail(`expected a type but found ${describe(start)}`);
    const generic = this.#isSym("<", 1);
    if (generic && (start.text === "list" || start.text === "range")) {
      this.#p += 2;
      const item = this.#type();
      this.#expectSym(">");
      const kind = start.text === "list" ? "ListType" : "RangeType";
      return { kind, item, span: this.#span(start) };
    }
    if (generic && start.text === "context") {
      this.#p += 2;
      const entries: { name: string; type: TypeNode }[] = [];
      while (!this.#isSym(">")) {
        if (entries.length > 0) this.#expectSym(",");
        const { name } = this.#bindingName("a context entry name");
        this.#expectSym(":");
        entries.push({ name, type: this.#type() });
      }
      this.#expectSym(">");
      return { kind: "ContextType", entries, span: this.#span(start) };
    }
    if (generic && start.text === "function") {
      this.#p += 2;
      const params: TypeNode[] = [];
      while (!this.#isSym(">")) {
        if (params.length > 0) this.#expectSym(",");
        params.push(this.#type());
      }
      this.#expectSym(">");
      this.#expectSym("-");
      this.#expectSym(">");
      const result = this.#type();
      return { kind: "FunctionType", params, result, span: this.#span(start) };
    }
    typeTable ??= new NameTable(TYPE_NAMES);
    let { name } = this.#name([typeTable, ...this.#scopes.slice(1)]);
    // Qualified names (an imported model's types) keep their dots.
    while (this.#isSym(".") && this.#peek(1).type === "name" && !this.#peek(1).spaced) {
      this.#next();
      name += "." + this.#name([]).name;
    }
    return { kind: "NamedType", name, span: this.#span(start) };
  }
}

const COMPARISONS = new Set(["=", "!=", "<", "<=", ">", ">="]);

/** Whether `t` can begin an expression (used to tell a filter from an interval's `[`). */
function startsExpression(t: Token): boolean {
  if (t.type === "number" || t.type === "string") return true;
  if (t.type === "name") {
    return !RESERVED.has(t.text) ||
      ["if", "for", "some", "every", "function", "true", "false", "null"].includes(t.text);
  }
  return t.type === "symbol" && ["(", "[", "{", "-", "@", "<", "<=", ">", ">="].includes(t.text);
}

/** A token as an error message shows it. */
function describe(t: Token): string {
  switch (t.type) {
    case "eof":
      return "the end of the text";
    case "string":
      return `string ${JSON.stringify(t.text)}`;
    case "number":
      return `number ${t.text}`;
    default:
      return `'${t.text}'`;
  }
}
