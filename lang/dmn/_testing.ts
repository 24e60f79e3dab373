/**
 * Helpers for this library's tests: small DMN documents written inline and
 * evaluated in one call.
 *
 * @module
 */
import assert from "node:assert/strict";
import { type FeelValue, formatFeel } from "../feel/mod.ts";
import { type DmnEvaluation, evaluateDecision } from "./evaluate.ts";
import { type DmnModels, loadModels } from "./models.ts";

/** The DMN 1.5 model namespace. */
export const DMN15 = "https://www.omg.org/spec/DMN/20230324/MODEL/";

/** Wraps `body` in a DMN 1.5 `definitions` element. */
export function dmn(body: string, namespace = "urn:test", name = "test"): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="${DMN15}" namespace="${namespace}" name="${name}" id="defs">
${body}
</definitions>`;
}

/** An input data element named `name` (its id is `i_<name>`). */
export function inputData(name: string, typeRef?: string): string {
  const type = typeRef === undefined ? "" : ` typeRef="${typeRef}"`;
  return `<inputData id="i_${name}" name="${name}"><variable name="${name}"${type}/></inputData>`;
}

/** A decision with the given inputs required and `logic` as its expression. */
export function decision(
  name: string,
  logic: string,
  options: {
    inputs?: readonly string[];
    decisions?: readonly string[];
    knowledge?: readonly string[];
    typeRef?: string;
  } = {},
): string {
  const req = (kind: string, ids: readonly string[] | undefined, prefix: string) =>
    (ids ?? []).map((i) =>
      `<${kind}><${
        kind === "knowledgeRequirement" ? "requiredKnowledge" : prefix
      } href="#${i}"/></${kind}>`
    )
      .join("");
  const type = options.typeRef === undefined ? "" : ` typeRef="${options.typeRef}"`;
  return `<decision id="${name}" name="${name}"><variable name="${name}"${type}/>` +
    req("informationRequirement", options.inputs?.map((i) => `i_${i}`), "requiredInput") +
    req("informationRequirement", options.decisions, "requiredDecision") +
    req("knowledgeRequirement", options.knowledge, "") +
    `${logic}</decision>`;
}

/** A literal expression. */
export function literal(text: string, typeRef?: string): string {
  const type = typeRef === undefined ? "" : ` typeRef="${typeRef}"`;
  return `<literalExpression${type}><text>${escapeXml(text)}</text></literalExpression>`;
}

/** Escapes text for an XML text node. */
export function escapeXml(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/** The shape of a decision table for {@link table}. */
export interface TableSpec {
  /** Hit policy attribute; UNIQUE when absent. */
  readonly hitPolicy?: string;
  /** COLLECT aggregation attribute. */
  readonly aggregation?: string;
  /** Input expressions, with optional input values. */
  readonly inputs: readonly (string | { readonly text: string; readonly values?: string })[];
  /** Output columns. */
  readonly outputs?: readonly {
    readonly name?: string;
    readonly typeRef?: string;
    readonly values?: string;
    readonly default?: string;
  }[];
  /** Rules: input cells, then output cells. */
  readonly rules: readonly (readonly [readonly string[], readonly string[]])[];
}

/** A decision table element. */
export function table(spec: TableSpec): string {
  const attrs = [
    spec.hitPolicy === undefined ? "" : ` hitPolicy="${spec.hitPolicy}"`,
    spec.aggregation === undefined ? "" : ` aggregation="${spec.aggregation}"`,
  ].join("");
  const inputs = spec.inputs.map((i) => {
    const { text, values } = typeof i === "string" ? { text: i, values: undefined } : i;
    const v = values === undefined
      ? ""
      : `<inputValues><text>${escapeXml(values)}</text></inputValues>`;
    return `<input><inputExpression><text>${escapeXml(text)}</text></inputExpression>${v}</input>`;
  }).join("");
  const outputs = (spec.outputs ?? [{}]).map((o) => {
    const a = [
      o.name === undefined ? "" : ` name="${o.name}"`,
      o.typeRef === undefined ? "" : ` typeRef="${o.typeRef}"`,
    ].join("");
    const v = o.values === undefined
      ? ""
      : `<outputValues><text>${escapeXml(o.values)}</text></outputValues>`;
    const d = o.default === undefined
      ? ""
      : `<defaultOutputEntry><text>${escapeXml(o.default)}</text></defaultOutputEntry>`;
    return `<output${a}>${v}${d}</output>`;
  }).join("");
  const rules = spec.rules.map(([ins, outs]) =>
    `<rule>${ins.map((c) => `<inputEntry><text>${escapeXml(c)}</text></inputEntry>`).join("")}${
      outs.map((c) => `<outputEntry><text>${escapeXml(c)}</text></outputEntry>`).join("")
    }</rule>`
  ).join("");
  return `<decisionTable${attrs}>${inputs}${outputs}${rules}</decisionTable>`;
}

/** Loads documents, failing the test on any ERROR diagnostic. */
export function load(...xml: string[]): DmnModels {
  const r = loadModels(xml.map((text, i) => ({ uri: `m${i}.dmn`, text })));
  const errors = r.diagnostics.filter((d) => d.severity === "ERROR");
  assert.deepEqual(errors, []);
  return r.models!;
}

/** Evaluates a decision of a one-document model, failing the test on a refusal. */
export function run(
  xml: string,
  name: string,
  inputs: Record<string, unknown> = {},
): DmnEvaluation {
  const r = evaluateDecision(load(xml), name, inputs);
  assert.equal(r.diagnostics, undefined, JSON.stringify(r.diagnostics));
  return r as DmnEvaluation;
}

/** The value of a decision in FEEL syntax (easy to compare in assertions). */
export function value(xml: string, name: string, inputs: Record<string, unknown> = {}): string {
  return show(run(xml, name, inputs).value);
}

/** A value in FEEL syntax. */
export function show(v: FeelValue): string {
  return formatFeel(v);
}
