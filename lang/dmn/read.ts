/**
 * Reads a DMN 1.1–1.5 XML document (any namespace prefix) into a
 * {@link Definitions} model, reporting every malformed or unsupported part
 * with its file and line instead of stopping at the first.
 *
 * @module
 */
import { DmnCode, type DmnDiagnostic, dmnDiagnostic } from "./diagnostic.ts";
import type {
  BusinessKnowledgeModel,
  Decision,
  DecisionService,
  Definitions,
  DmnVersion,
  DrgElement,
  Href,
  Import,
  InputData,
  ItemDefinition,
} from "./model.ts";
import { normalizeName, ReadContext } from "./_read_context.ts";
import {
  expressionChild,
  isFeelLanguage,
  readExpression,
  readFunctionDefinition,
} from "./_read_expression.ts";
import { attr, parseXml, type XmlElement } from "./_xml.ts";

/** The model namespace of each DMN version. */
export const DMN_NAMESPACES: ReadonlyMap<string, DmnVersion> = new Map([
  ["http://www.omg.org/spec/DMN/20151101/dmn.xsd", "1.1"],
  ["http://www.omg.org/spec/DMN/20180521/MODEL/", "1.2"],
  ["https://www.omg.org/spec/DMN/20191111/MODEL/", "1.3"],
  ["https://www.omg.org/spec/DMN/20211108/MODEL/", "1.4"],
  ["https://www.omg.org/spec/DMN/20230324/MODEL/", "1.5"],
]);

/** Options for {@link readDmn}. */
export interface ReadDmnOptions {
  /** The file or URI the text came from, copied into every diagnostic. */
  readonly uri?: string;
}

/** The outcome of {@link readDmn}: a model (possibly with diagnostics), or only diagnostics. */
export type ReadDmnResult =
  | { readonly model: Definitions; readonly diagnostics: DmnDiagnostic[] }
  | { readonly model?: undefined; readonly diagnostics: DmnDiagnostic[] };

/**
 * Reads a DMN document. When the text is XML with a DMN `definitions` root a
 * model is returned, together with every problem found in it; otherwise only
 * diagnostics. Never throws.
 */
export function readDmn(text: string, options: ReadDmnOptions = {}): ReadDmnResult {
  const uri = options.uri ?? "model.dmn";
  try {
    const parsed = parseXml(text);
    if (parsed.error !== undefined) {
      const { message, line, column } = parsed.error;
      return {
        diagnostics: [dmnDiagnostic(DmnCode.XML, `not well-formed XML: ${message}`, {
          source: { uri, line, column },
        })],
      };
    }
    const root = parsed.root;
    const version = DMN_NAMESPACES.get(root.ns);
    if (version === undefined || root.name !== "definitions") {
      return {
        diagnostics: [dmnDiagnostic(
          DmnCode.NOT_DMN,
          `the root element is {${root.ns}}${root.name}, not a DMN 1.1–1.5 <definitions>`,
          { source: { uri, line: root.line, column: root.column } },
        )],
      };
    }
    const rc = new ReadContext(root.ns, uri);
    const model = readDefinitions(rc, root, version);
    return { model, diagnostics: rc.diagnostics };
  } catch (e) {
    return {
      diagnostics: [dmnDiagnostic(
        DmnCode.INTERNAL,
        `reading the model failed inside the DMN library: ${e instanceof Error ? e.message : e}`,
        { source: { uri, line: 1, column: 1 } },
      )],
    };
  }
}

function readDefinitions(rc: ReadContext, root: XmlElement, version: DmnVersion): Definitions {
  rc.modelNamespace = attr(root, "namespace") ?? "";
  const language = attr(root, "expressionLanguage");
  if (language !== undefined && !isFeelLanguage(language)) rc.defaultLanguage = language;
  const imports: Import[] = rc.children(root, "import").map((e) => {
    const location = attr(e, "locationURI");
    return {
      name: normalizeName(attr(e, "name") ?? ""),
      namespace: rc.required(e, "namespace"),
      importType: attr(e, "importType") ?? "",
      source: rc.at(e),
      ...(location === undefined ? {} : { locationURI: location }),
    };
  });
  for (const imp of imports) rc.importNames.set(imp.namespace, imp.name);
  const itemDefinitions = rc.children(root, "itemDefinition").map((e) => readItemDefinition(rc, e));
  const elements: DrgElement[] = [];
  for (const e of root.children) {
    if (e.ns !== rc.ns) continue;
    const el = readDrgElement(rc, e);
    if (el !== undefined) elements.push(el);
  }
  const id = attr(root, "id");
  return {
    uri: rc.uri,
    name: rc.required(root, "name"),
    namespace: rc.required(root, "namespace"),
    version,
    imports,
    itemDefinitions,
    elements,
    source: rc.at(root),
    ...(id === undefined ? {} : { id }),
  };
}

function readItemDefinition(rc: ReadContext, e: XmlElement): ItemDefinition {
  const typeRef = rc.typeRef(e, rc.child(e, "typeRef")?.text);
  const allowed = rc.child(e, "allowedValues");
  const constraint = rc.child(e, "typeConstraint");
  const fn = rc.child(e, "functionItem");
  const language = attr(e, "typeLanguage");
  const id = attr(e, "id");
  const isCollection = attr(e, "isCollection")?.trim() === "true";
  const outputTypeRef = fn === undefined ? undefined : rc.typeRef(fn, attr(fn, "outputTypeRef"));
  const functionItem = fn === undefined ? undefined : {
    parameters: rc.children(fn, "parameters").map((p) => rc.informationItem(p)),
    ...(outputTypeRef === undefined ? {} : { outputTypeRef }),
  };
  return {
    name: normalizeName(rc.required(e, "name")),
    components: rc.children(e, "itemComponent").map((c) => readItemDefinition(rc, c)),
    isCollection,
    source: rc.at(e),
    ...(typeRef === undefined ? {} : { typeRef }),
    ...(allowed === undefined ? {} : { allowedValues: rc.text(allowed) }),
    ...(constraint === undefined ? {} : { typeConstraint: rc.text(constraint) }),
    ...(functionItem === undefined ? {} : { functionItem }),
    ...(language === undefined ? {} : { typeLanguage: language }),
    ...(id === undefined ? {} : { id }),
  };
}

function hrefs(rc: ReadContext, parents: XmlElement[], name: string): Href[] {
  const out: Href[] = [];
  for (const p of parents) {
    for (const r of rc.children(p, name)) {
      const h = rc.href(r);
      if (h !== undefined) out.push(h);
    }
  }
  return out;
}

function variableOf(rc: ReadContext, e: XmlElement, name: string) {
  const v = rc.child(e, "variable");
  if (v === undefined) return { name };
  const item = rc.informationItem(v);
  return { ...item, name: item.name === "" ? name : normalizeName(item.name) };
}

function readDrgElement(rc: ReadContext, e: XmlElement): DrgElement | undefined {
  const id = attr(e, "id");
  const el = readDrgElementBody(rc, e);
  return el === undefined || id === undefined ? el : { ...el, id };
}

function readDrgElementBody(rc: ReadContext, e: XmlElement): DrgElement | undefined {
  switch (e.name) {
    case "decision": {
      const name = normalizeName(rc.required(e, "name"));
      const info = rc.children(e, "informationRequirement");
      const knowledge = rc.children(e, "knowledgeRequirement");
      const x = expressionChild(rc, e);
      const decision: Decision = {
        kind: "decision",
        name,
        variable: variableOf(rc, e, name),
        requiredDecisions: hrefs(rc, info, "requiredDecision"),
        requiredInputs: hrefs(rc, info, "requiredInput"),
        requiredKnowledge: hrefs(rc, knowledge, "requiredKnowledge"),
        source: rc.at(e),
        ...(x === undefined ? {} : { expression: readExpression(rc, x) }),
      };
      return decision;
    }
    case "inputData": {
      const name = normalizeName(rc.required(e, "name"));
      const input: InputData = {
        kind: "inputData",
        name,
        variable: variableOf(rc, e, name),
        source: rc.at(e),
      };
      return input;
    }
    case "businessKnowledgeModel": {
      const name = normalizeName(rc.required(e, "name"));
      const logic = rc.child(e, "encapsulatedLogic");
      const bkm: BusinessKnowledgeModel = {
        kind: "bkm",
        name,
        variable: variableOf(rc, e, name),
        requiredKnowledge: hrefs(rc, rc.children(e, "knowledgeRequirement"), "requiredKnowledge"),
        source: rc.at(e),
        ...(logic === undefined ? {} : { logic: readFunctionDefinition(rc, logic) }),
      };
      return bkm;
    }
    case "decisionService": {
      const name = normalizeName(rc.required(e, "name"));
      const service: DecisionService = {
        kind: "decisionService",
        name,
        variable: variableOf(rc, e, name),
        outputDecisions: hrefs(rc, [e], "outputDecision"),
        encapsulatedDecisions: hrefs(rc, [e], "encapsulatedDecision"),
        inputDecisions: hrefs(rc, [e], "inputDecision"),
        inputData: hrefs(rc, [e], "inputData"),
        source: rc.at(e),
      };
      return service;
    }
    default:
      return undefined;
  }
}
