/**
 * `schemaKind: json-schema`: a package folder of JSON Schemas (draft-07, or
 * 2020-12 when a schema says so) compiled at deploy time with Ajv. Each
 * schema file is one message type, named by the last segment of its `$id`
 * (else by its file name). With several schemas the manifest names a
 * `discriminator`: the top-level property whose value is the message type.
 * Every violation is a SOFT_ERRORS issue at its JSON Pointer.
 *
 * @module
 */
import { Ajv, type ErrorObject, type ValidateFunction } from "ajv";
import { Ajv2020 } from "ajv/dist/2020.js";
import ajvFormats, { type FormatsPlugin } from "ajv-formats";
import { stringify } from "yaml";
import type { Shape } from "../../engine/bpmn/shape.ts";
import {
  type Codec,
  decoded,
  type DecodeResult,
  type EncodeOptions,
  type EncodeResult,
  fatal,
  type Issue,
  issue,
  type SchemaBuild,
  type SchemaFolder,
  type SchemaKind,
} from "../../engine/core/codec.ts";
import type { Diagnostic } from "../../engine/core/diagnostic.ts";
import { put } from "./_data.ts";
import { writeJson } from "./_json_write.ts";
import {
  layoutOf,
  manifestFormats,
  manifestInvalid,
  schemaInvalid,
  unknownKeys,
} from "./_manifest.ts";
import {
  decodeText,
  mediaMatches,
  parseMediaType,
  pointerSegment,
  unsupportedMediaType,
  utf8,
} from "./_text.ts";
import { JSON_TYPES, readJson } from "./json.ts";
import { readYaml, YAML_TYPES } from "./yaml.ts";

type Format = "json" | "yaml";
const FORMATS: readonly Format[] = ["json", "yaml"];
const FORMAT_TYPES: Record<Format, readonly string[]> = { json: JSON_TYPES, yaml: YAML_TYPES };

type JsonSchema = Record<string, unknown> | boolean;

// ajv-formats is CommonJS: its default import is the plugin, which its typings do not say.
const addFormats = ajvFormats as unknown as FormatsPlugin;

/** One message type: its schema file, the schema and its compiled validator. */
interface MessageSchema {
  readonly file: string;
  readonly schema: JsonSchema;
  readonly validate: ValidateFunction;
}

/** The message type a schema file declares: its `$id`'s last segment, else its file name. */
function messageTypeOf(file: string, schema: JsonSchema): string {
  const id = typeof schema === "object" && typeof schema.$id === "string" ? schema.$id : file;
  const last = id.replace(/#.*$/, "").split(/[/:]/).filter((s) => s !== "").at(-1) ?? id;
  return last.replace(/(\.schema)?\.json$/, "");
}

function draftOf(schema: JsonSchema): "07" | "2020-12" | "unsupported" {
  const declared = typeof schema === "object" ? schema.$schema : undefined;
  if (declared === undefined) return "07";
  if (typeof declared !== "string") return "unsupported";
  if (/draft-0[67]\/schema/.test(declared)) return "07";
  if (declared.includes("2020-12")) return "2020-12";
  return "unsupported";
}

/** Compiles every schema of the folder; every problem is a diagnostic. */
function compileSchemas(
  folder: SchemaFolder,
): { schemas: Map<string, MessageSchema>; diagnostics: Diagnostic[] } {
  const problems: Diagnostic[] = [];
  const parsed = new Map<string, JsonSchema>();
  for (const [file, bytes] of [...folder.files].sort(([a], [b]) => a < b ? -1 : 1)) {
    const text = decodeText(bytes);
    const read = text.issue ? { issue: text.issue } : readJson(text.text);
    if (read.issue) {
      problems.push(schemaInvalid(folder, file, read.issue.message, read.issue.line));
    } else if (typeof read.value !== "object" && typeof read.value !== "boolean") {
      problems.push(schemaInvalid(folder, file, "a JSON Schema is an object or a boolean"));
    } else parsed.set(file, read.value as JsonSchema);
  }
  const drafts = new Set([...parsed.values()].map(draftOf));
  if (drafts.has("unsupported")) {
    for (const [file, schema] of parsed) {
      if (draftOf(schema) === "unsupported") {
        problems.push(
          schemaInvalid(folder, file, "only draft-07 and 2020-12 schemas are supported"),
        );
      }
    }
  } else if (drafts.size > 1) {
    problems.push(schemaInvalid(folder, [...parsed.keys()][0], "the folder mixes schema drafts"));
  }
  if (problems.length > 0) return { schemas: new Map(), diagnostics: problems };
  const options = { allErrors: true, strict: false };
  const ajv = drafts.has("2020-12") ? new Ajv2020(options) : new Ajv(options);
  addFormats(ajv);
  const refused = new Set<string>();
  for (const [file, schema] of parsed) {
    try {
      if (!ajv.validateSchema(schema)) {
        throw new Error(`not a valid JSON Schema: ${ajv.errorsText(ajv.errors)}`);
      }
      ajv.addSchema(schema, file);
    } catch (e) {
      refused.add(file);
      problems.push(schemaInvalid(folder, file, (e as Error).message));
    }
  }
  const schemas = new Map<string, MessageSchema>();
  for (const [file, schema] of parsed) {
    if (refused.has(file)) continue;
    let validate: ValidateFunction | undefined;
    try {
      validate = ajv.getSchema(file);
    } catch (e) {
      problems.push(schemaInvalid(folder, file, (e as Error).message));
      continue;
    }
    const type = messageTypeOf(file, schema);
    if (schemas.has(type)) {
      problems.push(
        schemaInvalid(folder, file, `message type '${type}' is declared by two schemas`),
      );
    } else if (validate) schemas.set(type, { file, schema, validate });
  }
  return { schemas: problems.length > 0 ? new Map() : schemas, diagnostics: problems };
}

/** The value at a JSON Pointer, as an issue can carry it (scalars only). */
function scalarAt(value: unknown, path: string): string | number | boolean | null | undefined {
  let current = value;
  for (const raw of path.split("/").slice(1)) {
    const key = raw.replaceAll("~1", "/").replaceAll("~0", "~");
    if (current === null || typeof current !== "object" || !Object.hasOwn(current, key)) {
      return undefined;
    }
    current = (current as Record<string, unknown>)[key];
  }
  const t = typeof current;
  return current === null || t === "string" || t === "number" || t === "boolean"
    ? current as string | number | boolean | null
    : undefined;
}

function violation(error: ErrorObject, document: unknown): Issue {
  const params = error.params as Record<string, unknown>;
  let path = error.instancePath;
  if (error.keyword === "required") path += `/${pointerSegment(String(params.missingProperty))}`;
  if (error.keyword === "additionalProperties") {
    path += `/${pointerSegment(String(params.additionalProperty))}`;
  }
  let message = `${path || "/"} ${error.message ?? "is invalid"}`;
  if (error.keyword === "enum") message += `: ${JSON.stringify(params.allowedValues)}`;
  const value = scalarAt(document, error.instancePath);
  return issue("SUTRA.VALIDATE.JSON_SCHEMA.VIOLATION", message, {
    path,
    ...(value === undefined ? {} : { value }),
  });
}

/** Options for {@link JsonSchemaCodec}. */
interface JsonSchemaCodecOptions {
  readonly urn: string;
  readonly formats: readonly Format[];
  readonly schemas: ReadonlyMap<string, MessageSchema>;
  readonly discriminator?: string;
}

class JsonSchemaCodec implements Codec {
  readonly name: string;
  readonly contentTypes: readonly string[];
  readonly #options: JsonSchemaCodecOptions;

  constructor(options: JsonSchemaCodecOptions) {
    this.#options = options;
    this.name = options.urn;
    this.contentTypes = options.formats.flatMap((f) => FORMAT_TYPES[f]);
  }

  messageTypes(): readonly string[] {
    return [...this.#options.schemas.keys()].sort();
  }

  shapeOf(messageType?: string): Shape | undefined {
    const only = this.#options.schemas.size === 1
      ? [...this.#options.schemas.keys()][0]
      : undefined;
    const entry = this.#options.schemas.get(messageType ?? only ?? "");
    return entry
      ? new ShapeReader(this.#options.schemas).shape(entry.schema, entry.schema)
      : undefined;
  }

  /** The message type a document declares, or the issue saying why it has none. */
  #typeOf(document: unknown): string | Issue {
    const discriminator = this.#options.discriminator;
    if (discriminator === undefined) return [...this.#options.schemas.keys()][0];
    const value = document !== null && typeof document === "object" && !Array.isArray(document)
      ? (document as Record<string, unknown>)[discriminator]
      : undefined;
    const known = this.#options.schemas;
    if (typeof value === "string" && known.has(value)) return value;
    return issue(
      "SUTRA.VALIDATE.JSON_SCHEMA.TYPE_UNRESOLVED",
      `the document's '${discriminator}' must name one of ${[...known.keys()].join(", ")}`,
      {
        path: `/${pointerSegment(discriminator)}`,
        ...(typeof value === "string" ? { value } : {}),
      },
    );
  }

  decode(bytes: Uint8Array, contentType?: string): Promise<DecodeResult> {
    const media = parseMediaType(contentType);
    const formats = this.#options.formats;
    const format = media ? formats.find((f) => mediaMatches(media, FORMAT_TYPES[f])) : undefined;
    if (media && format === undefined) {
      return Promise.resolve(
        fatal(unsupportedMediaType(this.name, contentType!, this.contentTypes)),
      );
    }
    const text = decodeText(bytes, media?.charset);
    if (text.issue) return Promise.resolve(fatal(text.issue));
    const sniffed = /^\s*[{[]/.test(text.text) && formats.includes("json") ? "json" : "yaml";
    const chosen = format ?? (formats.includes(sniffed) ? sniffed : formats[0]);
    let document: unknown;
    let warnings: readonly Issue[] = [];
    if (chosen === "json") {
      const read = readJson(text.text);
      if (read.issue) return Promise.resolve(fatal(read.issue));
      document = read.value;
    } else {
      const read = readYaml(text.text);
      if (read.errors) return Promise.resolve(fatal(read.errors));
      document = read.value;
      warnings = read.warnings;
    }
    const type = this.#typeOf(document);
    if (typeof type !== "string") return Promise.resolve(decoded(document, [...warnings, type]));
    const validate = this.#options.schemas.get(type)!.validate;
    const issues = validate(document)
      ? []
      : (validate.errors ?? []).map((e) => violation(e, document));
    return Promise.resolve(decoded(document, [...warnings, ...issues], type));
  }

  encode(value: unknown, options: EncodeOptions = {}): Promise<EncodeResult> {
    const media = parseMediaType(options.contentType);
    const format = media
      ? this.#options.formats.find((f) => mediaMatches(media, FORMAT_TYPES[f]))
      : this.#options.formats[0];
    if (format === undefined) {
      return Promise.resolve({
        ok: false,
        issues: [
          issue(
            "SUTRA.ENCODE.CONTENT_TYPE_UNSUPPORTED",
            `codec ${this.name} does not write '${options.contentType}'`,
          ),
        ],
      });
    }
    const json = writeJson(value);
    if (json.issue) return Promise.resolve({ ok: false, issues: [json.issue] });
    const document = JSON.parse(json.text);
    const type = options.messageType ?? this.#typeOf(document);
    const entry = typeof type === "string" ? this.#options.schemas.get(type) : undefined;
    if (entry === undefined) {
      const unresolved = typeof type === "string"
        ? issue("SUTRA.ENCODE.MESSAGE_TYPE_UNKNOWN", `no schema declares message type '${type}'`)
        : type;
      return Promise.resolve({ ok: false, issues: [unresolved] });
    }
    if (!entry.validate(document)) {
      return Promise.resolve({
        ok: false,
        issues: (entry.validate.errors ?? []).map((e) => violation(e, document)),
      });
    }
    return Promise.resolve(
      format === "json"
        ? { ok: true, bytes: utf8(json.text), contentType: "application/json" }
        : { ok: true, bytes: utf8(stringify(document)), contentType: "application/yaml" },
    );
  }
}

/** Derives FEEL shapes from schemas, following `$ref`s (a recursive one is cut with "any"). */
class ShapeReader {
  readonly #active = new Set<unknown>();

  constructor(readonly schemas: ReadonlyMap<string, MessageSchema>) {}

  /** The schema a `$ref` names: within `root`, or another file by `$id` or file name. */
  #resolve(ref: string, root: JsonSchema): { schema: JsonSchema; root: JsonSchema } | undefined {
    const hash = ref.indexOf("#");
    const target = hash < 0 ? ref : ref.slice(0, hash);
    const fragment = hash < 0 ? "" : ref.slice(hash + 1);
    let base: JsonSchema | undefined = root;
    if (target !== "") {
      base = undefined;
      for (const m of this.schemas.values()) {
        const id = typeof m.schema === "object" ? m.schema.$id : undefined;
        if (
          id === target || m.file === target ||
          (typeof id === "string" && id.endsWith(`/${target}`))
        ) {
          base = m.schema;
        }
      }
    }
    if (base === undefined) return undefined;
    let node: unknown = base;
    for (const raw of fragment.split("/").slice(1)) {
      const key = decodeURIComponent(raw).replaceAll("~1", "/").replaceAll("~0", "~");
      if (node === null || typeof node !== "object" || !Object.hasOwn(node, key)) return undefined;
      node = (node as Record<string, unknown>)[key];
    }
    return typeof node === "object" || typeof node === "boolean"
      ? { schema: node as JsonSchema, root: base }
      : undefined;
  }

  shape(schema: JsonSchema, root: JsonSchema): Shape {
    if (typeof schema !== "object" || schema === null || this.#active.has(schema)) {
      return { kind: "any" };
    }
    this.#active.add(schema);
    try {
      return this.#shape(schema, root);
    } finally {
      this.#active.delete(schema);
    }
  }

  #shape(schema: Record<string, unknown>, root: JsonSchema): Shape {
    if (typeof schema.$ref === "string") {
      const target = this.#resolve(schema.$ref, root);
      return target ? this.shape(target.schema, target.root) : { kind: "any" };
    }
    for (const combinator of ["allOf", "anyOf", "oneOf"] as const) {
      const parts = schema[combinator];
      if (Array.isArray(parts) && parts.length > 0) {
        const shapes = parts.map((p) => this.shape(p as JsonSchema, root));
        return merge(shapes, combinator === "allOf");
      }
    }
    const types = Array.isArray(schema.type) ? schema.type : [schema.type];
    const type = types.filter((t) => t !== "null");
    if (type.length > 1) return { kind: "any" };
    if (type[0] === "object" || (type[0] === undefined && typeof schema.properties === "object")) {
      const fields: Record<string, Shape> = {};
      const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
      for (const [key, sub] of Object.entries(properties)) put(fields, key, this.shape(sub, root));
      const closed = schema.additionalProperties === false &&
        schema.patternProperties === undefined;
      return closed ? { kind: "record", fields } : { kind: "record", fields, open: true };
    }
    if (type[0] === "array") {
      const items = schema.items;
      return {
        kind: "list",
        item: typeof items === "object" && !Array.isArray(items)
          ? this.shape(items as JsonSchema, root)
          : { kind: "any" },
      };
    }
    if (type[0] === "string" || type[0] === "boolean") return { kind: "scalar", type: type[0] };
    if (type[0] === "number" || type[0] === "integer") return { kind: "scalar", type: "number" };
    return { kind: "any" };
  }
}

/** Combines shapes: `all` keeps a record closed only when every part is closed. */
function merge(shapes: readonly Shape[], all: boolean): Shape {
  if (!shapes.every((s) => s.kind === "record")) {
    return shapes.length === 1 ? shapes[0] : { kind: "any" };
  }
  const fields: Record<string, Shape> = {};
  let open = !all;
  for (const s of shapes) {
    if (s.kind !== "record") continue;
    for (const [k, v] of Object.entries(s.fields)) put(fields, k, v);
    if (all) open ||= s.open === true;
    else open = true;
  }
  return open ? { kind: "record", fields, open: true } : { kind: "record", fields };
}

/** The generic `schemaKind: json-schema`. */
export const jsonSchemaKind: SchemaKind = {
  name: "json-schema",
  bundle: false,
  build(folder: SchemaFolder): Promise<SchemaBuild> {
    const problems = [
      ...unknownKeys(folder, ["schemaKind", "formats", "discriminator"]),
      ...layoutOf(folder, ".json", "JSON Schema"),
    ];
    const { formats, diagnostics } = manifestFormats(folder, FORMATS);
    problems.push(...diagnostics);
    const discriminator = folder.manifest.discriminator;
    if (
      discriminator !== undefined && (typeof discriminator !== "string" || discriminator === "")
    ) {
      problems.push(manifestInvalid(folder, "discriminator must name a top-level property"));
    }
    if (problems.length > 0) return Promise.resolve({ diagnostics: problems });
    const compiled = compileSchemas(folder);
    if (compiled.diagnostics.length > 0) {
      return Promise.resolve({ diagnostics: compiled.diagnostics });
    }
    if (compiled.schemas.size > 1 && discriminator === undefined) {
      return Promise.resolve({
        diagnostics: [
          manifestInvalid(
            folder,
            `the folder declares ${compiled.schemas.size} message types; name a discriminator property`,
          ),
        ],
      });
    }
    return Promise.resolve({
      codec: new JsonSchemaCodec({
        urn: folder.urn,
        formats,
        schemas: compiled.schemas,
        discriminator: discriminator as string | undefined,
      }),
    });
  },
};
