/**
 * FEEL compiler: turns a parsed expression into a tree of closures once, so
 * each evaluation only runs code (no AST walking, no name lookups by string
 * for local variables).
 *
 * - Local names resolve to frame slots at compile time; input variables to a
 *   per-evaluation cache index, converted from JS only when read.
 * - Sub-expressions whose value cannot change (literals, arithmetic on
 *   literals, pure built-in calls on literals, constant context entries) are
 *   folded; the warnings they produce are replayed on every evaluation, and a
 *   fold that relied on a built-in is skipped when the input context hides
 *   that built-in's name.
 *
 * @module
 */
import type {
  BinaryNode,
  ContextNode,
  FilterNode,
  ForNode,
  FunctionNode,
  InvocationNode,
  Iteration,
  Node,
  PathNode,
  QuantifiedNode,
  RangeNode,
  Span,
  UnaryTestsNode,
} from "./ast.ts";
import { builtins } from "./builtins/mod.ts";
import { type Diagnostic, errorDiagnostic, FeelCode } from "./diagnostic.ts";
import { parse, type ParseMode, type ParseOptions } from "./parser.ts";
import {
  childFrame,
  type Code,
  type Frame,
  frameAt,
  type InputContext,
  inputHasAny,
  inputPathReader,
  inputReader,
  member,
  Run,
  slotReader,
} from "./_compile_frame.ts";
import {
  type Compiled,
  type Constant,
  type ItemStep,
  Level,
  resolve,
  Scope,
} from "./_compile_scope.ts";
import { indexInto, iterationValues, matchesTest, resolveType } from "./_compile_support.ts";
import {
  add,
  type CallArgs,
  callFunction,
  divide,
  fromJs,
  isInstanceOf,
  kindName,
  multiply,
  negate,
  parseTemporalLiteral,
  power,
  subtract,
  valueCompare,
  valueEquals,
} from "./semantics.ts";
import {
  type EvalEnv,
  FeelContext,
  FeelDecimal,
  FeelFunction,
  feelNumber,
  type FeelParam,
  feelRange,
  type FeelType,
  type FeelValue,
  type RangeOperator,
} from "./values.ts";

/** Options for {@link compile}. */
export interface CompileOptions extends ParseOptions {
  /**
   * The expression must be replay-safe and no clock will be supplied:
   * `now()` and `today()` are rejected with a diagnostic.
   */
  readonly deterministic?: boolean;
  /** Types the caller defines (e.g. DMN item definitions), for `instance of` and typed parameters. */
  readonly types?: ReadonlyMap<string, FeelType>;
  /**
   * Implements `function(…) external {…}`: given the evaluated mapping
   * context (`{java: {class: …, method signature: …}}`) and the parameter
   * names, returns the function's body, or undefined when the mapping names
   * nothing the caller can run (the call is then null with a warning).
   */
  readonly externals?: ExternalResolver;
}

/** Resolves an external function mapping; see {@link CompileOptions.externals}. */
export type ExternalResolver = (
  mapping: FeelValue,
  params: readonly string[],
  env: EvalEnv,
) => ((args: readonly (FeelValue | undefined)[], env: EvalEnv) => FeelValue) | undefined;

/** Options for one evaluation. */
export interface EvaluateOptions {
  /** The clock for `now()`/`today()`: a Date, epoch milliseconds, or a function returning them. */
  readonly now?: Date | number | (() => number);
  /** IANA zone `now()`/`today()` use; UTC when absent. */
  readonly zone?: string;
  /** Refuse `now()`/`today()` unless `now` is supplied (instead of reading the system clock). */
  readonly deterministic?: boolean;
  /** The value a unary-test list is applied to (`?`); a JS or FEEL value. */
  readonly input?: unknown;
}

/** The value of an evaluation and the reasons behind every null produced on the way. */
export interface Evaluation {
  /** The result. */
  readonly value: FeelValue;
  /** One sentence per null produced by an error, in the order they happened. */
  readonly warnings: string[];
  /** Never set on a successful evaluation (lets callers test `diagnostics`). */
  readonly diagnostics?: undefined;
}

/** Why an evaluation could not run at all. */
export interface Refusal {
  /** Never set when refused. */
  readonly value?: undefined;
  /** Why: a parse error, a refused clock, or an internal defect. */
  readonly diagnostics: Diagnostic[];
}

/** Outcome of {@link CompiledExpression.evaluate}. */
export type EvaluateResult = Evaluation | Refusal;

/** Outcome of {@link compile}. */
export type CompileResult =
  | { readonly compiled: CompiledExpression; readonly diagnostics?: undefined }
  | { readonly compiled?: undefined; readonly diagnostics: Diagnostic[] };

/** A compiled expression or unary-test list: compile once, evaluate many times. */
export class CompiledExpression {
  readonly #run: Code;
  readonly #top: Level;
  readonly #globals: number;
  readonly #inputSlot: number | undefined;

  /** Use {@link compile}; this is called by the compiler. */
  constructor(
    /** The source text. */
    readonly text: string,
    /** Whether the text is an expression or a unary-test list. */
    readonly mode: ParseMode,
    /** Input-context paths the expression reads (see {@link paths}). */
    readonly paths: readonly string[],
    /** Whether the expression calls `now()` or `today()`. */
    readonly readsClock: boolean,
    parts: { run: Code; top: Level; globals: number; inputSlot?: number },
  ) {
    this.#run = parts.run;
    this.#top = parts.top;
    this.#globals = parts.globals;
    this.#inputSlot = parts.inputSlot;
  }

  /**
   * Evaluates against `context` (a plain JS object or a FEEL context). Never
   * throws: a refused clock or an internal defect comes back as diagnostics.
   */
  evaluate(context?: InputContext, options: EvaluateOptions = {}): EvaluateResult {
    const clock = clockOf(options);
    if (this.readsClock && clock === undefined) {
      return {
        diagnostics: [errorDiagnostic(
          FeelCode.NONDETERMINISTIC,
          "now() and today() need a clock in deterministic mode; supply one with the `now` option",
        )],
      };
    }
    const run = new Run(context, this.#top.size, this.#globals, { now: clock, zone: options.zone });
    if (this.#inputSlot !== undefined) run.v[this.#inputSlot] = fromJs(options.input);
    try {
      return { value: this.#run(run), warnings: run.warnings };
    } catch (e) {
      return {
        diagnostics: [errorDiagnostic(
          FeelCode.INTERNAL,
          `evaluation failed inside the FEEL library: ${
            e instanceof Error ? e.message : String(e)
          }`,
        )],
      };
    }
  }
}

function clockOf(options: EvaluateOptions): (() => number) | undefined {
  const now = options.now;
  if (now === undefined) return options.deterministic === true ? undefined : Date.now;
  if (typeof now === "function") return now;
  const ms = typeof now === "number" ? now : now.getTime();
  return () => ms;
}

/** Parses and compiles `text`; diagnostics instead of a result when it is malformed. */
export function compile(text: string, options: CompileOptions = {}): CompileResult {
  try {
    // The names are read twice (parser, compiler): an iterator would be spent after the first.
    const names = options.names === undefined ? undefined : [...options.names];
    const opts = { ...options, names };
    const parsed = parse(text, opts);
    if (parsed.diagnostics !== undefined) return { diagnostics: parsed.diagnostics };
    return compileAst(text, parsed.ast, opts);
  } catch (e) {
    const reason = e instanceof Error ? e.message : String(e);
    return {
      diagnostics: [
        errorDiagnostic(FeelCode.INTERNAL, `compilation failed inside the FEEL library: ${reason}`),
      ],
    };
  }
}

/** Compiles an already parsed tree (`text` is kept for reference). */
function compileAst(text: string, ast: Node, options: CompileOptions = {}): CompileResult {
  const c = new Compiler(options);
  const top = new Level(null);
  const scope = new Scope(null, top);
  let run: Code;
  let inputSlot: number | undefined;
  if (ast.kind === "UnaryTests") {
    inputSlot = scope.bind("?").slot;
    run = c.unaryTests(ast, scope, inputSlot);
  } else {
    run = c.node(ast, scope).run;
  }
  if (c.diagnostics.length > 0) return { diagnostics: c.diagnostics };
  const mode: ParseMode = ast.kind === "UnaryTests" ? "unaryTests" : "expression";
  const paths = [...c.paths].sort();
  return {
    compiled: new CompiledExpression(text, mode, paths, c.readsClock, {
      run,
      top,
      globals: c.globalCount,
      inputSlot,
    }),
  };
}

// Built-ins whose result depends on something other than their arguments.
const CLOCK_BUILTINS = new Set(["now", "today"]);

type Test = (input: FeelValue, f: Frame) => boolean | null;

class Compiler {
  readonly diagnostics: Diagnostic[] = [];
  readonly paths = new Set<string>();
  readsClock = false;
  readonly #globals = new Map<string, number>();
  readonly #declared: ReadonlySet<string>;

  constructor(readonly options: CompileOptions) {
    this.#declared = new Set(options.names ?? []);
  }

  get globalCount(): number {
    return this.#globals.size;
  }

  node(n: Node, scope: Scope): Compiled {
    switch (n.kind) {
      case "Number": {
        const value = feelNumber(n.text);
        return value === null
          ? constant(null, [`${n.text} is outside the range of FEEL numbers`])
          : constant(value);
      }
      case "String":
      case "Boolean":
        return constant(n.value);
      case "Null":
        return constant(null);
      case "Temporal": {
        const env = new Run(undefined, 1, 1, {});
        return constant(parseTemporalLiteral(n.text, env), env.warnings);
      }
      case "Name":
        return this.#name(n.name, n.span, scope, false);
      case "Path":
        return this.#path(n, scope);
      case "Filter":
        return this.#filter(n, scope);
      case "Invocation":
        return this.#invocation(n, scope);
      case "Negation": {
        const x = this.node(n.operand, scope);
        return fold([x], (f) => negate(x.run(f), f.env));
      }
      case "Binary":
        return this.#binary(n, scope);
      case "Logical":
        return this.#logical(n.op, this.node(n.left, scope), this.node(n.right, scope));
      case "Between": {
        const [x, lo, hi] = [n.value, n.low, n.high].map((e) => this.node(e, scope));
        return fold([x, lo, hi], (f) => {
          const v = x.run(f);
          const a = valueCompare(v, lo.run(f), f.env);
          const b = valueCompare(v, hi.run(f), f.env);
          return and(a === null ? null : a >= 0, b === null ? null : b <= 0);
        });
      }
      case "In":
        return this.#in(n.value, n.tests, scope);
      case "InstanceOf": {
        const x = this.node(n.value, scope);
        const type = resolveType(n.type, this.options.types);
        if (typeof type === "string") {
          return fold([x], (f) => {
            x.run(f);
            f.env.warn(`unknown type '${type}'`);
            return null;
          });
        }
        return fold([x], (f) => isInstanceOf(x.run(f), type));
      }
      case "If": {
        const [cond, then, otherwise] = [n.condition, n.then, n.else].map((e) =>
          this.node(e, scope)
        );
        const k = cond.constant;
        if (k !== undefined && k.warnings.length === 0 && k.guards.length === 0) {
          return k.value === true ? then : otherwise;
        }
        return fold(
          [cond, then, otherwise],
          (f) => cond.run(f) === true ? then.run(f) : otherwise.run(f),
        );
      }
      case "For":
        return this.#for(n, scope);
      case "Quantified":
        return this.#quantified(n, scope);
      case "Function":
        return this.#function(n, scope);
      case "Context":
        return this.#context(n, scope);
      case "List": {
        const items = n.items.map((e) => this.node(e, scope));
        return fold(items, (f) => items.map((i) => i.run(f)));
      }
      case "Range":
        return this.#range(n, scope);
      case "UnaryCompare": {
        const x = this.node(n.value, scope);
        const op = n.op;
        return fold([x], (f) => {
          const v = x.run(f);
          return feelRange(v, true, v, true, op);
        });
      }
      case "UnaryTests": {
        // A unary-test list nested in an expression cannot be written; the
        // parser only produces it at the top, where compileAst handles it.
        throw new Error("unary tests are only valid at the top level");
      }
    }
  }

  // ---- names --------------------------------------------------------------

  #name(name: string, span: Span, scope: Scope, callee: boolean): Compiled {
    const r = resolve(scope, name);
    let c: Compiled;
    if (r.binding !== undefined) {
      c = r.binding.compiled ?? { run: slotReader(r.hops, r.binding.slot) };
    } else {
      c = this.#global(name, span, callee, r.items.length > 0);
    }
    for (let i = r.items.length - 1; i >= 0; i--) c = { run: itemLookup(r.items[i], name, c.run) };
    return c;
  }

  /** A name not bound in the expression: an input variable, else a built-in. */
  #global(name: string, span: Span, callee: boolean, inFilter: boolean, record = true): Compiled {
    const builtin = builtins.get(name);
    if (CLOCK_BUILTINS.has(name)) this.#clock(span);
    const declared = this.#declared.has(name);
    // A called built-in is not an input path; inside a filter a name is
    // usually an entry of the items, so only a declared one is recorded.
    const input = builtin === undefined || declared || !callee;
    if (record && input && (!inFilter || declared)) this.paths.add(name);
    let index = this.#globals.get(name);
    if (index === undefined) this.#globals.set(name, index = this.#globals.size);
    const run = inputReader(name, index, builtin);
    // A pure built-in is a constant for folding, unless the input hides it.
    if (builtin === undefined || declared || CLOCK_BUILTINS.has(name)) return { run };
    return { run, constant: { value: builtin, warnings: [], guards: [name] } };
  }

  #clock(span: Span): void {
    this.readsClock = true;
    if (this.options.deterministic === true) {
      const { line, column, offset } = span;
      this.diagnostics.push(errorDiagnostic(
        FeelCode.NONDETERMINISTIC,
        `now() and today() are not allowed here: the expression must give the same result when replayed (line ${line}, column ${column})`,
        this.options.uri === undefined
          ? { line, column, offset }
          : { line, column, offset, uri: this.options.uri },
      ));
    }
  }

  #path(n: PathNode, scope: Scope): Compiled {
    // `a.b.c` over an input variable reads the JS object directly.
    const members: string[] = [];
    let root: Node = n;
    while (root.kind === "Path") {
      members.unshift(root.member);
      root = root.base;
    }
    if (root.kind === "Name") {
      const r = resolve(scope, root.name);
      if (r.binding === undefined && r.items.length === 0 && !builtins.has(root.name)) {
        const base = this.#global(root.name, root.span, false, false, false);
        this.paths.add([root.name, ...members].join("."));
        const general: Code = members.reduce<Code>(
          (code, m) => (f) => member(code(f), m, f.env),
          base.run,
        );
        return { run: inputPathReader(root.name, members, general) };
      }
    }
    const base = this.node(n.base, scope);
    const name = n.member;
    return fold([base], (f) => member(base.run(f), name, f.env));
  }

  // ---- operators ----------------------------------------------------------

  #binary(n: BinaryNode, scope: Scope): Compiled {
    const l = this.node(n.left, scope);
    const r = this.node(n.right, scope);
    const a = l.run;
    const b = r.run;
    let code: Code;
    switch (n.op) {
      case "+":
        code = (f) => add(a(f), b(f), f.env);
        break;
      case "-":
        code = (f) => subtract(a(f), b(f), f.env);
        break;
      case "*":
        code = (f) => multiply(a(f), b(f), f.env);
        break;
      case "/":
        code = (f) => divide(a(f), b(f), f.env);
        break;
      case "**":
        code = (f) => power(a(f), b(f), f.env);
        break;
      case "=":
        code = (f) => valueEquals(a(f), b(f), f.env);
        break;
      case "!=":
        code = (f) => {
          const eq = valueEquals(a(f), b(f), f.env);
          return eq === null ? null : !eq;
        };
        break;
      default:
        code = comparison(n.op, a, b);
    }
    return fold([l, r], code);
  }

  #logical(op: "and" | "or", l: Compiled, r: Compiled): Compiled {
    const a = l.run;
    const b = r.run;
    const code: Code = op === "and"
      ? (f) => {
        const x = a(f);
        if (x === false) return false;
        return and(truth(x, "and", f.env), truth(b(f), "and", f.env));
      }
      : (f) => {
        const x = a(f);
        if (x === true) return true;
        const y = truth(b(f), "or", f.env);
        if (y === true) return true;
        return truth(x, "or", f.env) === false && y === false ? false : null;
      };
    return fold([l, r], code);
  }

  // ---- unary tests --------------------------------------------------------

  /** The top-level unary-test list; the tested value sits in `inputSlot`. */
  unaryTests(n: UnaryTestsNode, scope: Scope, inputSlot: number): Code {
    if (n.any) return () => true;
    const tests = n.tests.map((t) => this.#test(t, scope));
    const negated = n.negated;
    return (f) => {
      const r = anyTest(tests, f.v[inputSlot], f);
      return negated && r !== null ? !r : r;
    };
  }

  /** One positive unary test; `?` must already be bound in `scope`. */
  #test(t: Node, scope: Scope): Test {
    const e = this.node(t, scope);
    if (mentions(t, "?")) {
      return (_x, f) => {
        const r = e.run(f);
        if (typeof r === "boolean") return r;
        f.env.warn(`a unary test using '?' gave ${kindName(r)} instead of a boolean`);
        return null;
      };
    }
    const run = e.run;
    return (x, f) => matchesTest(x, run(f), f.env);
  }

  #in(value: Node, tests: readonly Node[], scope: Scope): Compiled {
    const x = this.node(value, scope);
    const inner = new Scope(scope, scope.level);
    const slot = inner.bind("?").slot;
    const compiled = tests.map((t) => this.#test(t, inner));
    const run = x.run;
    return {
      run: (f) => {
        const v = run(f);
        f.v[slot] = v;
        return anyTest(compiled, v, f);
      },
    };
  }

  // ---- postfix ------------------------------------------------------------

  #filter(n: FilterNode, scope: Scope): Compiled {
    const base = this.node(n.base, scope);
    const list = (f: Frame): FeelValue[] | null => {
      const v = base.run(f);
      return v === null ? null : Array.isArray(v) ? v : [v];
    };
    const literal = literalIndex(n.filter);
    if (literal !== undefined) {
      const index = new FeelDecimal(literal);
      return fold([base], (f) => {
        const items = list(f);
        return items === null ? null : indexInto(items, index, f.env);
      });
    }
    const fresh = containsFunction(n.filter);
    const level = fresh ? new Level(scope.level) : scope.level;
    const slot = level.alloc();
    const inner = new Scope(scope, level, slot);
    inner.alias("item", slot);
    const pred = this.node(n.filter, inner).run;
    const frame = fresh ? (f: Frame) => childFrame(f, level.size, f.env) : (f: Frame) => f;
    return {
      run: (f) => {
        const items = list(f);
        if (items === null) return null;
        let g = frame(f);
        g.v[slot] = items.length === 0 ? null : items[0];
        const first = pred(g);
        if (first instanceof FeelDecimal) return indexInto(items, first, f.env);
        const out: FeelValue[] = [];
        if (items.length === 0) return out;
        if (first === true) out.push(items[0]);
        for (let i = 1; i < items.length; i++) {
          if (fresh) g = frame(f);
          g.v[slot] = items[i];
          if (pred(g) === true) out.push(items[i]);
        }
        return out;
      },
    };
  }

  #invocation(n: InvocationNode, scope: Scope): Compiled {
    const callee = n.callee.kind === "Name"
      ? this.#name(n.callee.name, n.callee.span, scope, true)
      : this.node(n.callee, scope);
    const args = n.args.map((a) => this.node(a.value, scope));
    const fn = callee.run;
    const label = n.callee.kind === "Name" ? `'${n.callee.name}'` : "the callee";
    const call = (f: Frame, callArgs: CallArgs): FeelValue => {
      const target = fn(f);
      if (target instanceof FeelFunction) return callFunction(target, callArgs, f.env);
      f.env.warn(`${label} is ${kindName(target)}, not a function`);
      return null;
    };
    let code: Code;
    if (n.named) {
      const names = n.args.map((a) => a.name!);
      code = (f) => {
        const named = new Map<string, FeelValue>();
        for (let i = 0; i < args.length; i++) named.set(names[i], args[i].run(f));
        return call(f, { named });
      };
    } else {
      const runs = args.map((a) => a.run);
      code = (f) => {
        const positional = new Array<FeelValue>(runs.length);
        for (let i = 0; i < runs.length; i++) positional[i] = runs[i](f);
        return call(f, { positional });
      };
    }
    return fold([callee, ...args], code);
  }

  // ---- literals with structure --------------------------------------------

  #range(n: RangeNode, scope: Scope): Compiled {
    const start = n.start === null ? undefined : this.node(n.start, scope);
    const end = n.end === null ? undefined : this.node(n.end, scope);
    let op: RangeOperator | undefined;
    if (start === undefined) op = n.endIncluded ? "<=" : "<";
    else if (end === undefined) op = n.startIncluded ? ">=" : ">";
    const { startIncluded, endIncluded } = n;
    const parts = [start, end].filter((p) => p !== undefined);
    return fold(parts, (f) =>
      feelRange(
        start === undefined ? null : start.run(f),
        startIncluded,
        end === undefined ? null : end.run(f),
        endIncluded,
        op,
      ));
  }

  #context(n: ContextNode, scope: Scope): Compiled {
    const inner = new Scope(scope, scope.level);
    const keys: string[] = [];
    const slots: number[] = [];
    const entries: Compiled[] = [];
    let duplicate: string | undefined;
    for (const e of n.entries) {
      if (keys.includes(e.key)) duplicate ??= e.key;
      // A function entry may call itself, so its name is visible in its body.
      const early = e.value.kind === "Function" ? inner.bind(e.key) : undefined;
      const c = this.node(e.value, inner);
      const binding = early ?? inner.bind(e.key);
      if (c.constant !== undefined && c.constant.warnings.length === 0) binding.compiled = c;
      keys.push(e.key);
      slots.push(binding.slot);
      entries.push(c);
    }
    if (duplicate !== undefined) {
      const message = `context literal has the key '${duplicate}' twice`;
      return constant(null, [message]);
    }
    return fold(entries, (f) => {
      const m = new Map<string, FeelValue>();
      for (let i = 0; i < entries.length; i++) {
        const v = entries[i].run(f);
        f.v[slots[i]] = v;
        m.set(keys[i], v);
      }
      return new FeelContext(m);
    });
  }

  #function(n: FunctionNode, scope: Scope): Compiled {
    const level = new Level(scope.level);
    const inner = new Scope(scope, level);
    const params: FeelParam[] = n.params.map((p) => {
      inner.bind(p.name);
      const type = p.type === undefined ? undefined : resolveType(p.type, this.options.types);
      return type === undefined || typeof type === "string"
        ? { name: p.name }
        : { name: p.name, type };
    });
    const signatures = [params];
    if (n.external) {
      // The mapping is an ordinary expression of the enclosing scope.
      const mapping = this.node(n.body, scope).run;
      const resolver = this.options.externals;
      const names = params.map((p) => p.name);
      return {
        run: (f) => {
          const body = resolver?.(mapping(f), names, f.env);
          return new FeelFunction(signatures, (args, env) => {
            if (body !== undefined) return body(args, env);
            env.warn("external functions (Java, PMML) without a known mapping are not supported");
            return null;
          });
        },
      };
    }
    const body = this.node(n.body, inner).run;
    const count = params.length;
    return {
      run: (f) =>
        new FeelFunction(signatures, (args, env) => {
          const g = childFrame(f, level.size, env);
          for (let i = 0; i < count; i++) g.v[i] = args[i] ?? null;
          return body(g);
        }),
    };
  }

  // ---- iteration ----------------------------------------------------------

  /** Compiles iteration contexts; `fresh` loops give every binding its own frame. */
  #iterations(
    iterations: readonly Iteration[],
    scope: Scope,
    fresh: boolean,
  ): { inner: Scope; level: Level; steps: { slot: number; source: Code; to?: Code }[] } {
    const level = fresh ? new Level(scope.level) : scope.level;
    const inner = new Scope(scope, level);
    const steps = iterations.map((it) => {
      const source = this.node(it.source, inner).run;
      const to = it.to === undefined ? undefined : this.node(it.to, inner).run;
      const slot = inner.bind(it.name).slot;
      return to === undefined ? { slot, source } : { slot, source, to };
    });
    return { inner, level, steps };
  }

  #for(n: ForNode, scope: Scope): Compiled {
    const fresh = containsFunction(n);
    const { inner, level, steps } = this.#iterations(n.iterations, scope, fresh);
    const partial = mentions(n.body, "partial") ? inner.bind("partial").slot : undefined;
    const body = this.node(n.body, inner).run;
    if (steps.length === 1 && !fresh && partial === undefined) {
      const { slot, source, to } = steps[0];
      return {
        run: (f) => {
          const items = iterationValues(source(f), to?.(f), f.env);
          if (items === null) return null;
          const out = new Array<FeelValue>(items.length);
          for (let i = 0; i < items.length; i++) {
            f.v[slot] = items[i];
            out[i] = body(f);
          }
          return out;
        },
      };
    }
    return {
      run: (f) => {
        const out: FeelValue[] = [];
        const ok = iterate(steps, fresh ? childFrame(f, level.size, f.env) : f, fresh, (g) => {
          if (partial !== undefined) g.v[partial] = out.slice();
          out.push(body(g));
        });
        return ok ? out : null;
      },
    };
  }

  #quantified(n: QuantifiedNode, scope: Scope): Compiled {
    const fresh = containsFunction(n);
    const { level, inner, steps } = this.#iterations(n.iterations, scope, fresh);
    const cond = this.node(n.condition, inner).run;
    const some = n.quantifier === "some";
    return {
      run: (f) => {
        // Every result must be a boolean, so no short cut: one non-boolean
        // makes the whole result null even after a deciding true (some) or
        // false (every).
        let decided = false;
        let invalid: FeelValue | undefined;
        const ok = iterate(steps, fresh ? childFrame(f, level.size, f.env) : f, fresh, (g) => {
          const v = cond(g);
          if (typeof v !== "boolean") invalid ??= v;
          else if (v === some) decided = true;
        });
        if (!ok) return null;
        if (invalid !== undefined) {
          f.env.warn(`'${n.quantifier}' needs boolean conditions, got ${kindName(invalid)}`);
          return null;
        }
        return some ? decided : !decided;
      },
    };
  }
}

/**
 * Runs `each` for every combination of the iteration steps (nested loops);
 * false when an iteration domain was invalid (its warning is already given).
 */
function iterate(
  steps: readonly { slot: number; source: Code; to?: Code }[],
  frame: Frame,
  fresh: boolean,
  each: (f: Frame) => void,
): boolean {
  const loop = (i: number, f: Frame): boolean => {
    if (i === steps.length) {
      each(f);
      return true;
    }
    const { slot, source, to } = steps[i];
    const items = iterationValues(source(f), to?.(f), f.env);
    if (items === null) return false;
    for (const item of items) {
      const g = fresh ? { v: f.v.slice(), up: f.up, rt: f.rt, env: f.env } : f;
      g.v[slot] = item;
      if (!loop(i + 1, g)) return false;
    }
    return true;
  };
  return loop(0, frame);
}

// ---- small helpers ---------------------------------------------------------

function constant(value: FeelValue, warnings: readonly string[] = []): Compiled {
  const k: Constant = { value, warnings, guards: [] };
  return { run: constantCode(k), constant: k };
}

function constantCode(k: Constant): Code {
  const { value, warnings } = k;
  if (warnings.length === 0) return () => value;
  return (f) => {
    for (const w of warnings) f.env.warn(w);
    return value;
  };
}

/**
 * Folds `code` into a constant when every part is constant: runs it once now
 * and keeps the value and its warnings. If the value relied on built-ins the
 * input context may hide, the original code runs whenever it does.
 */
function fold(parts: readonly Compiled[], code: Code): Compiled {
  if (!parts.every((p) => p.constant !== undefined)) return { run: code };
  // Fresh (growable) slot and cache arrays: the probe must not share state.
  const probe = new Run(undefined, 1, 1, {});
  let value: FeelValue;
  try {
    value = code(probe);
  } catch {
    // Let the error surface at evaluation time, where it is reported.
    return { run: code };
  }
  const guards = [...new Set(parts.flatMap((p) => p.constant!.guards))];
  const k: Constant = { value, warnings: probe.warnings, guards };
  const fast = constantCode(k);
  return {
    run: guards.length === 0 ? fast : (f) => (inputHasAny(f.rt, guards) ? code(f) : fast(f)),
    constant: k,
  };
}

function itemLookup(step: ItemStep, name: string, otherwise: Code): Code {
  const { hops, slot } = step;
  return (f) => {
    const item = frameAt(f, hops).v[slot];
    if (item instanceof FeelContext) {
      const v = item.entries.get(name);
      if (v !== undefined) return v;
    }
    return otherwise(f);
  };
}

function comparison(op: "<" | "<=" | ">" | ">=", a: Code, b: Code): Code {
  switch (op) {
    case "<":
      return (f) => {
        const c = valueCompare(a(f), b(f), f.env);
        return c === null ? null : c < 0;
      };
    case "<=":
      return (f) => {
        const c = valueCompare(a(f), b(f), f.env);
        return c === null ? null : c <= 0;
      };
    case ">":
      return (f) => {
        const c = valueCompare(a(f), b(f), f.env);
        return c === null ? null : c > 0;
      };
    case ">=":
      return (f) => {
        const c = valueCompare(a(f), b(f), f.env);
        return c === null ? null : c >= 0;
      };
  }
}

/** A boolean, or null with a warning for anything else (ternary logic). */
function truth(v: FeelValue, op: string, env: EvalEnv): boolean | null {
  if (typeof v === "boolean") return v;
  if (v !== null) env.warn(`'${op}' needs booleans, got ${kindName(v)}`);
  return null;
}

function and(a: boolean | null, b: boolean | null): boolean | null {
  if (a === false || b === false) return false;
  return a === true && b === true ? true : null;
}

/** Disjunction of tests: true if one holds, null if none holds but one was undecidable. */
function anyTest(tests: readonly Test[], input: FeelValue, f: Frame): boolean | null {
  let unknown = false;
  for (const t of tests) {
    const r = t(input, f);
    if (r === true) return true;
    if (r === null) unknown = true;
  }
  return unknown ? null : false;
}

/** The index of `list[3]` / `list[-1]` written as a literal. */
function literalIndex(n: Node): string | undefined {
  if (n.kind === "Number") return n.text;
  if (n.kind === "Negation" && n.operand.kind === "Number") return "-" + n.operand.text;
  return undefined;
}

/** Whether the tree mentions `name` anywhere (a conservative, syntactic check). */
function mentions(n: Node, name: string): boolean {
  return someNode(n, (x) => x.kind === "Name" && x.name === name);
}

/** Whether the tree defines a function (closures then need frames of their own). */
function containsFunction(n: Node): boolean {
  return someNode(n, (x) => x.kind === "Function");
}

function someNode(n: Node, test: (n: Node) => boolean): boolean {
  if (test(n)) return true;
  for (const child of children(n)) if (someNode(child, test)) return true;
  return false;
}

function children(n: Node): Node[] {
  switch (n.kind) {
    case "Path":
      return [n.base];
    case "Filter":
      return [n.base, n.filter];
    case "Invocation":
      return [n.callee, ...n.args.map((a) => a.value)];
    case "Negation":
      return [n.operand];
    case "Binary":
    case "Logical":
      return [n.left, n.right];
    case "Between":
      return [n.value, n.low, n.high];
    case "In":
      return [n.value, ...n.tests];
    case "InstanceOf":
      return [n.value];
    case "If":
      return [n.condition, n.then, n.else];
    case "For":
      return [...n.iterations.flatMap(iterationChildren), n.body];
    case "Quantified":
      return [...n.iterations.flatMap(iterationChildren), n.condition];
    case "Function":
      return [n.body];
    case "Context":
      return n.entries.map((e) => e.value);
    case "List":
      return [...n.items];
    case "Range":
      return [n.start, n.end].filter((x) => x !== null);
    case "UnaryCompare":
      return [n.value];
    case "UnaryTests":
      return [...n.tests];
    default:
      return [];
  }
}

function iterationChildren(it: Iteration): Node[] {
  return it.to === undefined ? [it.source] : [it.source, it.to];
}
