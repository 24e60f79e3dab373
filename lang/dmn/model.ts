/**
 * The DMN model as read from XML: definitions, DRG elements, item
 * definitions and boxed expressions. Plain immutable data; evaluation
 * compiles it into closures elsewhere.
 *
 * @module
 */
import type { SourceLocation } from "./diagnostic.ts";

/** A named, typed variable: a decision's output, a parameter, a context entry, a relation column. */
export interface InformationItem {
  /** The variable name. */
  readonly name: string;
  /** The declared type reference, as written (`number`, `tPerson`, `imported.tPerson`). */
  readonly typeRef?: string;
}

/** A reference to a DRG element: `#id` in the same model, or `namespace#id` in another. */
export interface Href {
  /** Namespace of the model holding the element; undefined for the same model. */
  readonly namespace?: string;
  /** The element id. */
  readonly id: string;
}

/** What every DMN element read from a file carries. */
export interface Located {
  /** Where the element starts. */
  readonly source: SourceLocation;
  /** The `id` attribute, when present. */
  readonly id?: string;
}

// ---- boxed expressions -----------------------------------------------------

/** A FEEL text (or another expression language, which is reported as unsupported). */
export interface LiteralExpression extends Located {
  /** Kind tag. */
  readonly kind: "literal";
  /** The expression text; empty when the element had none. */
  readonly text: string;
  /** Declared type of the result. */
  readonly typeRef?: string;
  /** `expressionLanguage` when it is not FEEL. */
  readonly language?: string;
  /** Where the text itself begins, so positions inside it map to the file. */
  readonly textStart?: SourceLocation;
}

/** One entry of a context; an entry without a variable is the context's result. */
export interface ContextEntry {
  /** The entry name and type; absent for the final result entry. */
  readonly variable?: InformationItem;
  /** The entry value. */
  readonly value: Expression;
}

/** A boxed context. */
export interface ContextExpression extends Located {
  /** Kind tag. */
  readonly kind: "context";
  /** Entries in order. */
  readonly entries: readonly ContextEntry[];
  /** Declared type of the result. */
  readonly typeRef?: string;
}

/** One argument binding of an invocation. */
export interface Binding {
  /** The parameter bound. */
  readonly parameter: InformationItem;
  /** The argument; absent means null. */
  readonly value?: Expression;
}

/** A boxed invocation of a business knowledge model or any function-valued expression. */
export interface InvocationExpression extends Located {
  /** Kind tag. */
  readonly kind: "invocation";
  /** The function to call (usually a literal naming a BKM). */
  readonly callee: Expression;
  /** Arguments by parameter name. */
  readonly bindings: readonly Binding[];
  /** Declared type of the result. */
  readonly typeRef?: string;
}

/** A boxed relation: a list of contexts sharing one set of columns. */
export interface RelationExpression extends Located {
  /** Kind tag. */
  readonly kind: "relation";
  /** Column names and types. */
  readonly columns: readonly InformationItem[];
  /** Cells of each row, one per column. */
  readonly rows: readonly (readonly Expression[])[];
  /** Declared type of the result. */
  readonly typeRef?: string;
}

/** A boxed list. */
export interface ListExpression extends Located {
  /** Kind tag. */
  readonly kind: "list";
  /** Items in order. */
  readonly items: readonly Expression[];
  /** Declared type of the result. */
  readonly typeRef?: string;
}

/** How a function definition's body is to be read. */
export type FunctionKind = "FEEL" | "Java" | "PMML";

/** A boxed function definition. */
export interface FunctionDefinition extends Located {
  /** Kind tag. */
  readonly kind: "function";
  /** FEEL (the body is an expression), Java or PMML (the body is a context naming the target). */
  readonly functionKind: FunctionKind;
  /** Formal parameters in order. */
  readonly parameters: readonly InformationItem[];
  /** The body; absent when the element had none. */
  readonly body?: Expression;
  /** Declared type of the function value. */
  readonly typeRef?: string;
}

/** A boxed conditional (`if … then … else`). */
export interface ConditionalExpression extends Located {
  /** Kind tag. */
  readonly kind: "conditional";
  /** The condition. */
  readonly if: Expression;
  /** The result when the condition is true. */
  readonly then: Expression;
  /** The result otherwise. */
  readonly else: Expression;
  /** Declared type of the result. */
  readonly typeRef?: string;
}

/** A boxed filter: the items of `in` for which `match` is true. */
export interface FilterExpression extends Located {
  /** Kind tag. */
  readonly kind: "filter";
  /** The list filtered. */
  readonly in: Expression;
  /** The condition, evaluated with `item` bound. */
  readonly match: Expression;
  /** Declared type of the result. */
  readonly typeRef?: string;
}

/** A boxed `for`, `some` or `every`. */
export interface IteratorExpression extends Located {
  /** Kind tag. */
  readonly kind: "for" | "some" | "every";
  /** The name each item is bound to. */
  readonly variable: string;
  /** The list or range iterated. */
  readonly in: Expression;
  /** The result per item (`for`) or the condition (`some`, `every`). */
  readonly body: Expression;
  /** Declared type of the result. */
  readonly typeRef?: string;
}

/** The seven hit policies. */
export type HitPolicy =
  | "UNIQUE"
  | "FIRST"
  | "PRIORITY"
  | "ANY"
  | "COLLECT"
  | "RULE ORDER"
  | "OUTPUT ORDER";

/** COLLECT aggregations. */
export type Aggregation = "SUM" | "COUNT" | "MIN" | "MAX";

/** An input column of a decision table. */
export interface DecisionTableInput extends Located {
  /** The expression whose value the column tests. */
  readonly expression: LiteralExpression;
  /** Allowed values of the column (unary tests), when given. */
  readonly inputValues?: string;
  /** Column label, for messages. */
  readonly label?: string;
}

/** An output column of a decision table. */
export interface DecisionTableOutput extends Located {
  /** The output name (the context key when there are several outputs). */
  readonly name?: string;
  /** Declared type of the column. */
  readonly typeRef?: string;
  /** Allowed values in priority order (unary tests). */
  readonly outputValues?: string;
  /** The value when no rule matched. */
  readonly defaultOutputEntry?: LiteralExpression;
}

/** One rule: a unary-test cell per input, an expression per output. */
export interface DecisionRule extends Located {
  /** Unary-test text per input column. */
  readonly inputEntries: readonly LiteralExpression[];
  /** Output expression per output column. */
  readonly outputEntries: readonly LiteralExpression[];
}

/** A decision table. */
export interface DecisionTable extends Located {
  /** Kind tag. */
  readonly kind: "decisionTable";
  /** The hit policy (UNIQUE when not given). */
  readonly hitPolicy: HitPolicy;
  /** COLLECT aggregation, when given. */
  readonly aggregation?: Aggregation;
  /** Input columns. */
  readonly inputs: readonly DecisionTableInput[];
  /** Output columns. */
  readonly outputs: readonly DecisionTableOutput[];
  /** Rules in order. */
  readonly rules: readonly DecisionRule[];
  /** Declared type of the result. */
  readonly typeRef?: string;
}

/** Any boxed expression. */
export type Expression =
  | LiteralExpression
  | ContextExpression
  | InvocationExpression
  | RelationExpression
  | ListExpression
  | FunctionDefinition
  | ConditionalExpression
  | FilterExpression
  | IteratorExpression
  | DecisionTable;

// ---- item definitions -------------------------------------------------------

/** A function type declared by an item definition. */
export interface FunctionItem {
  /** Parameters and their types. */
  readonly parameters: readonly InformationItem[];
  /** The result type. */
  readonly outputTypeRef?: string;
}

/** An item definition (or one of its components). */
export interface ItemDefinition extends Located {
  /** The type name. */
  readonly name: string;
  /** The base type, for a simple (possibly constrained) type or a collection of it. */
  readonly typeRef?: string;
  /** Components of a structured type. */
  readonly components: readonly ItemDefinition[];
  /** A function type. */
  readonly functionItem?: FunctionItem;
  /** Allowed values (unary tests) constraining the values. */
  readonly allowedValues?: string;
  /** DMN 1.5 type constraint (unary tests) on the base type's values. */
  readonly typeConstraint?: string;
  /** Whether values are lists of the described type. */
  readonly isCollection: boolean;
  /** `typeLanguage` when it is not FEEL. */
  readonly typeLanguage?: string;
}

// ---- DRG elements ------------------------------------------------------------

/** A decision. */
export interface Decision extends Located {
  /** Kind tag. */
  readonly kind: "decision";
  /** The decision name (its variable name). */
  readonly name: string;
  /** The output variable. */
  readonly variable: InformationItem;
  /** Required decisions. */
  readonly requiredDecisions: readonly Href[];
  /** Required input data. */
  readonly requiredInputs: readonly Href[];
  /** Required business knowledge models and decision services. */
  readonly requiredKnowledge: readonly Href[];
  /** The decision logic; absent when the decision has none. */
  readonly expression?: Expression;
}

/** An input data element. */
export interface InputData extends Located {
  /** Kind tag. */
  readonly kind: "inputData";
  /** The input name. */
  readonly name: string;
  /** The input variable. */
  readonly variable: InformationItem;
}

/** A business knowledge model: a named function. */
export interface BusinessKnowledgeModel extends Located {
  /** Kind tag. */
  readonly kind: "bkm";
  /** The BKM name. */
  readonly name: string;
  /** The function variable. */
  readonly variable: InformationItem;
  /** The function; absent when the BKM has no logic. */
  readonly logic?: FunctionDefinition;
  /** Required business knowledge models and decision services. */
  readonly requiredKnowledge: readonly Href[];
}

/** A decision service: a function over some decisions of the graph. */
export interface DecisionService extends Located {
  /** Kind tag. */
  readonly kind: "decisionService";
  /** The service name. */
  readonly name: string;
  /** The function variable. */
  readonly variable: InformationItem;
  /** Decisions whose values the service returns. */
  readonly outputDecisions: readonly Href[];
  /** Decisions evaluated inside the service. */
  readonly encapsulatedDecisions: readonly Href[];
  /** Decisions whose values are parameters of the service. */
  readonly inputDecisions: readonly Href[];
  /** Input data that are parameters of the service. */
  readonly inputData: readonly Href[];
}

/** Any evaluable DRG element. */
export type DrgElement = Decision | InputData | BusinessKnowledgeModel | DecisionService;

/** An `import` of another model (or an XSD/PMML document). */
export interface Import extends Located {
  /** The name its elements are qualified with. */
  readonly name: string;
  /** The imported document's namespace. */
  readonly namespace: string;
  /** The import type URI. */
  readonly importType: string;
  /** Where to find it, when given. */
  readonly locationURI?: string;
}

/** DMN versions this reader understands. */
export type DmnVersion = "1.1" | "1.2" | "1.3" | "1.4" | "1.5";

/** One DMN model (a `definitions` element). */
export interface Definitions extends Located {
  /** Where it was loaded from. */
  readonly uri: string;
  /** The model name. */
  readonly name: string;
  /** The model namespace. */
  readonly namespace: string;
  /** The DMN version of the XML vocabulary used. */
  readonly version: DmnVersion;
  /** Imports. */
  readonly imports: readonly Import[];
  /** Item definitions. */
  readonly itemDefinitions: readonly ItemDefinition[];
  /** DRG elements in document order. */
  readonly elements: readonly DrgElement[];
}
