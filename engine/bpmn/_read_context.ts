/**
 * State shared by the reader's parts while one document is read: the
 * source, the id index, the diagnostics so far, and which q: elements have
 * been attached to a model element.
 *
 * @module
 */
import { type Diagnostic, diagnostic, type Severity } from "../core/diagnostic.ts";
import type { SourceText } from "./_source.ts";
import { attribute, type XmlElement } from "./_xml.ts";
import type { IdEntry, IdKind } from "./model.ts";
import { Q_NAMESPACE, type QSettings } from "./q_model.ts";
import { NO_Q_SETTINGS, QReader } from "./q_reader.ts";

/** The BPMN 2.0 model namespace. */
export const BPMN_NAMESPACE = "http://www.omg.org/spec/BPMN/20100524/MODEL";

/** Mutable state of one read. */
export class ReadContext {
  /** The document text (positions, raw spans). */
  readonly source: SourceText;
  /** The document's URI, used in every diagnostic. */
  readonly uri: string;
  /** Every finding so far, in document order of discovery. */
  readonly diagnostics: Diagnostic[] = [];
  /** Every id seen and what it names. */
  readonly ids = new Map<string, IdEntry>();
  /** Elements whose id the reader registered under a kind. */
  readonly registered = new Set<XmlElement>();
  /** q: elements attached to a model element (the rest are misplaced). */
  readonly consumedQ = new Set<XmlElement>();
  readonly #q: QReader;

  constructor(source: SourceText, uri: string) {
    this.source = source;
    this.uri = uri;
    this.#q = new QReader(source);
  }

  /** Records a diagnostic pointing at an element. */
  report(
    code: string,
    message: string,
    at: { line: number; column: number },
    options: { severity?: Severity; attributes?: Record<string, string | number | boolean> } = {},
  ): void {
    this.diagnostics.push(diagnostic(code, message, {
      severity: options.severity ?? "ERROR",
      source: { uri: this.uri, line: at.line, column: at.column },
      attributes: options.attributes,
    }));
  }

  /**
   * Registers an element's id under a kind and returns it. A missing id on
   * an element that needs one and a reused id are both reported; the element
   * is still read (under an empty id) so later checks can see it.
   */
  register(
    el: XmlElement,
    kind: IdKind,
    options: { container?: string; required?: boolean } = {},
  ): string {
    this.registered.add(el);
    const id = attribute(el, "id")?.trim() ?? "";
    if (id === "") {
      if (options.required !== false) {
        this.report("SUTRA.CONFIG.BPMN.ID_MISSING", `<${el.name}> has no id`, el, {
          attributes: { element: el.local },
        });
      }
      return "";
    }
    const seen = this.ids.get(id);
    if (seen) {
      this.report(
        "SUTRA.CONFIG.BPMN.ID_DUPLICATE",
        `id '${id}' is already used on line ${seen.line}`,
        el,
        { attributes: { id, firstLine: seen.line } },
      );
      return id;
    }
    const entry: { -readonly [K in keyof IdEntry]: IdEntry[K] } = {
      kind,
      line: el.line,
      column: el.column,
    };
    if (options.container !== undefined) entry.container = options.container;
    const name = attribute(el, "name");
    if (name !== undefined) entry.name = name;
    this.ids.set(id, entry);
    return id;
  }

  /** The q: settings written in an element's `extensionElements`. */
  q(el: XmlElement): QSettings {
    const blocks = el.children.filter((c) =>
      c.uri === BPMN_NAMESPACE && c.local === "extensionElements"
    );
    if (blocks.length === 0) return NO_Q_SETTINGS;
    for (const block of blocks) {
      for (const child of block.children) {
        if (child.uri === Q_NAMESPACE) this.consumedQ.add(child);
      }
    }
    return this.#q.read(blocks);
  }
}

/** BPMN-namespace children of an element, optionally of one local name. */
export function bpmnChildren(el: XmlElement, local?: string): XmlElement[] {
  return el.children.filter((c) =>
    c.uri === BPMN_NAMESPACE && (local === undefined || c.local === local)
  );
}

/** The first BPMN-namespace child of a local name. */
export function bpmnChild(el: XmlElement, local: string): XmlElement | undefined {
  return el.children.find((c) => c.uri === BPMN_NAMESPACE && c.local === local);
}

/** Reads a BPMN boolean attribute; an unreadable value is reported and defaulted. */
export function booleanAttribute(
  ctx: ReadContext,
  el: XmlElement,
  local: string,
  fallback: boolean,
): boolean {
  const value = attribute(el, local)?.trim();
  if (value === undefined) return fallback;
  if (value === "true" || value === "1") return true;
  if (value === "false" || value === "0") return false;
  ctx.report(
    "SUTRA.CONFIG.BPMN.VALUE_INVALID",
    `${local}="${value}" on <${el.name}> is not a boolean`,
    el,
    { attributes: { attribute: local, value } },
  );
  return fallback;
}
