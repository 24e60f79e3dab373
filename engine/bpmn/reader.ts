/**
 * BPMN 2.0 XML → {@link Definitions}. Accepts any namespace prefixes (the
 * BPMN namespace is matched by URI), ignores vendor extensions, names
 * unsupported BPMN constructs in diagnostics and never throws on bad input.
 *
 * Reading does not validate references or execution rules; `validate.ts`
 * does that on the model this returns, so inspection tools can show a file
 * that does not load yet.
 *
 * @module
 */
import type { Diagnostic } from "../core/diagnostic.ts";
import { decodeXml } from "./_decode.ts";
import { booleanAttribute, BPMN_NAMESPACE, bpmnChildren, ReadContext } from "./_read_context.ts";
import { FlowReader, isEventDefinitionElement, optional } from "./_read_flow.ts";
import type { SourceText } from "./_source.ts";
import { attribute, parseXml, type XmlElement } from "./_xml.ts";
import type {
  Collaboration,
  DataStoreDefinition,
  Definitions,
  ErrorDefinition,
  EscalationDefinition,
  Import,
  ItemDefinition,
  MessageDefinition,
  Process,
  SignalDefinition,
} from "./model.ts";
import { Q_NAMESPACE } from "./q_model.ts";

/** Options for {@link readBpmn}. */
export interface ReadOptions {
  /** File path or URN used in diagnostics (default `memory.bpmn`). */
  readonly uri?: string;
}

/** What reading produced. `definitions` is absent when the text is not a BPMN document. */
export interface ReadResult {
  readonly definitions?: Definitions;
  readonly diagnostics: readonly Diagnostic[];
  /** The decoded document text (positions, raw spans). */
  readonly source?: SourceText;
  /** Every q: element written directly in an `extensionElements` block, in document order. */
  readonly qElements: readonly XmlElement[];
}

// Root elements that carry no execution meaning here.
const IGNORED_AT_ROOT: ReadonlySet<string> = new Set([
  "documentation",
  "extensionElements",
  "extension",
  "category",
  "resource",
  "partnerEntity",
  "partnerRole",
  "correlationProperty",
  "endPoint",
  "relationship",
]);

const GLOBAL_TASKS: ReadonlySet<string> = new Set([
  "globalTask",
  "globalUserTask",
  "globalManualTask",
  "globalScriptTask",
  "globalBusinessRuleTask",
]);

const CHOREOGRAPHY_ROOTS: ReadonlySet<string> = new Set([
  "choreography",
  "globalChoreographyTask",
  "globalConversation",
]);

/** Reads a BPMN document from text or bytes; every problem becomes a diagnostic. */
export function readBpmn(input: string | Uint8Array, options: ReadOptions = {}): ReadResult {
  const uri = options.uri ?? "memory.bpmn";
  let text: string;
  if (typeof input === "string") {
    text = input;
  } else {
    const decoded = decodeXml(input);
    if (!decoded.ok) {
      return {
        diagnostics: [{
          code: "SUTRA.CONFIG.BPMN.ENCODING_UNSUPPORTED",
          severity: "ERROR",
          message: `cannot decode the file: ${decoded.reason}`,
          source: { uri, line: 1, column: 1 },
          attributes: { encoding: decoded.encoding },
        }],
        qElements: [],
      };
    }
    text = decoded.text;
  }
  const parsed = parseXml(text);
  if (!parsed.ok) {
    return {
      diagnostics: parsed.problems.map((p) => ({
        code: "SUTRA.CONFIG.BPMN.XML_MALFORMED",
        severity: "ERROR" as const,
        message: `not well-formed XML: ${p.message}`,
        source: { uri, line: p.line, column: p.column },
      })),
      qElements: [],
    };
  }
  const { root, source } = parsed.document;
  const ctx = new ReadContext(source, uri);
  if (root.uri !== BPMN_NAMESPACE || root.local !== "definitions") {
    ctx.report(
      "SUTRA.CONFIG.BPMN.NOT_BPMN",
      `the root element is <${root.name}> in '${root.uri}', not a BPMN 2.0 <definitions>`,
      root,
      { attributes: { element: root.local, namespace: root.uri } },
    );
    return { diagnostics: ctx.diagnostics, source, qElements: [] };
  }
  const definitions = readDefinitions(ctx, root);
  registerRemainingIds(ctx, root);
  const qElements = checkQPlacement(ctx, root);
  return { definitions, diagnostics: ctx.diagnostics, source, qElements };
}

function readDefinitions(ctx: ReadContext, root: XmlElement): Definitions {
  const id = ctx.register(root, "other", { required: false });
  const shared = new Map<string, XmlElement>();
  for (const child of bpmnChildren(root)) {
    if (isEventDefinitionElement(child.local)) {
      const defId = ctx.register(child, "eventDefinition");
      if (defId) shared.set(defId, child);
    }
  }
  const flow = new FlowReader(ctx, shared);
  const processes: Process[] = [];
  const collaborations: Collaboration[] = [];
  const messages: MessageDefinition[] = [];
  const signals: SignalDefinition[] = [];
  const errors: ErrorDefinition[] = [];
  const escalations: EscalationDefinition[] = [];
  const dataStores: DataStoreDefinition[] = [];
  const itemDefinitions: ItemDefinition[] = [];
  const imports: Import[] = [];

  const element = (el: XmlElement, kind: Parameters<ReadContext["register"]>[1]) => ({
    id: ctx.register(el, kind),
    element: el.local,
    line: el.line,
    column: el.column,
    q: ctx.q(el),
    ...optional("name", attribute(el, "name")),
  });

  for (const child of bpmnChildren(root)) {
    switch (child.local) {
      case "process": {
        const base = element(child, "process");
        processes.push({
          ...base,
          content: flow.container(child, base.id),
          properties: flow.properties(child, base.id),
          ...optional("io", flow.io(child, base.id)),
          ...optional(
            "isExecutable",
            attribute(child, "isExecutable") === undefined
              ? undefined
              : booleanAttribute(ctx, child, "isExecutable", true),
          ),
        });
        break;
      }
      case "collaboration":
        collaborations.push(readCollaboration(child, element));
        break;
      case "message":
        messages.push({
          ...element(child, "message"),
          ...optional("itemRef", attribute(child, "itemRef")),
        });
        break;
      case "signal":
        signals.push({
          ...element(child, "signal"),
          ...optional("structureRef", attribute(child, "structureRef")),
        });
        break;
      case "error":
        errors.push({
          ...element(child, "error"),
          ...optional("errorCode", attribute(child, "errorCode")),
        });
        break;
      case "escalation":
        escalations.push({
          ...element(child, "escalation"),
          ...optional("escalationCode", attribute(child, "escalationCode")),
        });
        break;
      case "dataStore":
        dataStores.push({
          ...element(child, "dataStore"),
          ...optional("itemSubjectRef", attribute(child, "itemSubjectRef")),
        });
        break;
      case "itemDefinition":
        itemDefinitions.push({
          ...element(child, "itemDefinition"),
          isCollection: booleanAttribute(ctx, child, "isCollection", false),
          ...optional("structureRef", attribute(child, "structureRef")),
          ...optional("itemKind", attribute(child, "itemKind")),
        });
        break;
      case "import":
        imports.push({
          line: child.line,
          ...optional("namespace", attribute(child, "namespace")),
          ...optional("location", attribute(child, "location")),
          ...optional("importType", attribute(child, "importType")),
        });
        break;
      case "interface":
        ctx.register(child, "interface");
        for (const op of bpmnChildren(child, "operation")) ctx.register(op, "operation");
        break;
      default:
        readOtherRoot(ctx, child);
    }
  }
  return {
    id,
    element: "definitions",
    line: root.line,
    column: root.column,
    q: ctx.q(root),
    uri: ctx.uri,
    processes,
    collaborations,
    messages,
    signals,
    errors,
    escalations,
    dataStores,
    itemDefinitions,
    imports,
    ids: ctx.ids,
    ...optional("name", attribute(root, "name")),
    ...optional("targetNamespace", attribute(root, "targetNamespace")),
    ...optional("expressionLanguage", attribute(root, "expressionLanguage")?.trim()),
    ...optional("exporter", attribute(root, "exporter")),
  };
}

function readOtherRoot(ctx: ReadContext, child: XmlElement): void {
  if (isEventDefinitionElement(child.local) || IGNORED_AT_ROOT.has(child.local)) return;
  if (GLOBAL_TASKS.has(child.local)) {
    // Only an error when something calls it; reference checks see the kind.
    ctx.register(child, "globalTask");
    ctx.report(
      "SUTRA.CONFIG.BPMN.ELEMENT_UNSUPPORTED",
      `<${child.name}> is ignored: call activities can call processes, not global tasks`,
      child,
      { severity: "WARNING", attributes: { element: child.local } },
    );
  } else if (CHOREOGRAPHY_ROOTS.has(child.local)) {
    ctx.report(
      "SUTRA.CONFIG.BPMN.ELEMENT_UNSUPPORTED",
      `<${child.name}> is not supported: choreographies and conversations are not executed`,
      child,
      { attributes: { element: child.local } },
    );
  } else {
    ctx.report(
      "SUTRA.CONFIG.BPMN.ELEMENT_UNKNOWN",
      `<${child.name}> is not a BPMN 2.0 root element`,
      child,
      { attributes: { element: child.local } },
    );
  }
}

function readCollaboration(
  el: XmlElement,
  element: (el: XmlElement, kind: Parameters<ReadContext["register"]>[1]) => {
    id: string;
    element: string;
    line: number;
    column: number;
    q: Collaboration["q"];
  },
): Collaboration {
  // Conversations, artifacts and correlation keys in a collaboration are
  // documentation; only pools and message flows matter to the engine.
  return {
    ...element(el, "collaboration"),
    participants: bpmnChildren(el, "participant").map((p) => ({
      ...element(p, "participant"),
      ...optional("processRef", attribute(p, "processRef")?.trim()),
    })),
    messageFlows: bpmnChildren(el, "messageFlow").map((f) => ({
      ...element(f, "messageFlow"),
      sourceRef: attribute(f, "sourceRef")?.trim() ?? "",
      targetRef: attribute(f, "targetRef")?.trim() ?? "",
      ...optional("messageRef", attribute(f, "messageRef")?.trim()),
    })),
  };
}

/**
 * Registers the ids of BPMN elements the model does not keep (annotations,
 * groups, input sets, …) so that references to them resolve, and so that
 * an id they share with a modelled element is reported as reused.
 */
function registerRemainingIds(ctx: ReadContext, el: XmlElement): void {
  if (el.uri !== BPMN_NAMESPACE) return;
  if (!ctx.registered.has(el) && attribute(el, "id") !== undefined) {
    ctx.register(el, "other", { required: false });
  }
  for (const child of el.children) registerRemainingIds(ctx, child);
}

/**
 * Reports q: elements the model did not take (outside `extensionElements`,
 * or on an element that has no q: settings) and returns every q: element
 * written in an `extensionElements` block, for the schema check.
 */
function checkQPlacement(ctx: ReadContext, root: XmlElement): XmlElement[] {
  const found: XmlElement[] = [];
  const walk = (el: XmlElement, parent: XmlElement | undefined): void => {
    if (el.uri === Q_NAMESPACE) {
      const inBlock = parent?.uri === BPMN_NAMESPACE && parent.local === "extensionElements";
      if (inBlock) found.push(el);
      if (!inBlock) {
        ctx.report(
          "SUTRA.CONFIG.BPMN.Q_MISPLACED",
          `<${el.name}> must be written inside <extensionElements>`,
          el,
          { attributes: { element: el.local } },
        );
      } else if (!ctx.consumedQ.has(el)) {
        ctx.report(
          "SUTRA.CONFIG.BPMN.Q_NOT_APPLICABLE",
          `<${el.name}> has no meaning on this element`,
          el,
          { attributes: { element: el.local } },
        );
      }
      return;
    }
    // Diagram interchange never carries q: elements; skip its bulk.
    if (el.uri !== BPMN_NAMESPACE && el.local === "BPMNDiagram") return;
    for (const child of el.children) walk(child, el);
  };
  walk(root, undefined);
  return found;
}
