/**
 * `urn:sutra:codec:json`: JSON text (RFC 8259) in any charset, the payload
 * being the parsed value.
 *
 * @module
 */
import {
  type Codec,
  codecUrn,
  decoded,
  type EncodeResult,
  fatal,
  type Issue,
  issue,
} from "../../engine/core/codec.ts";
import { jsonSyntaxError, jsonTooDeepAt } from "./_json_syntax.ts";
import { checkDecoded } from "./_data.ts";
import { MAX_NESTING_DEPTH } from "../../engine/core/input_limits.ts";
import {
  decodeText,
  lineColumn,
  mediaMatches,
  parseMediaType,
  unsupportedMediaType,
  utf8,
} from "./_text.ts";
import { writeJson } from "./_json_write.ts";

/** Content types the JSON format is recognised by. */
export const JSON_TYPES: readonly string[] = ["application/json", "+json"];

/** A parsed JSON value, or the FATAL issue saying where the text breaks. */
export type JsonRead =
  | { readonly value: unknown; readonly issue?: undefined }
  | { readonly value?: undefined; readonly issue: Issue };

/**
 * Parses JSON text; never throws. Besides the grammar, a payload must nest
 * no deeper than {@link MAX_NESTING_DEPTH} levels and hold no lone
 * surrogate (docs/limits.md).
 */
export function readJson(text: string): JsonRead {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    const found = jsonSyntaxError(text);
    const offset = found?.offset ?? text.length;
    const { line, column } = lineColumn(text, offset);
    return {
      issue: issue(
        "SUTRA.PARSE.JSON.MALFORMED",
        `not well-formed JSON at line ${line}, column ${column}: ${
          found?.reason ?? "the text is not JSON"
        }`,
        { line, column },
      ),
    };
  }
  const deep = jsonTooDeepAt(text, MAX_NESTING_DEPTH);
  if (deep !== undefined) {
    const { line, column } = lineColumn(text, deep);
    return {
      issue: issue(
        "SUTRA.PARSE.JSON.TOO_DEEP",
        `arrays and objects nest deeper than ${MAX_NESTING_DEPTH} levels at line ${line}, column ${column}`,
        { line, column },
      ),
    };
  }
  const refused = checkDecoded(value, { tooDeep: "SUTRA.PARSE.JSON.TOO_DEEP" });
  return refused ? { issue: refused } : { value };
}

/** The built-in JSON codec. */
export const jsonCodec: Codec = {
  name: codecUrn("json"),
  contentTypes: JSON_TYPES,
  decode(bytes: Uint8Array, contentType?: string) {
    const media = parseMediaType(contentType);
    if (media && !mediaMatches(media, JSON_TYPES)) {
      return Promise.resolve(fatal(unsupportedMediaType(jsonCodec.name, contentType!, JSON_TYPES)));
    }
    const text = decodeText(bytes, media?.charset);
    if (text.issue) return Promise.resolve(fatal(text.issue));
    const read = readJson(text.text);
    return Promise.resolve(read.issue ? fatal(read.issue) : decoded(read.value));
  },
  messageTypes: () => [],
  shapeOf: () => undefined,
  encode(value: unknown): Promise<EncodeResult> {
    const written = writeJson(value);
    if (written.issue) return Promise.resolve({ ok: false, issues: [written.issue] });
    return Promise.resolve({
      ok: true,
      bytes: utf8(written.text),
      contentType: "application/json",
    });
  },
};
