/**
 * `datastores.yaml`: the durable stores a package's processes read and
 * write through `q:store`, each with its own connection (never the engine's
 * database) and its own migrations. The store named `coverage` is reserved:
 * it picks the database coverage marks land in, and the engine owns its
 * schema.
 *
 * @module
 */
import type { Diagnostic } from "../core/diagnostic.ts";
import { parseYaml, type YamlFile } from "./_yaml.ts";
import { checkYaml, type Spec } from "./_yaml_schema.ts";
import { CODEC_URN, RESOURCE_NAME } from "./channels_yaml.ts";
import { DATASTORES_YAML } from "./layout.ts";

/** The reserved store coverage marks are persisted in. */
export const COVERAGE_STORE = "coverage";

/** Sensitivity classes; a classified store's values are redacted in audit, logs and traces. */
export type StoreDataClass = "none" | "pii" | "pci" | "phi" | "financial";

/** A projected store's declared record type. */
export interface StoreStructure {
  /** URN of a codec of this package whose schema declares the type. */
  readonly schema: string;
  /** Type, root element or definition name in that schema. */
  readonly type: string;
  /** Field name → column name overrides. */
  readonly columns: Readonly<Record<string, string>>;
}

/** The connection and schema of a `type: sql` store. */
export interface SqlStoreSettings {
  /** Reference to the connection URL (`env:ACCOUNTS_DB_URL`). */
  readonly urlRef?: string;
  readonly usernameRef?: string;
  readonly passwordRef?: string;
  /** The store's migrations folder (`migrations/accounts`). */
  readonly migrations?: string;
  /** The table of a projected store, when not named after the store. */
  readonly table?: string;
  /** The key/value table's name (default `sutra_datastore`). */
  readonly kvTable?: string;
}

/** One store declaration. */
export interface DataStoreDecl {
  /** Position in the `datastores` list (for locating fields in the file). */
  readonly index: number;
  readonly name: string;
  readonly type: "sql";
  readonly dataClass: StoreDataClass;
  readonly structure?: StoreStructure;
  readonly sql: SqlStoreSettings;
}

const text: Spec = { type: "string" };

const STORE_SPEC: Spec = {
  type: "map",
  fields: {
    name: {
      required: true,
      spec: { type: "string", pattern: RESOURCE_NAME, hint: "a store name" },
    },
    type: { required: true, spec: { type: "string", enum: ["sql"] } },
    dataClass: { spec: { type: "string", enum: ["none", "pii", "pci", "phi", "financial"] } },
    structure: {
      spec: {
        type: "map",
        fields: {
          schema: {
            required: true,
            spec: { type: "string", pattern: CODEC_URN, hint: "a codec URN of this package" },
          },
          type: { required: true, spec: text },
          columns: { spec: { type: "map", values: text } },
        },
      },
    },
    sql: {
      required: true,
      spec: {
        type: "map",
        fields: {
          "url-ref": { spec: text },
          "username-ref": { spec: text },
          "password-ref": { spec: text },
          migrations: { spec: text },
          table: { spec: text },
          "kv-table": { spec: text },
        },
      },
    },
  },
};

/** The schema of `datastores.yaml`. */
export const DATASTORES_YAML_SCHEMA: Spec = {
  type: "map",
  fields: { datastores: { required: true, spec: { type: "list", items: STORE_SPEC } } },
};

/** What {@link readDatastoresYaml} returns. */
export interface DatastoresYamlResult {
  readonly stores?: readonly DataStoreDecl[];
  readonly file?: YamlFile;
  readonly diagnostics: readonly Diagnostic[];
}

/** Reads and checks `datastores.yaml`. */
export function readDatastoresYaml(bytes: Uint8Array): DatastoresYamlResult {
  const parsed = parseYaml(DATASTORES_YAML, bytes);
  if (!parsed.file) return parsed;
  const file = parsed.file;
  const checked = checkYaml(file, DATASTORES_YAML_SCHEMA, "SUTRA.CONFIG.DATASTORE.INVALID");
  if (checked.value === undefined) return { file, diagnostics: checked.diagnostics };
  const raw = (checked.value as { datastores: Record<string, unknown>[] }).datastores;
  const stores = raw.map((s, index): DataStoreDecl => {
    const sql = s.sql as Record<string, string | undefined>;
    const structure = s.structure as
      | { schema: string; type: string; columns?: Record<string, string> }
      | undefined;
    return {
      index,
      name: s.name as string,
      type: "sql",
      dataClass: (s.dataClass as StoreDataClass | undefined) ?? "none",
      ...(structure === undefined ? {} : {
        structure: {
          schema: structure.schema,
          type: structure.type,
          columns: structure.columns ?? {},
        },
      }),
      sql: {
        ...(sql["url-ref"] === undefined ? {} : { urlRef: sql["url-ref"] }),
        ...(sql["username-ref"] === undefined ? {} : { usernameRef: sql["username-ref"] }),
        ...(sql["password-ref"] === undefined ? {} : { passwordRef: sql["password-ref"] }),
        ...(sql.migrations === undefined ? {} : { migrations: sql.migrations }),
        ...(sql.table === undefined ? {} : { table: sql.table }),
        ...(sql["kv-table"] === undefined ? {} : { kvTable: sql["kv-table"] }),
      },
    };
  });
  return { file, stores, diagnostics: [] };
}
