/**
 * Projected stores against their own migrations: the structure resolved
 * (flat, named columns, an XSD type), then the table the store's
 * `migrations/<store>/V<n>__*.sql` leave behind, replayed statically, held
 * against it — every declared and control column present, each column's
 * type family and facets able to hold the declared field, optional fields
 * on nullable columns, and `store_key` as the whole primary key.
 *
 * The posture is three-state: a definite fault is an ERROR, anything lint
 * cannot prove either way is one `DDL_UNVERIFIABLE` WARNING per store
 * (never a column error), and a projection that matches raises nothing.
 *
 * @module
 */
import type { StoreProjection } from "../../core/datastore.ts";
import { type Diagnostic, diagnostic, type SourceLocation } from "../../core/diagnostic.ts";
import {
  CONTROL_COLUMNS,
  type DeclaredField,
  resolveProjection,
  XSD_INTEGER_TYPES,
} from "../../datastore/mod.ts";
import { COVERAGE_STORE, type DataStoreDecl } from "../datastores_yaml.ts";
import { type DdlColumn, type DdlTable, replayDdl } from "./_ddl.ts";
import type { LintContext } from "./context.ts";

/** Runs the projection checks of every store that declares a structure. */
export function lintProjections(ctx: LintContext, stores: readonly DataStoreDecl[]): Diagnostic[] {
  const file = ctx.pkg.stores.file!;
  const out: Diagnostic[] = [];
  for (const s of stores) {
    // The reserved store and an unknown schema are reported by the declaration checks.
    if (!s.structure || s.name === COVERAGE_STORE) continue;
    const own = ctx.pkg.codecs.own(s.structure.schema);
    if (!own) continue;
    const at = file.locate(["datastores", s.index, "structure"]);
    if (own.kind !== "xsd") {
      out.push(unverifiable(
        s,
        at,
        `its structure schema '${s.structure.schema}' is a ${own.kind ?? "non-XSD"} codec, ` +
          "which carries no enumerable field list with facets to compare against (the engine " +
          "also refuses to load such a store: declare the type in an XSD)",
      ));
      continue;
    }
    const resolved = resolveProjection(s, ctx.pkg);
    if (resolved.diagnostics.length > 0) {
      out.push(...resolved.diagnostics.map((d) => ({ ...d, source: d.source ?? at })));
      continue;
    }
    out.push(
      ...compareWithMigrations(ctx, s, {
        fields: resolved.fields!,
        at,
        projection: resolved.projection!,
      }),
    );
  }
  return out;
}

function compareWithMigrations(
  ctx: LintContext,
  s: DataStoreDecl,
  o: {
    readonly fields: readonly DeclaredField[];
    readonly projection: StoreProjection;
    readonly at: SourceLocation;
  },
): Diagnostic[] {
  const { fields, at } = o;
  const decoder = new TextDecoder();
  const scripts = (ctx.pkg.layout.migrations.get(s.name) ?? [])
    .map((m) => ({ file: m.path, text: decoder.decode(ctx.pkg.files.get(m.path)!) }));
  if (scripts.length === 0) {
    return [unverifiable(s, at, `the package ships no migrations/${s.name}/ scripts`)];
  }
  const replay = replayDdl(scripts);
  if (!replay.ok) {
    return [unverifiable(
      s,
      { uri: replay.file, line: replay.line },
      `${replay.file} could not be fully parsed (line ${replay.line}: ${replay.reason})`,
    )];
  }
  const table = pickTable(s, replay.tables);
  if (typeof table === "string") return [unverifiable(s, at, table)];
  const attributes = { store: s.name, table: table.name };
  const where = { uri: table.file, line: table.line };
  const out: Diagnostic[] = [];
  for (const control of CONTROL_COLUMNS) {
    if (table.columns.has(control)) continue;
    out.push(diagnostic(
      "SUTRA.CONFIG.DATASTORE.COLUMN_MISSING",
      `store '${s.name}': table '${table.name}' has no control column '${control}' ` +
        "(every projected table needs store_key, rev and updated_at)",
      { source: where, attributes: { ...attributes, column: control } },
    ));
  }
  const withheld: string[] = [];
  for (const f of fields) {
    const name = o.projection.columns.find((c) => c.field === f.name)!.column;
    const column = table.columns.get(name);
    const fieldAttributes = { ...attributes, field: f.name, column: name };
    if (!column) {
      out.push(diagnostic(
        "SUTRA.CONFIG.DATASTORE.COLUMN_MISSING",
        `store '${s.name}': field '${f.name}' has no column '${name}' in table '${table.name}'`,
        { source: where, attributes: fieldAttributes },
      ));
      continue;
    }
    const colAt = { uri: column.file, line: column.line };
    const verdict = judge(f, column);
    if (verdict.kind === "withheld") withheld.push(`'${name}' (${verdict.why})`);
    else if (verdict.kind === "type") {
      out.push(diagnostic(
        "SUTRA.CONFIG.DATASTORE.COLUMN_TYPE_MISMATCH",
        `store '${s.name}': column '${name}' is ${describe(column)}, which cannot hold field ` +
          `'${f.name}' (xs:${f.builtin}); ${verdict.why}`,
        { source: colAt, attributes: fieldAttributes },
      ));
    } else if (verdict.kind === "facet") {
      out.push(diagnostic(
        "SUTRA.CONFIG.DATASTORE.COLUMN_FACET_MISMATCH",
        `store '${s.name}': column '${name}' is ${describe(column)}, narrower than field ` +
          `'${f.name}' admits: ${verdict.why}`,
        { source: colAt, attributes: fieldAttributes },
      ));
    }
    if (f.optional && !column.nullable) {
      out.push(diagnostic(
        "SUTRA.CONFIG.DATASTORE.COLUMN_NULLABILITY",
        `store '${s.name}': field '${f.name}' is optional, but column '${name}' is NOT NULL; ` +
          "an absent field is written as NULL",
        { source: colAt, attributes: fieldAttributes },
      ));
    }
  }
  const key = table.primaryKey;
  if (key.length !== 1 || key[0] !== "store_key") {
    out.push(diagnostic(
      "SUTRA.CONFIG.DATASTORE.KEY_MISMATCH",
      `store '${s.name}': the primary key of table '${table.name}' is ${
        key.length === 0 ? "missing" : `(${key.join(", ")})`
      }; it must be (store_key) alone, so one store key is one row`,
      { source: where, attributes },
    ));
  }
  if (withheld.length > 0) {
    out.push(unverifiable(
      s,
      where,
      `the types of ${withheld.join(", ")} were not compared`,
      "the column exists; only its type comparison is withheld",
    ));
  }
  return out;
}

/** The table a store projects onto, or why none can be picked. */
function pickTable(
  s: DataStoreDecl,
  tables: ReadonlyMap<string, DdlTable>,
): DdlTable | string {
  const named = s.sql.table ?? s.name;
  const found = tables.get(named);
  if (found) return found;
  if (s.sql.table !== undefined) {
    return `the migrations never create table '${s.sql.table}' (sql.table)`;
  }
  if (tables.size === 1) return [...tables.values()][0];
  if (tables.size === 0) return "the migrations create no table (was it created elsewhere?)";
  return `the migrations create several tables (${
    [...tables.keys()].join(", ")
  }) and none is named '${s.name}'; name the projected one with sql.table`;
}

type Verdict =
  | { readonly kind: "ok" }
  | { readonly kind: "withheld" | "type" | "facet"; readonly why: string };

const OK: Verdict = { kind: "ok" };

type Family =
  | "string"
  | "exact"
  | "integer"
  | "float"
  | "boolean"
  | "date"
  | "timestamp"
  | "time"
  | "binary";

const COLUMN_FAMILIES: Readonly<Record<string, Family>> = {
  "VARCHAR": "string",
  "CHARACTER VARYING": "string",
  "CHAR": "string",
  "CHARACTER": "string",
  "NVARCHAR": "string",
  "NCHAR": "string",
  "NATIONAL CHARACTER VARYING": "string",
  "TEXT": "string",
  "TINYTEXT": "string",
  "MEDIUMTEXT": "string",
  "LONGTEXT": "string",
  "NTEXT": "string",
  "NUMERIC": "exact",
  "DECIMAL": "exact",
  "DEC": "exact",
  "INT": "integer",
  "INTEGER": "integer",
  "BIGINT": "integer",
  "SMALLINT": "integer",
  "MEDIUMINT": "integer",
  "TINYINT": "integer",
  "INT2": "integer",
  "INT4": "integer",
  "INT8": "integer",
  "SERIAL": "integer",
  "BIGSERIAL": "integer",
  "REAL": "float",
  "FLOAT": "float",
  "FLOAT4": "float",
  "FLOAT8": "float",
  "DOUBLE": "float",
  "DOUBLE PRECISION": "float",
  "BOOLEAN": "boolean",
  "BOOL": "boolean",
  "BIT": "boolean",
  "DATE": "date",
  "TIMESTAMP": "timestamp",
  "TIMESTAMPTZ": "timestamp",
  "TIMESTAMP WITH TIME ZONE": "timestamp",
  "TIMESTAMP WITHOUT TIME ZONE": "timestamp",
  "DATETIME": "timestamp",
  "DATETIME2": "timestamp",
  "DATETIMEOFFSET": "timestamp",
  "SMALLDATETIME": "timestamp",
  "TIME": "time",
  "TIMETZ": "time",
  "TIME WITH TIME ZONE": "time",
  "TIME WITHOUT TIME ZONE": "time",
  "BYTEA": "binary",
  "BLOB": "binary",
  "TINYBLOB": "binary",
  "MEDIUMBLOB": "binary",
  "LONGBLOB": "binary",
  "BINARY": "binary",
  "VARBINARY": "binary",
};

const STRING_TYPES = new Set([
  "string",
  "normalizedString",
  "token",
  "language",
  "Name",
  "NCName",
  "ID",
  "IDREF",
  "NMTOKEN",
  "anyURI",
]);

/** Which column families can hold each declared built-in. */
function accepted(builtin: string): readonly Family[] | undefined {
  if (STRING_TYPES.has(builtin)) return ["string"];
  if (XSD_INTEGER_TYPES.has(builtin)) return ["integer", "exact"];
  if (builtin === "decimal") return ["exact"];
  if (builtin === "double" || builtin === "float") return ["float"];
  if (builtin === "boolean") return ["boolean"];
  if (builtin === "date") return ["date"];
  if (builtin === "dateTime") return ["timestamp"];
  if (builtin === "time") return ["time"];
  if (builtin === "base64Binary" || builtin === "hexBinary") return ["binary"];
  return undefined;
}

function familyOf(column: DdlColumn): Family | undefined {
  // MySQL spells BOOLEAN as TINYINT(1).
  if (column.type === "TINYINT" && column.args[0] === "1") return "boolean";
  return COLUMN_FAMILIES[column.type];
}

function judge(f: DeclaredField, column: DdlColumn): Verdict {
  const families = accepted(f.builtin!);
  if (!families) return { kind: "withheld", why: `xs:${f.builtin} has no ruled column mapping` };
  const family = familyOf(column);
  if (!family) return { kind: "withheld", why: `${column.type} is not a compared column type` };
  if (!families.includes(family)) {
    return { kind: "type", why: `expected a ${families.join(" or ")} column` };
  }
  if (family === "string") return stringFacets(f, column);
  if (family === "exact" && f.builtin === "decimal") return decimalFacets(f, column);
  return OK;
}

function stringFacets(f: DeclaredField, column: DdlColumn): Verdict {
  const size = column.args[0];
  if (size === undefined || size === "MAX" || column.type.endsWith("TEXT")) return OK;
  const holds = Number(size);
  const longest = f.facets.maxLength ?? f.facets.length;
  if (longest === undefined) {
    return {
      kind: "facet",
      why: `the type sets no maxLength, the column holds ${holds} characters`,
    };
  }
  if (holds < longest) {
    return { kind: "facet", why: `maxLength ${longest} needs at least ${longest} characters` };
  }
  return OK;
}

function decimalFacets(f: DeclaredField, column: DdlColumn): Verdict {
  if (column.args.length === 0) return OK; // unconstrained precision holds any decimal
  const precision = Number(column.args[0]);
  const scale = Number(column.args[1] ?? 0);
  const { totalDigits, fractionDigits } = f.facets;
  if (totalDigits === undefined || fractionDigits === undefined) {
    return {
      kind: "facet",
      why: `the type sets ${
        totalDigits === undefined ? "no totalDigits" : "no fractionDigits"
      }, the column holds ${precision} digits with ${scale} after the point`,
    };
  }
  if (scale < fractionDigits) {
    return {
      kind: "facet",
      why: `fractionDigits ${fractionDigits} needs a scale of at least ${fractionDigits}`,
    };
  }
  if (precision - scale < totalDigits - fractionDigits) {
    return {
      kind: "facet",
      why: `totalDigits ${totalDigits} with fractionDigits ${fractionDigits} needs ` +
        `${totalDigits - fractionDigits} digits before the point`,
    };
  }
  return OK;
}

function describe(column: DdlColumn): string {
  return column.args.length === 0 ? column.type : `${column.type}(${column.args.join(",")})`;
}

function unverifiable(
  s: DataStoreDecl,
  source: SourceLocation,
  why: string,
  consequence = "so the table shape was not derived and the declared structure was not " +
    "verified; no column diagnostic is raised for this store (it may be valid; it is simply " +
    "not provable here)",
): Diagnostic {
  return diagnostic(
    "SUTRA.CONFIG.DATASTORE.DDL_UNVERIFIABLE",
    `store '${s.name}': ${why}, ${consequence}`,
    { severity: "WARNING", source, attributes: { store: s.name } },
  );
}
