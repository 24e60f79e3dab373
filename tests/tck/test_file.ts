/**
 * Reads a DMN TCK test file (`*-test-NN.xml`, namespace
 * `http://www.omg.org/spec/DMN/20160719/testcase`) into test cases whose
 * input and expected values are kept as written: typed values, untyped text
 * (converted later with the model's declared type), components, lists, nil.
 *
 * @module
 */
import { attr, childrenNamed, nsAttr, parseXml, type XmlElement, XSI_NS } from "./_xml.ts";

/** The test-case vocabulary namespace. */
export const TESTCASE_NS = "http://www.omg.org/spec/DMN/20160719/testcase";

/** A value as written in a test file. */
export type TckValue =
  | { readonly kind: "nil" }
  | { readonly kind: "typed"; readonly type: string; readonly text: string }
  | { readonly kind: "untyped"; readonly text: string }
  | { readonly kind: "components"; readonly components: readonly [string, TckValue][] }
  | { readonly kind: "list"; readonly items: readonly TckValue[] };

/** An input of a test case. */
export interface TckInput {
  /** The input data (or input decision) name. */
  readonly name: string;
  /** The namespace of the model declaring it, when not the main model. */
  readonly namespace?: string;
  /** The value. */
  readonly value: TckValue;
}

/** An expected result of a test case. */
export interface TckResultNode {
  /** The decision (or output decision) name. */
  readonly name: string;
  /** The namespace of the model declaring it, when given. */
  readonly namespace?: string;
  /** Whether the case expects an evaluation error (the value is then usually nil). */
  readonly errorResult: boolean;
  /** The expected value. */
  readonly expected: TckValue;
}

/** One test case. */
export interface TckCase {
  /** The case id (its position when the file gives none). */
  readonly id: string;
  /** `decision` (default), `decisionService` or `bkm`. */
  readonly type: string;
  /** The decision service to invoke, for `decisionService` cases. */
  readonly invocableName?: string;
  /** Inputs. */
  readonly inputs: readonly TckInput[];
  /** Expected results. */
  readonly results: readonly TckResultNode[];
}

/** A parsed test file. */
export interface TckFile {
  /** The model file name the cases run against, when given. */
  readonly modelName?: string;
  /** The cases in file order. */
  readonly cases: readonly TckCase[];
}

const NIL: TckValue = { kind: "nil" };

/** Reads a value element (`value`, `component` and `list` children of a valueType). */
export function readValue(e: XmlElement): TckValue {
  if (nsAttr(e, XSI_NS, "nil") === "true") return NIL;
  const [value] = childrenNamed(e, TESTCASE_NS, "value");
  if (value !== undefined) {
    if (nsAttr(value, XSI_NS, "nil") === "true") return NIL;
    const type = nsAttr(value, XSI_NS, "type");
    if (type === undefined) return { kind: "untyped", text: value.text };
    const colon = type.indexOf(":");
    return { kind: "typed", type: colon < 0 ? type : type.slice(colon + 1), text: value.text };
  }
  const components = childrenNamed(e, TESTCASE_NS, "component");
  if (components.length > 0) {
    return {
      kind: "components",
      components: components.map((c) => [attr(c, "name") ?? "", readValue(c)]),
    };
  }
  const [list] = childrenNamed(e, TESTCASE_NS, "list");
  if (list !== undefined) {
    if (nsAttr(list, XSI_NS, "nil") === "true") return NIL;
    return { kind: "list", items: childrenNamed(list, TESTCASE_NS, "item").map(readValue) };
  }
  return NIL;
}

/** Parses a test file; an error message when it is not a readable test file. */
export function readTestFile(text: string): TckFile | string {
  const parsed = parseXml(text);
  if (parsed.error !== undefined) {
    return `not well-formed XML: ${parsed.error.message} (line ${parsed.error.line})`;
  }
  const root = parsed.root;
  if (root.ns !== TESTCASE_NS || root.name !== "testCases") return "the root is not <testCases>";
  const [modelName] = childrenNamed(root, TESTCASE_NS, "modelName");
  const cases = childrenNamed(root, TESTCASE_NS, "testCase").map((c, i): TckCase => {
    const invocableName = attr(c, "invocableName");
    return {
      id: attr(c, "id") ?? String(i + 1),
      type: attr(c, "type") ?? "decision",
      ...(invocableName === undefined ? {} : { invocableName }),
      inputs: childrenNamed(c, TESTCASE_NS, "inputNode").map((n) => {
        const namespace = attr(n, "namespace");
        return {
          name: attr(n, "name") ?? "",
          value: readValue(n),
          ...(namespace === undefined ? {} : { namespace }),
        };
      }),
      results: childrenNamed(c, TESTCASE_NS, "resultNode").map((n) => {
        const [expected] = childrenNamed(n, TESTCASE_NS, "expected");
        const namespace = attr(n, "namespace");
        return {
          name: attr(n, "name") ?? "",
          errorResult: attr(n, "errorResult") === "true",
          expected: expected === undefined ? NIL : readValue(expected),
          ...(namespace === undefined ? {} : { namespace }),
        };
      }),
    };
  });
  return modelName === undefined ? { cases } : { modelName: modelName.text.trim(), cases };
}
