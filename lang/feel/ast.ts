/**
 * The FEEL abstract syntax tree produced by the parser.
 *
 * Every node carries the source span it was parsed from so later stages
 * (compiler, validators, editors) can point at the exact text.
 *
 * @module
 */

/** A region of the expression text: `offset`..`end` (exclusive), starting at `line`/`column`. */
export interface Span {
  /** 0-based offset of the first character. */
  readonly offset: number;
  /** 0-based offset just past the last character. */
  readonly end: number;
  /** 1-based line of the first character. */
  readonly line: number;
  /** 1-based column of the first character (UTF-16 code units). */
  readonly column: number;
}

/** Fields every node shares. */
export interface NodeBase {
  /** Where the node's text is. */
  readonly span: Span;
}

/** A numeric literal (`12`, `.5`, `1.2e3`), kept as its source text so no precision is lost. */
export interface NumberNode extends NodeBase {
  /** Discriminant. */
  readonly kind: "Number";
  /** The literal as written. */
  readonly text: string;
}

/** A string literal with escapes already decoded. */
export interface StringNode extends NodeBase {
  /** Discriminant. */
  readonly kind: "String";
  /** The decoded string. */
  readonly value: string;
}

/** `true` or `false`. */
export interface BooleanNode extends NodeBase {
  /** Discriminant. */
  readonly kind: "Boolean";
  /** The literal value. */
  readonly value: boolean;
}

/** `null`. */
export interface NullNode extends NodeBase {
  /** Discriminant. */
  readonly kind: "Null";
}

/** `@"…"`: a date, time, date-and-time or duration written as a string. */
export interface TemporalNode extends NodeBase {
  /** Discriminant. */
  readonly kind: "Temporal";
  /** The string after `@`. */
  readonly text: string;
}

/** A reference to a name in scope (`?` is the unary-test input). */
export interface NameNode extends NodeBase {
  /** Discriminant. */
  readonly kind: "Name";
  /** The name, with multi-word names joined by single spaces. */
  readonly name: string;
}

/** `base.member`: a context entry, a property, or a projection over a list. */
export interface PathNode extends NodeBase {
  /** Discriminant. */
  readonly kind: "Path";
  /** The value whose member is read. */
  readonly base: Node;
  /** The entry or property name. */
  readonly member: string;
}

/** `base[filter]`: a boolean filter or a 1-based (negative from the end) index. */
export interface FilterNode extends NodeBase {
  /** Discriminant. */
  readonly kind: "Filter";
  /** The list (or single value) filtered. */
  readonly base: Node;
  /** The condition or index, evaluated per item with `item` bound. */
  readonly filter: Node;
}

/** One argument of an invocation; `name` is set for named invocation. */
export interface Argument {
  /** Parameter name, for named invocation. */
  readonly name?: string;
  /** The argument expression. */
  readonly value: Node;
}

/** `callee(args)`, positional or named. */
export interface InvocationNode extends NodeBase {
  /** Discriminant. */
  readonly kind: "Invocation";
  /** The expression giving the function. */
  readonly callee: Node;
  /** Arguments in source order. */
  readonly args: readonly Argument[];
  /** Whether the arguments are named (`f(a: 1)`). */
  readonly named: boolean;
}

/** Arithmetic negation `-x`. */
export interface NegationNode extends NodeBase {
  /** Discriminant. */
  readonly kind: "Negation";
  /** The negated expression. */
  readonly operand: Node;
}

/** Operators with two operands. */
export type BinaryOperator =
  | "+"
  | "-"
  | "*"
  | "/"
  | "**"
  | "="
  | "!="
  | "<"
  | "<="
  | ">"
  | ">=";

/** Arithmetic or comparison. */
export interface BinaryNode extends NodeBase {
  /** Discriminant. */
  readonly kind: "Binary";
  /** The operator. */
  readonly op: BinaryOperator;
  /** Left operand. */
  readonly left: Node;
  /** Right operand. */
  readonly right: Node;
}

/** Ternary-logic conjunction or disjunction. */
export interface LogicalNode extends NodeBase {
  /** Discriminant. */
  readonly kind: "Logical";
  /** The operator. */
  readonly op: "and" | "or";
  /** Left operand. */
  readonly left: Node;
  /** Right operand. */
  readonly right: Node;
}

/** `value between low and high`. */
export interface BetweenNode extends NodeBase {
  /** Discriminant. */
  readonly kind: "Between";
  /** The tested value. */
  readonly value: Node;
  /** Lower bound (inclusive). */
  readonly low: Node;
  /** Upper bound (inclusive). */
  readonly high: Node;
}

/** `value in test` or `value in (test, test, …)`. */
export interface InNode extends NodeBase {
  /** Discriminant. */
  readonly kind: "In";
  /** The tested value. */
  readonly value: Node;
  /** Positive unary tests; one that holds is enough. */
  readonly tests: readonly Node[];
}

/** A type written after `instance of` or on a function parameter. */
export type TypeNode =
  | { readonly kind: "NamedType"; readonly name: string; readonly span: Span }
  | { readonly kind: "ListType"; readonly item: TypeNode; readonly span: Span }
  | { readonly kind: "RangeType"; readonly item: TypeNode; readonly span: Span }
  | {
    readonly kind: "ContextType";
    readonly entries: readonly { readonly name: string; readonly type: TypeNode }[];
    readonly span: Span;
  }
  | {
    readonly kind: "FunctionType";
    readonly params: readonly TypeNode[];
    readonly result: TypeNode;
    readonly span: Span;
  };

/** `value instance of type`. */
export interface InstanceOfNode extends NodeBase {
  /** Discriminant. */
  readonly kind: "InstanceOf";
  /** The tested value. */
  readonly value: Node;
  /** The type tested against. */
  readonly type: TypeNode;
}

/** `if c then a else b`. */
export interface IfNode extends NodeBase {
  /** Discriminant. */
  readonly kind: "If";
  /** The condition. */
  readonly condition: Node;
  /** Taken when the condition is true. */
  readonly then: Node;
  /** Taken otherwise (false, null, non-boolean). */
  readonly else: Node;
}

/** One `name in source` (or `name in from..to`) of a for or quantified expression. */
export interface Iteration {
  /** The iteration variable. */
  readonly name: string;
  /** Where the variable is declared. */
  readonly span: Span;
  /** The list or range iterated, or the lower bound of `from..to`. */
  readonly source: Node;
  /** Set for `name in from..to`: the upper bound (`source` is then the lower one). */
  readonly to?: Node;
}

/** `for x in …, y in … return body`. */
export interface ForNode extends NodeBase {
  /** Discriminant. */
  readonly kind: "For";
  /** Nested iteration contexts, outermost first. */
  readonly iterations: readonly Iteration[];
  /** Evaluated once per combination; `partial` holds earlier results. */
  readonly body: Node;
}

/** `some|every x in … satisfies condition`. */
export interface QuantifiedNode extends NodeBase {
  /** Discriminant. */
  readonly kind: "Quantified";
  /** Which quantifier. */
  readonly quantifier: "some" | "every";
  /** Nested iteration contexts, outermost first. */
  readonly iterations: readonly Iteration[];
  /** Evaluated once per combination; must be boolean. */
  readonly condition: Node;
}

/** A formal parameter of a function definition. */
export interface Parameter {
  /** Parameter name. */
  readonly name: string;
  /** Declared type, if any. */
  readonly type?: TypeNode;
  /** Where the parameter is declared. */
  readonly span: Span;
}

/** `function(params) body`; `external` bodies are parsed but not executable. */
export interface FunctionNode extends NodeBase {
  /** Discriminant. */
  readonly kind: "Function";
  /** Formal parameters in order. */
  readonly params: readonly Parameter[];
  /** The body (for `external`, the mapping context). */
  readonly body: Node;
  /** Whether the body names an external (Java/PMML) function. */
  readonly external: boolean;
}

/** One `key: value` of a context literal. */
export interface ContextEntry {
  /** The entry key. */
  readonly key: string;
  /** Where the key is written. */
  readonly keySpan: Span;
  /** The entry expression. */
  readonly value: Node;
}

/** `{key: value, …}`; later entries see earlier ones. */
export interface ContextNode extends NodeBase {
  /** Discriminant. */
  readonly kind: "Context";
  /** Entries in source order. */
  readonly entries: readonly ContextEntry[];
}

/** `[a, b, …]`. */
export interface ListNode extends NodeBase {
  /** Discriminant. */
  readonly kind: "List";
  /** Item expressions. */
  readonly items: readonly Node[];
}

/**
 * A range value: an interval `[a..b)` or a unary comparison `< b` / `>= a`
 * (an absent endpoint is unbounded).
 */
export interface RangeNode extends NodeBase {
  /** Discriminant. */
  readonly kind: "Range";
  /** Lower endpoint; null when unbounded. */
  readonly start: Node | null;
  /** Whether the lower endpoint belongs to the range. */
  readonly startIncluded: boolean;
  /** Upper endpoint; null when unbounded. */
  readonly end: Node | null;
  /** Whether the upper endpoint belongs to the range. */
  readonly endIncluded: boolean;
}

/** `= v` or `!= v`: a range value that tests equality or inequality. */
export interface UnaryCompareNode extends NodeBase {
  /** Discriminant. */
  readonly kind: "UnaryCompare";
  /** Equality or inequality. */
  readonly op: "=" | "!=";
  /** The compared value. */
  readonly value: Node;
}

/** A unary-test list: `-` (any input), `t1, t2, …`, or `not(t1, t2, …)`. */
export interface UnaryTestsNode extends NodeBase {
  /** Discriminant. */
  readonly kind: "UnaryTests";
  /** Empty for `-`. */
  readonly tests: readonly Node[];
  /** Whether the list is wrapped in `not(…)`. */
  readonly negated: boolean;
  /** True for `-`. */
  readonly any: boolean;
}

/** Any FEEL expression node. */
export type Node =
  | NumberNode
  | StringNode
  | BooleanNode
  | NullNode
  | TemporalNode
  | NameNode
  | PathNode
  | FilterNode
  | InvocationNode
  | NegationNode
  | BinaryNode
  | LogicalNode
  | BetweenNode
  | InNode
  | InstanceOfNode
  | IfNode
  | ForNode
  | QuantifiedNode
  | FunctionNode
  | ContextNode
  | ListNode
  | RangeNode
  | UnaryCompareNode
  | UnaryTestsNode;
