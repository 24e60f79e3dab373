/**
 * The built-in codecs and schema kinds. Importing this module registers the
 * six schema-less formats (`urn:sutra:codec:json`, `xml`, `yaml`, `csv`,
 * `raw-text`, `raw-bytes`) and the package schema kinds `xsd` and
 * `json-schema`.
 *
 * @module
 */
import { type Codec, codecs, type SchemaKind, schemaKinds } from "../../engine/core/codec.ts";
import { csvCodec } from "./csv.ts";
import { jsonCodec } from "./json.ts";
import { jsonSchemaKind } from "./json_schema.ts";
import { rawBytesCodec } from "./raw_bytes.ts";
import { rawTextCodec } from "./raw_text.ts";
import { xmlCodec } from "./xml.ts";
import { xsdKind } from "./xsd.ts";
import { yamlCodec } from "./yaml.ts";

const builtins: readonly Codec[] = [
  jsonCodec,
  xmlCodec,
  yamlCodec,
  csvCodec,
  rawTextCodec,
  rawBytesCodec,
];
for (const codec of builtins) if (!codecs.has(codec.name)) codecs.register(codec);

const kinds: readonly SchemaKind[] = [xsdKind, jsonSchemaKind];
for (const kind of kinds) if (!schemaKinds.has(kind.name)) schemaKinds.register(kind);

export {
  csvCodec,
  jsonCodec,
  jsonSchemaKind,
  rawBytesCodec,
  rawTextCodec,
  xmlCodec,
  xsdKind,
  yamlCodec,
};
export { XsdCodec } from "./xsd.ts";
export type { Selection, XsdCodecOptions, XsdFormat, XsdSchemaSet } from "./xsd.ts";
export { wrapperBundleKind } from "./bundle.ts";
export type { WrapperBundleOptions, WrapperProfile } from "./bundle.ts";
