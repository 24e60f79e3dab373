/**
 * Builds {@link Expression} values from XML attributes and element text,
 * keeping the raw span so positions inside the expression can later be
 * mapped back to the file.
 *
 * @module
 */
import type { SourceText } from "./_source.ts";
import { attributeNode, type XmlElement } from "./_xml.ts";
import type { Expression } from "./model.ts";

const LEADING_SPACE = /^\s*/;

function build(
  source: SourceText,
  decoded: string,
  rawStart: number,
  rawEnd: number,
  language: string | undefined,
): Expression {
  const lead = LEADING_SPACE.exec(decoded)![0].length;
  const at = source.locateDecoded(rawStart, rawEnd, lead);
  const expression = {
    text: decoded.trim(),
    line: at.line,
    column: at.column,
    rawStart,
    rawEnd,
    lead,
  };
  return language === undefined ? expression : { ...expression, language };
}

/** The expression held in an attribute, or undefined when the attribute is absent. */
export function attributeExpression(
  source: SourceText,
  element: XmlElement,
  local: string,
): Expression | undefined {
  const node = attributeNode(element, local);
  if (!node) return undefined;
  // Find the value's opening quote inside the start tag as written.
  const tag = source.text.slice(element.start, element.contentStart);
  const escaped = node.name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const match = new RegExp(`\\s${escaped}\\s*=\\s*(["'])`).exec(tag);
  if (!match) {
    return build(source, node.value, element.start, element.start, undefined);
  }
  const rawStart = element.start + match.index + match[0].length;
  const rawEnd = source.text.indexOf(match[1], rawStart);
  return build(source, node.value, rawStart, rawEnd < 0 ? rawStart : rawEnd, undefined);
}

/** The expression held in an element's character data. */
export function textExpression(
  source: SourceText,
  element: XmlElement,
  language?: string,
): Expression {
  return build(source, element.text, element.contentStart, element.contentEnd, language);
}
