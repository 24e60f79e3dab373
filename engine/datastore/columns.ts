/**
 * The naming and flatness rules of a projected store: which declared
 * fields may become columns, and what each column is called. Lint and the
 * engine's plan-time resolution both call these, so the two cannot drift.
 *
 * @module
 */
import type { Shape } from "../bpmn/shape.ts";
import { type Diagnostic, diagnostic } from "../core/diagnostic.ts";

/** Columns the engine owns on every projected table; no declared field may take one. */
export const CONTROL_COLUMNS: readonly string[] = ["store_key", "rev", "updated_at"];

/** The identifier cap: PostgreSQL's 63 bytes, the narrowest of the shipped dialects. */
export const MAX_COLUMN_NAME = 63;

// Words reserved in at least one of PostgreSQL, MySQL/MariaDB and SQL Server
// that a field name plausibly folds to; a column named one of them would
// need quoting in every hand-written query against the table.
const RESERVED = new Set(
  ("add all alter and any as asc between both by case cast check column constraint create " +
    "cross current_date current_time current_timestamp current_user database default " +
    "delete desc distinct drop else end except exists false fetch for foreign from full " +
    "grant group having in index inner insert intersect into is join key leading left " +
    "like limit natural not null offset on or order outer primary references right " +
    "rows schema select session_user set some table then to trailing true union unique " +
    "update user using values when where window with").split(" "),
);

const IDENTIFIER = /^[a-z_][a-z0-9_]*$/;

/**
 * A field name's column by convention: lowerCamel split into snake_case,
 * accents folded to ASCII, every run of anything else collapsed to one `_`,
 * leading and trailing `_` dropped (`openedAt` → `opened_at`).
 */
export function foldColumnName(field: string): string {
  return field
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1_$2")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "_")
    .replace(/^_+|_+$/g, "");
}

/** One child of a declared structure type, as the schema classifies it. */
export interface StructureField {
  readonly name: string;
  /** `scalar` projects; `nested` (complex content) and `repeated` (maxOccurs > 1) do not. */
  readonly kind: "scalar" | "nested" | "repeated";
}

/**
 * The children of a record shape (as a schema codec's `shapeOf` gives it),
 * classified in declared order; undefined when the shape is not a record.
 * A child of unknown structure counts as nested: nothing proves it scalar.
 */
export function structureFieldsOf(shape: Shape): StructureField[] | undefined {
  if (shape.kind !== "record") return undefined;
  return Object.entries(shape.fields).map(([name, child]) => ({
    name,
    kind: child.kind === "scalar" ? "scalar" : child.kind === "list" ? "repeated" : "nested",
  }));
}

/** What a store's projection is checked against. */
export interface ProjectionTarget {
  readonly store: string;
  /** The declared type's name, for messages. */
  readonly type: string;
  readonly fields: readonly StructureField[];
  /** Field name → column name overrides (`columns:`). */
  readonly columns?: Readonly<Record<string, string>>;
}

/** The outcome of {@link planColumns}. */
export interface ColumnPlan {
  /** Field name → column name, in declared order; empty when there are diagnostics. */
  readonly columns: ReadonlyMap<string, string>;
  readonly diagnostics: readonly Diagnostic[];
}

/**
 * Checks that every field is a scalar and that every field gets a usable,
 * distinct column name, reporting every problem found (not only the first).
 */
export function planColumns(target: ProjectionTarget): ColumnPlan {
  const diagnostics: Diagnostic[] = [];
  const attributes = { store: target.store };
  for (const f of target.fields) {
    if (f.kind === "scalar") continue;
    diagnostics.push(diagnostic(
      "SUTRA.CONFIG.DATASTORE.STRUCTURE_NOT_FLAT",
      `data store '${target.store}': type '${target.type}' cannot be projected onto columns ` +
        `because its child '${f.name}' is ${
          f.kind === "nested" ? "a nested record" : "repeated"
        }; ` +
        `flatten it into scalar fields, or drop the 'structure' block to keep a key/value store`,
      { attributes: { ...attributes, field: f.name } },
    ));
  }
  const overrides = target.columns ?? {};
  const declared = new Set(target.fields.map((f) => f.name));
  for (const field of Object.keys(overrides)) {
    if (declared.has(field)) continue;
    diagnostics.push(invalid(
      target,
      field,
      `'columns' maps field '${field}', which type '${target.type}' does not declare`,
    ));
  }
  const columns = new Map<string, string>();
  const owner = new Map<string, string>();
  for (const f of target.fields) {
    if (f.kind !== "scalar") continue;
    const overridden = Object.hasOwn(overrides, f.name);
    const column = overridden ? overrides[f.name] : foldColumnName(f.name);
    const how = overridden ? `its 'columns' entry '${column}'` : `its column '${column}'`;
    const problem = column === "" || !IDENTIFIER.test(column)
      ? `${how} is not a plain lower-case SQL identifier`
      : column.length > MAX_COLUMN_NAME
      ? `${how} is longer than ${MAX_COLUMN_NAME} characters`
      : RESERVED.has(column)
      ? `${how} is a reserved SQL word`
      : CONTROL_COLUMNS.includes(column)
      ? `${how} is a control column the engine maintains`
      : owner.has(column)
      ? `${how} is also the column of field '${owner.get(column)}'`
      : undefined;
    if (problem) {
      diagnostics.push(invalid(
        target,
        f.name,
        `field '${f.name}': ${problem}; name another column under 'columns'`,
      ));
      continue;
    }
    owner.set(column, f.name);
    columns.set(f.name, column);
  }
  return { columns: diagnostics.length > 0 ? new Map() : columns, diagnostics };
}

function invalid(target: ProjectionTarget, field: string, message: string): Diagnostic {
  return diagnostic(
    "SUTRA.CONFIG.DATASTORE.COLUMN_NAME_INVALID",
    `data store '${target.store}': ${message}`,
    { attributes: { store: target.store, field } },
  );
}
