/**
 * Data store checks: names are unique, every store names its connection
 * (`url-ref`), every business store brings its migrations in
 * `migrations/<store>/` while the reserved coverage store brings none (the
 * engine owns its schema), a projected structure names a codec of this
 * package and matches the table its migrations leave (`datastores_ddl.ts`),
 * every `q:store` reference names a declared store, and migration folders
 * no store uses are pointed out.
 *
 * @module
 */
import { type Diagnostic, diagnostic, type SourceLocation } from "../../core/diagnostic.ts";
import { COVERAGE_STORE, type DataStoreDecl } from "../datastores_yaml.ts";
import { DATASTORES_YAML } from "../layout.ts";
import { bpmnAt, type LintContext } from "./context.ts";
import { lintProjections } from "./datastores_ddl.ts";

/** Runs the data store checks. */
export function lintDatastores(ctx: LintContext): Diagnostic[] {
  const stores = ctx.pkg.stores.entries;
  if (stores === undefined) return [];
  return [
    ...declarations(ctx, stores),
    ...lintProjections(ctx, stores),
    ...references(ctx, stores),
    ...unusedMigrations(ctx, stores),
  ];
}

function declarations(ctx: LintContext, stores: readonly DataStoreDecl[]): Diagnostic[] {
  const out: Diagnostic[] = [];
  const file = ctx.pkg.stores.file!;
  const at = (s: DataStoreDecl, ...path: string[]) => file.locate(["datastores", s.index, ...path]);
  const seen = new Map<string, DataStoreDecl>();
  for (const s of stores) {
    const attributes = { store: s.name };
    const first = seen.get(s.name);
    if (first) {
      out.push(diagnostic(
        "SUTRA.CONFIG.DATASTORE.DUPLICATE",
        `store '${s.name}' is declared twice (first at line ${at(first).line})`,
        { source: at(s, "name"), attributes },
      ));
      continue;
    }
    seen.set(s.name, s);
    if (s.sql.urlRef === undefined) {
      out.push(diagnostic(
        "SUTRA.CONFIG.DATASTORE.URL_REF_MISSING",
        `store '${s.name}' names no connection: set sql.url-ref to a ` +
          "reference (a store never falls back to the engine's own database)",
        { source: at(s, "sql"), attributes },
      ));
    }
    if (s.name === COVERAGE_STORE) {
      if (s.sql.migrations !== undefined) {
        out.push(diagnostic(
          "SUTRA.CONFIG.DATASTORE.COVERAGE_MIGRATIONS",
          `the reserved '${COVERAGE_STORE}' store takes no migrations: ` +
            "the engine owns and applies its schema; remove sql.migrations",
          { source: at(s, "sql", "migrations"), attributes },
        ));
      }
      if (s.structure !== undefined) {
        out.push(diagnostic(
          "SUTRA.CONFIG.DATASTORE.INVALID",
          `the reserved '${COVERAGE_STORE}' store has the engine's own ` +
            "shape; remove its structure block",
          { source: at(s, "structure"), attributes },
        ));
      }
    } else {
      out.push(...migrations(ctx, s, at));
    }
    if (s.structure !== undefined && ctx.pkg.codecs.own(s.structure.schema) === undefined) {
      out.push(diagnostic(
        "SUTRA.CONFIG.DATASTORE.STRUCTURE_SCHEMA_UNKNOWN",
        `store '${s.name}' declares its structure in '${s.structure.schema}', ` +
          "which is not a codec of this package (a schemas/<folder>/ codec)",
        { source: at(s, "structure", "schema"), attributes },
      ));
    }
  }
  return out;
}

function migrations(
  ctx: LintContext,
  s: DataStoreDecl,
  at: (s: DataStoreDecl, ...path: string[]) => SourceLocation,
): Diagnostic[] {
  const expected = `migrations/${s.name}`;
  const attributes = { store: s.name };
  const given = s.sql.migrations?.replace(/\/+$/, "");
  let problem: string | undefined;
  if (given === undefined) {
    problem = `declares no migrations: set sql.migrations: ${expected} and put its ` +
      "V<n>__<description>.sql scripts there";
  } else if (given !== expected) {
    problem =
      `points sql.migrations at '${s.sql.migrations}'; a store's scripts live in ${expected}`;
  } else if ((ctx.pkg.layout.migrations.get(s.name) ?? []).length === 0) {
    problem = `has no scripts in ${expected}/ (V<n>__<description>.sql)`;
  }
  if (problem === undefined) return [];
  return [diagnostic(
    "SUTRA.CONFIG.DATASTORE.MIGRATIONS_MISSING",
    `store '${s.name}' ${problem}`,
    { source: given === undefined ? at(s, "sql") : at(s, "sql", "migrations"), attributes },
  )];
}

function references(ctx: LintContext, stores: readonly DataStoreDecl[]): Diagnostic[] {
  const names = new Set(stores.filter((s) => s.name !== COVERAGE_STORE).map((s) => s.name));
  const out: Diagnostic[] = [];
  for (const { process, index, path } of ctx.processes) {
    if (!index.isExecutable(process)) continue;
    for (const container of index.containers) {
      if (container.process !== process) continue;
      for (const ref of container.content.dataStoreReferences) {
        if (ref.q.stores.length === 0) continue;
        const target = ref.dataStoreRef === undefined
          ? undefined
          : index.definitions.dataStores.find((d) => d.id === index.resolve(ref.dataStoreRef!));
        const name = target?.name ?? ref.name ?? ref.id;
        if (names.has(name)) continue;
        out.push(diagnostic(
          "SUTRA.CONFIG.DATASTORE.UNKNOWN",
          `data store reference '${ref.id}' reads store '${name}', which ${
            ctx.pkg.layout.datastoresYaml
              ? DATASTORES_YAML
              : "the package (it has no datastores.yaml)"
          } does not declare${
            name === COVERAGE_STORE ? " (the coverage store is the engine's)" : ""
          }`,
          { source: bpmnAt(path, ref.q.stores[0]), attributes: { store: name } },
        ));
      }
    }
  }
  return out;
}

function unusedMigrations(ctx: LintContext, stores: readonly DataStoreDecl[]): Diagnostic[] {
  const used = new Set(stores.filter((s) => s.name !== COVERAGE_STORE).map((s) => s.name));
  const out: Diagnostic[] = [];
  for (const [store, scripts] of ctx.pkg.layout.migrations) {
    if (used.has(store)) continue;
    out.push(diagnostic(
      "SUTRA.CONFIG.DATASTORE.MIGRATIONS_UNUSED",
      store === COVERAGE_STORE
        ? `migrations/${COVERAGE_STORE}/ is never run: the engine owns the coverage store's ` +
          "schema; delete the folder"
        : `migrations/${store}/ belongs to no store in ${DATASTORES_YAML}; its scripts never run`,
      {
        severity: "WARNING",
        source: { uri: scripts[0].path },
        attributes: { store },
      },
    ));
  }
  return out;
}
