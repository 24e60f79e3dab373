/**
 * Resolving a store's `structure:` block against the package: the declared
 * record type read from the package's own XSD codec folder, checked flat,
 * its columns named, and the table it lives in. Both the engine (before a
 * store is opened) and lint use it, so they cannot disagree.
 *
 * @module
 */
import type { ProjectedColumn, StoreProjection } from "../core/datastore.ts";
import { type Diagnostic, diagnostic } from "../core/diagnostic.ts";
import type { DataStoreDecl } from "../package/datastores_yaml.ts";
import type { PackageCodecs } from "../package/codecs.ts";
import { planColumns } from "./columns.ts";
import { type DeclaredField, XsdFolder } from "./xsd_fields.ts";

/** XSD built-ins a projected column does not carry in this release. */
const BINARY_TYPES = new Set(["base64Binary", "hexBinary"]);

const TABLE_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/** What a projection needs from the package. */
export interface ProjectionSource {
  readonly codecs: PackageCodecs;
  readonly files: ReadonlyMap<string, Uint8Array>;
}

/** The outcome of {@link resolveProjection}. */
export interface ResolvedProjection {
  /** Absent when the store is key/value, or when there are diagnostics. */
  readonly projection?: StoreProjection;
  /** The declared fields with their facets (for lint's column checks). */
  readonly fields?: readonly DeclaredField[];
  readonly diagnostics: readonly Diagnostic[];
}

/**
 * Resolves `store`'s structure. A store without one resolves to nothing.
 * A schema that is not an XSD codec of the package, a type it does not
 * declare, a nested or repeated child, an unusable column name or a binary
 * field is a diagnostic, all reported together.
 */
export function resolveProjection(
  store: DataStoreDecl,
  source: ProjectionSource,
): ResolvedProjection {
  const structure = store.structure;
  if (!structure) return { diagnostics: [] };
  const attributes = { store: store.name };
  const own = source.codecs.own(structure.schema);
  if (!own || own.kind !== "xsd") {
    return {
      diagnostics: [diagnostic(
        "SUTRA.CONFIG.DATASTORE.STRUCTURE_UNSUPPORTED",
        `data store '${store.name}' declares its structure in '${structure.schema}', which is ` +
          `not an XSD codec of this package${own?.kind ? ` (it is ${own.kind})` : ""}: only a ` +
          "schemas/<folder> XSD codec declares the fields and facets a typed column is checked " +
          "against; declare the type in an XSD, or remove the 'structure' block",
        { attributes: { ...attributes, schema: structure.schema } },
      )],
    };
  }
  const folder = new XsdFolder(xsdTexts(own.folder, source.files));
  const fields = folder.fieldsOf(structure.type);
  if (!fields) {
    return {
      diagnostics: [diagnostic(
        "SUTRA.CONFIG.DATASTORE.INVALID",
        `data store '${store.name}': '${structure.schema}' declares no record element or ` +
          `complex type '${structure.type}'`,
        { attributes: { ...attributes, type: structure.type } },
      )],
    };
  }
  const diagnostics: Diagnostic[] = [];
  const plan = planColumns({
    store: store.name,
    type: structure.type,
    fields,
    columns: structure.columns,
  });
  diagnostics.push(...plan.diagnostics);
  for (const f of fields) {
    if (f.kind !== "scalar" || !BINARY_TYPES.has(f.builtin!)) continue;
    diagnostics.push(diagnostic(
      "SUTRA.CONFIG.DATASTORE.STRUCTURE_UNSUPPORTED",
      `data store '${store.name}' cannot project type '${structure.type}': field '${f.name}' ` +
        `is declared '${f.builtin}', and a projected column does not carry binary values in ` +
        "this release; declare it as a string, or remove the 'structure' block",
      { attributes: { ...attributes, field: f.name } },
    ));
  }
  const table = store.sql.table ?? store.name;
  if (!TABLE_NAME.test(table)) {
    diagnostics.push(diagnostic(
      "SUTRA.CONFIG.DATASTORE.INVALID",
      `data store '${store.name}': table '${table}' is not a lower-case SQL identifier of at ` +
        "most 63 characters",
      { attributes },
    ));
  }
  if (diagnostics.length > 0) return { fields, diagnostics };
  const columns: ProjectedColumn[] = fields.map((f) => ({
    field: f.name,
    column: plan.columns.get(f.name)!,
    type: f.builtin!,
    optional: f.optional,
  }));
  return { projection: { table, type: structure.type, columns }, fields, diagnostics };
}

/**
 * What a deploy refuses beyond lint for projected stores: a structure
 * declared in a package codec that is not an XSD (JSON Schema), which lint
 * can only warn about (`DDL_UNVERIFIABLE`) but the engine will not serve.
 * Every other projection problem is already a lint error.
 */
export function projectionRefusals(
  stores: readonly DataStoreDecl[],
  source: ProjectionSource,
): Diagnostic[] {
  return stores
    .filter((s) => s.structure && source.codecs.own(s.structure.schema)?.kind !== "xsd")
    .filter((s) => source.codecs.own(s.structure!.schema) !== undefined)
    .flatMap((s) => resolveProjection(s, source).diagnostics);
}

function xsdTexts(folder: string, files: ReadonlyMap<string, Uint8Array>): string[] {
  const decoder = new TextDecoder();
  const out: string[] = [];
  for (const [path, bytes] of files) {
    if (path.startsWith(`${folder}/`) && path.endsWith(".xsd")) out.push(decoder.decode(bytes));
  }
  return out;
}
