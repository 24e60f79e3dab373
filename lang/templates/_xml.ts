/**
 * XML well-formedness checks with exact positions (`npm:saxes`): for XSLT
 * stylesheets at load, for source documents handed to a render, and for
 * rendered XML bodies.
 *
 * @module
 */
import { SaxesParser } from "saxes";

/** The first well-formedness error of a document. */
export interface XmlProblem {
  /** What is wrong. */
  readonly message: string;
  /** 1-based line. */
  readonly line: number;
  /** 1-based column where the parser noticed it. */
  readonly column: number;
}

const POSITION_PREFIX = /^\d+:\d+: /;

/** The first well-formedness (and namespace) error in `text`, or undefined when there is none. */
export function xmlProblem(text: string): XmlProblem | undefined {
  const parser = new SaxesParser({ xmlns: true, position: true });
  let problem: XmlProblem | undefined;
  parser.on("error", (e) => {
    problem ??= {
      message: e.message.replace(POSITION_PREFIX, ""),
      line: parser.line,
      column: Math.max(parser.column, 1),
    };
  });
  parser.write(text).close();
  return problem;
}

/** An element found by {@link findElements}. */
export interface ElementAt {
  /** Its local name. */
  readonly name: string;
  /** 1-based line of its start tag. */
  readonly line: number;
  /** 1-based column where the start tag ends. */
  readonly column: number;
}

/** Elements of namespace `ns` with one of `names`, in document order (`text` must be well-formed). */
export function findElements(text: string, ns: string, names: ReadonlySet<string>): ElementAt[] {
  const parser = new SaxesParser({ xmlns: true, position: true });
  const found: ElementAt[] = [];
  parser.on("opentag", (tag) => {
    if (tag.uri === ns && names.has(tag.local)) {
      found.push({ name: tag.local, line: parser.line, column: Math.max(parser.column, 1) });
    }
  });
  parser.write(text).close();
  return found;
}

/**
 * The start tag of the first element with an attribute holding `expression`,
 * either whole (`select="…"`) or as an attribute-value template part
 * (`name="{…}"`); undefined when there is none.
 */
export function findAttribute(text: string, expression: string): ElementAt | undefined {
  const parser = new SaxesParser({ xmlns: true, position: true });
  let found: ElementAt | undefined;
  parser.on("opentag", (tag) => {
    if (found !== undefined) return;
    for (const attr of Object.values(tag.attributes)) {
      if (attr.value === expression || attr.value.includes(`{${expression}}`)) {
        found = { name: tag.local, line: parser.line, column: Math.max(parser.column, 1) };
        return;
      }
    }
  });
  parser.write(text).close();
  return found;
}
