/**
 * Opening a package's declared stores through the provider registry, and
 * closing them together.
 *
 * @module
 */
import {
  DataStore,
  type DataStoreDeclaration,
  dataStoreProviders,
  type OpenStoreOptions,
  type StoreProjection,
} from "../core/datastore.ts";
import { diagnostic, DiagnosticError } from "../core/diagnostic.ts";
import type { DataStoreDecl } from "../package/datastores_yaml.ts";

/** The open stores of one deployment, by name. */
export class DataStoreSet {
  readonly #stores: ReadonlyMap<string, DataStore>;
  readonly #dataClasses: ReadonlyMap<string, string>;

  /**
   * @param stores the opened stores; the set owns and closes them
   * @param dataClasses each classified store's `dataClass`, by store name
   */
  constructor(stores: readonly DataStore[], dataClasses?: ReadonlyMap<string, string>) {
    this.#stores = new Map(stores.map((s) => [s.name, s]));
    this.#dataClasses = dataClasses ?? new Map();
  }

  /** The `dataClass` the store named `name` declares, if any. */
  dataClassOf(name: string): string | undefined {
    return this.#dataClasses.get(name);
  }

  /** The store named `name`, if declared. */
  get(name: string): DataStore | undefined {
    return this.#stores.get(name);
  }

  /** Every store, by sorted name. */
  all(): DataStore[] {
    return this.names().map((name) => this.#stores.get(name)!);
  }

  /** Sorted store names. */
  names(): string[] {
    return [...this.#stores.keys()].sort();
  }

  /** Closes every store; the first failure is rethrown after all were tried. */
  async close(): Promise<void> {
    const results = await Promise.allSettled([...this.#stores.values()].map((s) => s.close()));
    const failed = results.find((r): r is PromiseRejectedResult => r.status === "rejected");
    if (failed) throw failed.reason;
  }
}

/**
 * Opens every declared store through the provider its `type` names. A
 * declaration no linked provider serves, or a repeated name, is refused
 * before anything connects; when one store fails to open, those already
 * opened are closed again.
 */
export async function openDataStores(
  declarations: readonly DataStoreDeclaration[],
  options: OpenStoreOptions,
): Promise<DataStoreSet> {
  const problems = [];
  const seen = new Set<string>();
  for (const d of declarations) {
    if (seen.has(d.name)) {
      problems.push(diagnostic(
        "SUTRA.CONFIG.DATASTORE.DUPLICATE",
        `data store '${d.name}' is declared twice`,
        { attributes: { store: d.name } },
      ));
    }
    seen.add(d.name);
    if (!dataStoreProviders.has(d.type)) {
      const known = dataStoreProviders.names().join(", ") || "none";
      problems.push(diagnostic(
        "SUTRA.CONFIG.DATASTORE.INVALID",
        `data store '${d.name}' has type '${d.type}', which no linked provider serves ` +
          `(linked: ${known})`,
        { attributes: { store: d.name } },
      ));
    }
  }
  if (problems.length > 0) throw new DiagnosticError(problems);
  const opened: DataStore[] = [];
  try {
    for (const d of declarations) {
      const connection = await dataStoreProviders.get(d.type)!.open(d, options);
      opened.push(new DataStore(connection));
    }
  } catch (error) {
    await new DataStoreSet(opened).close();
    throw error;
  }
  const classes = declarations.flatMap((d) =>
    d.dataClass === undefined || d.dataClass === "none" ? [] : [[d.name, d.dataClass] as const]
  );
  return new DataStoreSet(opened, new Map(classes));
}

/**
 * The provider-facing form of a `datastores.yaml` entry: the `sql:` block
 * with its keys spelled as in the file (`url-ref`, …), absent ones left out,
 * and the store's resolved projection when it declares a structure.
 */
export function declarationOf(
  decl: DataStoreDecl,
  projection?: StoreProjection,
): DataStoreDeclaration {
  const sql = decl.sql;
  const settings: Record<string, string> = {};
  if (sql.urlRef !== undefined) settings["url-ref"] = sql.urlRef;
  if (sql.usernameRef !== undefined) settings["username-ref"] = sql.usernameRef;
  if (sql.passwordRef !== undefined) settings["password-ref"] = sql.passwordRef;
  if (sql.migrations !== undefined) settings.migrations = sql.migrations;
  if (sql.table !== undefined) settings.table = sql.table;
  if (sql.kvTable !== undefined) settings["kv-table"] = sql.kvTable;
  return {
    name: decl.name,
    type: decl.type,
    settings,
    ...(decl.dataClass === "none" ? {} : { dataClass: decl.dataClass }),
    ...(projection === undefined ? {} : { projection }),
  };
}
