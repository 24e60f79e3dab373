/**
 * `urn:sutra:codec:yaml`: one YAML 1.2 document (core schema: `yes` is a
 * string, timestamps are strings), the payload being its data. Duplicate
 * keys, several documents in one payload, alias expansion beyond 100
 * aliases, nesting past the shared depth limit (an alias inside itself
 * nests without end) and lone surrogates are refused.
 *
 * @module
 */
import { isCollection, parseDocument, stringify, visit } from "yaml";
import {
  type Codec,
  codecUrn,
  decoded,
  type EncodeResult,
  fatal,
  type Issue,
  issue,
} from "../../engine/core/codec.ts";
import {
  decodeText,
  lineColumn,
  mediaMatches,
  parseMediaType,
  unsupportedMediaType,
  utf8,
} from "./_text.ts";
import { errorMessage } from "../../engine/core/errors.ts";
import { checkDecoded } from "./_data.ts";

/** Content types the YAML format is recognised by. */
export const YAML_TYPES: readonly string[] = [
  "application/yaml",
  "application/x-yaml",
  "text/yaml",
  "text/x-yaml",
  "+yaml",
];

/** Parsed YAML data with its warnings, or every error found. */
export type YamlRead =
  | { readonly value: unknown; readonly warnings: readonly Issue[]; readonly errors?: undefined }
  | {
    readonly value?: undefined;
    readonly warnings?: undefined;
    readonly errors: readonly Issue[];
  };

/** Parses one YAML document; never throws. */
export function readYaml(text: string): YamlRead {
  const at = (offset: number) => lineColumn(text, offset);
  let document;
  try {
    document = parseDocument(text, {
      prettyErrors: false,
      uniqueKeys: true,
      version: "1.2",
      // Findings become issues; the library must not log them itself.
      logLevel: "error",
    });
  } catch (e) {
    return { errors: [malformed(errorMessage(e), {})] };
  }
  if (document.errors.length > 0) {
    return { errors: document.errors.map((e) => malformed(e.message, at(e.pos[0]))) };
  }
  const warnings = document.warnings.map((w) =>
    issue("SUTRA.PARSE.YAML.WARNING", w.message, { severity: "WARNING", ...at(w.pos[0]) })
  );
  visit(document, {
    Pair(_, pair) {
      if (!isCollection(pair.key)) return;
      const where = pair.key.range ? at(pair.key.range[0]) : {};
      warnings.push(
        issue("SUTRA.PARSE.YAML.WARNING", "a mapping key that is a collection is read as text", {
          severity: "WARNING",
          ...where,
        }),
      );
    },
  });
  let value: unknown;
  try {
    value = document.toJS({ maxAliasCount: 100 });
  } catch (e) {
    return { errors: [malformed(errorMessage(e), {})] };
  }
  const refused = checkDecoded(value, { tooDeep: "SUTRA.PARSE.YAML.TOO_DEEP" });
  return refused ? { errors: [refused] } : { value, warnings };
}

function malformed(reason: string, where: { line?: number; column?: number }): Issue {
  const position = where.line === undefined ? "" : ` at line ${where.line}, column ${where.column}`;
  return issue("SUTRA.PARSE.YAML.MALFORMED", `not well-formed YAML${position}: ${reason}`, where);
}

/** The built-in YAML codec. */
export const yamlCodec: Codec = {
  name: codecUrn("yaml"),
  contentTypes: YAML_TYPES,
  decode(bytes: Uint8Array, contentType?: string) {
    const media = parseMediaType(contentType);
    if (media && !mediaMatches(media, YAML_TYPES)) {
      return Promise.resolve(fatal(unsupportedMediaType(yamlCodec.name, contentType!, YAML_TYPES)));
    }
    const text = decodeText(bytes, media?.charset);
    if (text.issue) return Promise.resolve(fatal(text.issue));
    const read = readYaml(text.text);
    return Promise.resolve(read.errors ? fatal(read.errors) : decoded(read.value, read.warnings));
  },
  messageTypes: () => [],
  shapeOf: () => undefined,
  encode(value: unknown): Promise<EncodeResult> {
    let text: string;
    try {
      text = stringify(value);
    } catch (e) {
      const reason = errorMessage(e);
      return Promise.resolve({
        ok: false,
        issues: [
          issue("SUTRA.ENCODE.UNWRITABLE", `the value cannot be written as YAML: ${reason}`),
        ],
      });
    }
    return Promise.resolve({ ok: true, bytes: utf8(text), contentType: "application/yaml" });
  },
};
