/**
 * Reads boxed expressions (literal, context, invocation, relation, list,
 * function definition, conditional, filter, for/some/every, decision table)
 * from their XML elements.
 *
 * @module
 */
import { DmnCode } from "./diagnostic.ts";
import type {
  Aggregation,
  Binding,
  ContextEntry,
  DecisionRule,
  DecisionTable,
  DecisionTableInput,
  DecisionTableOutput,
  Expression,
  FunctionDefinition,
  FunctionKind,
  HitPolicy,
  LiteralExpression,
} from "./model.ts";
import { type ReadContext } from "./_read_context.ts";
import { attr, type XmlElement } from "./_xml.ts";

/** Local names of the elements that are boxed expressions. */
const EXPRESSION_ELEMENTS: ReadonlySet<string> = new Set([
  "literalExpression",
  "context",
  "invocation",
  "relation",
  "list",
  "functionDefinition",
  "conditional",
  "filter",
  "for",
  "some",
  "every",
  "decisionTable",
]);

const FEEL_LANGUAGES = /^(feel|https?:\/\/www\.omg\.org\/spec\/(DMN\/\d+\/)?FEEL\/?.*)$/i;

/** Whether an `expressionLanguage` URI names FEEL (any DMN version's FEEL namespace). */
export function isFeelLanguage(uri: string): boolean {
  return FEEL_LANGUAGES.test(uri.trim());
}

const HIT_POLICIES: ReadonlySet<string> = new Set([
  "UNIQUE",
  "FIRST",
  "PRIORITY",
  "ANY",
  "COLLECT",
  "RULE ORDER",
  "OUTPUT ORDER",
]);

const AGGREGATIONS: ReadonlySet<string> = new Set(["SUM", "COUNT", "MIN", "MAX"]);

/** The first boxed-expression child of `e`, if any. */
export function expressionChild(rc: ReadContext, e: XmlElement): XmlElement | undefined {
  return e.children.find((c) => c.ns === rc.ns && EXPRESSION_ELEMENTS.has(c.name));
}

/** Reads the expression held by `e` (a child expression wrapper such as `<if>`), reporting a missing one. */
function wrapped(rc: ReadContext, e: XmlElement | undefined, parent: XmlElement, role: string) {
  if (e === undefined) {
    rc.error(DmnCode.MALFORMED, `<${parent.name}> needs a <${role}> element`, parent);
    return emptyLiteral(rc, parent);
  }
  const x = expressionChild(rc, e);
  if (x === undefined) {
    rc.error(DmnCode.MALFORMED, `<${role}> needs an expression`, e);
    return emptyLiteral(rc, e);
  }
  return readExpression(rc, x);
}

function emptyLiteral(rc: ReadContext, at: XmlElement): LiteralExpression {
  return { kind: "literal", text: "", source: rc.at(at) };
}

function typed<T extends object>(
  rc: ReadContext,
  e: XmlElement,
  value: T,
): T & { typeRef?: string; id?: string } {
  const typeRef = rc.typeRef(e, attr(e, "typeRef"));
  const id = attr(e, "id");
  return {
    ...value,
    ...(typeRef === undefined ? {} : { typeRef }),
    ...(id === undefined ? {} : { id }),
  };
}

/** Reads a `literalExpression` (or any element shaped like one, such as `inputExpression`). */
export function readLiteral(rc: ReadContext, e: XmlElement): LiteralExpression {
  const language = attr(e, "expressionLanguage") ?? rc.defaultLanguage;
  const start = rc.textStart(e);
  const base = {
    kind: "literal" as const,
    text: rc.text(e),
    source: rc.at(e),
    ...(start === undefined ? {} : { textStart: start }),
  };
  return typed(
    rc,
    e,
    language === undefined || isFeelLanguage(language) ? base : { ...base, language },
  );
}

/** Reads one boxed expression element. */
export function readExpression(rc: ReadContext, e: XmlElement): Expression {
  const source = rc.at(e);
  switch (e.name) {
    case "literalExpression":
      return readLiteral(rc, e);
    case "context": {
      const entries: ContextEntry[] = [];
      for (const ce of rc.children(e, "contextEntry")) {
        const v = rc.child(ce, "variable");
        const x = expressionChild(rc, ce);
        const value = x === undefined ? emptyLiteral(rc, ce) : readExpression(rc, x);
        entries.push(v === undefined ? { value } : { variable: rc.informationItem(v), value });
      }
      return typed(rc, e, { kind: "context", entries, source });
    }
    case "invocation": {
      const callee = expressionChild(rc, e);
      const bindings: Binding[] = rc.children(e, "binding").map((b) => {
        const p = rc.child(b, "parameter");
        const parameter = p === undefined ? { name: "" } : rc.informationItem(p);
        if (p === undefined) rc.error(DmnCode.MALFORMED, "<binding> needs a <parameter>", b);
        const x = expressionChild(rc, b);
        return x === undefined ? { parameter } : { parameter, value: readExpression(rc, x) };
      });
      if (callee === undefined) {
        rc.error(DmnCode.MALFORMED, "<invocation> needs the expression of the function", e);
      }
      return typed(rc, e, {
        kind: "invocation",
        callee: callee === undefined ? emptyLiteral(rc, e) : readExpression(rc, callee),
        bindings,
        source,
      });
    }
    case "relation": {
      const columns = rc.children(e, "column").map((c) => rc.informationItem(c));
      const rows = rc.children(e, "row").map((r) =>
        r.children.filter((c) => c.ns === rc.ns && EXPRESSION_ELEMENTS.has(c.name))
          .map((c) => readExpression(rc, c))
      );
      rows.forEach((row, i) => {
        if (row.length !== columns.length) {
          rc.error(
            DmnCode.MALFORMED,
            `relation row ${i + 1} has ${row.length} cell(s) for ${columns.length} column(s)`,
            rc.children(e, "row")[i],
          );
        }
      });
      return typed(rc, e, { kind: "relation", columns, rows, source });
    }
    case "list": {
      const items = e.children.filter((c) => c.ns === rc.ns && EXPRESSION_ELEMENTS.has(c.name))
        .map((c) => readExpression(rc, c));
      return typed(rc, e, { kind: "list", items, source });
    }
    case "functionDefinition":
      return readFunctionDefinition(rc, e);
    case "conditional":
      return typed(rc, e, {
        kind: "conditional",
        if: wrapped(rc, rc.child(e, "if"), e, "if"),
        then: wrapped(rc, rc.child(e, "then"), e, "then"),
        else: wrapped(rc, rc.child(e, "else"), e, "else"),
        source,
      });
    case "filter":
      return typed(rc, e, {
        kind: "filter",
        in: wrapped(rc, rc.child(e, "in"), e, "in"),
        match: wrapped(rc, rc.child(e, "match"), e, "match"),
        source,
      });
    case "for":
    case "some":
    case "every": {
      const kind = e.name;
      const role = kind === "for" ? "return" : "satisfies";
      return typed(rc, e, {
        kind,
        variable: rc.required(e, "iteratorVariable"),
        in: wrapped(rc, rc.child(e, "in"), e, "in"),
        body: wrapped(rc, rc.child(e, role), e, role),
        source,
      });
    }
    case "decisionTable":
      return readDecisionTable(rc, e);
    default:
      rc.error(DmnCode.UNSUPPORTED, `<${e.name}> is not a boxed expression this engine reads`, e);
      return emptyLiteral(rc, e);
  }
}

/** Reads a `functionDefinition` (also used for a BKM's `encapsulatedLogic`). */
export function readFunctionDefinition(rc: ReadContext, e: XmlElement): FunctionDefinition {
  const kindText = attr(e, "kind") ?? "FEEL";
  const functionKind = (["FEEL", "Java", "PMML"] as const).find((k) =>
    k.toUpperCase() === kindText.trim().toUpperCase()
  );
  if (functionKind === undefined) {
    rc.error(DmnCode.MALFORMED, `function kind '${kindText}' is not FEEL, Java or PMML`, e);
  }
  const body = expressionChild(rc, e);
  const base = {
    kind: "function" as const,
    functionKind: functionKind ?? ("FEEL" as FunctionKind),
    parameters: rc.children(e, "formalParameter").map((p) => rc.informationItem(p)),
    source: rc.at(e),
  };
  return typed(rc, e, body === undefined ? base : { ...base, body: readExpression(rc, body) });
}

function readDecisionTable(rc: ReadContext, e: XmlElement): DecisionTable {
  const policyText = (attr(e, "hitPolicy") ?? "UNIQUE").trim().toUpperCase();
  let hitPolicy: HitPolicy = "UNIQUE";
  if (HIT_POLICIES.has(policyText)) hitPolicy = policyText as HitPolicy;
  else rc.error(DmnCode.DECISION_TABLE, `unknown hit policy '${policyText}'`, e);
  const aggregationText = attr(e, "aggregation")?.trim().toUpperCase();
  let aggregation: Aggregation | undefined;
  if (aggregationText !== undefined) {
    if (AGGREGATIONS.has(aggregationText)) aggregation = aggregationText as Aggregation;
    else rc.error(DmnCode.DECISION_TABLE, `unknown aggregation '${aggregationText}'`, e);
  }
  const inputs: DecisionTableInput[] = rc.children(e, "input").map((i) => {
    const ie = rc.child(i, "inputExpression");
    if (ie === undefined) rc.error(DmnCode.MALFORMED, "<input> needs an <inputExpression>", i);
    const values = rc.child(i, "inputValues");
    const label = attr(i, "label");
    const id = attr(i, "id");
    return {
      expression: ie === undefined ? emptyLiteral(rc, i) : readLiteral(rc, ie),
      source: rc.at(i),
      ...(values === undefined ? {} : { inputValues: rc.text(values) }),
      ...(label === undefined ? {} : { label }),
      ...(id === undefined ? {} : { id }),
    };
  });
  const outputs: DecisionTableOutput[] = rc.children(e, "output").map((o) => {
    const values = rc.child(o, "outputValues");
    const def = rc.child(o, "defaultOutputEntry");
    const name = attr(o, "name");
    const typeRef = rc.typeRef(o, attr(o, "typeRef"));
    const id = attr(o, "id");
    return {
      source: rc.at(o),
      ...(name === undefined ? {} : { name }),
      ...(typeRef === undefined ? {} : { typeRef }),
      ...(id === undefined ? {} : { id }),
      ...(values === undefined ? {} : { outputValues: rc.text(values) }),
      ...(def === undefined ? {} : { defaultOutputEntry: readLiteral(rc, def) }),
    };
  });
  if (outputs.length === 0) rc.error(DmnCode.DECISION_TABLE, "a decision table needs an output", e);
  const rules: DecisionRule[] = rc.children(e, "rule").map((r, index) => {
    const inputEntries = rc.children(r, "inputEntry").map((c) => readLiteral(rc, c));
    const outputEntries = rc.children(r, "outputEntry").map((c) => readLiteral(rc, c));
    if (inputEntries.length !== inputs.length || outputEntries.length !== outputs.length) {
      rc.error(
        DmnCode.DECISION_TABLE,
        `rule ${
          index + 1
        } has ${inputEntries.length} input and ${outputEntries.length} output cell(s) for ${inputs.length} input and ${outputs.length} output column(s)`,
        r,
      );
    }
    const id = attr(r, "id");
    return { inputEntries, outputEntries, source: rc.at(r), ...(id === undefined ? {} : { id }) };
  });
  return typed(rc, e, {
    kind: "decisionTable",
    hitPolicy,
    ...(aggregation === undefined ? {} : { aggregation }),
    inputs,
    outputs,
    rules,
    source: rc.at(e),
  });
}
