/**
 * The projected shape of the `sql` store: one row per key in the store's
 * own table, one typed column per declared field, plus the engine's control
 * columns `store_key`, `rev` and `updated_at`. The package's migrations
 * create the table; the engine generates no DDL for it.
 *
 * Values travel as text both ways: written with a cast to the live
 * column's type, read back through the column's canonical text rendering,
 * then typed by the declared XSD built-in. So a decimal comes back with the
 * column's scale (`12.30` from a `NUMERIC(18,2)`; a JSON number when a
 * double holds it exactly, else its text), an explicit null and an absent
 * optional field both read back absent, and a dateTime comes back as the
 * instant the column stored, rendered in ISO-8601 with a `T` and an explicit
 * offset rather than as the text written.
 *
 * On first use the live table is read from the catalog and the store
 * refuses every operation, naming every offending column, until it can
 * serve the projection (`SUTRA.RUNTIME.DATASTORE.PROJECTION_UNSATISFIABLE`).
 *
 * @module
 */
import {
  type DataStoreConnection,
  type DataStoreTransaction,
  type GetOptions,
  type ProjectedColumn,
  type StoredRecord,
  type StoreProjection,
  type WriteOptions,
} from "../../engine/core/datastore.ts";
import { diagnostic, DiagnosticError } from "../../engine/core/diagnostic.ts";
import { XSD_INTEGER_TYPES } from "../../engine/datastore/mod.ts";
import {
  contentionAware,
  purgeMarks,
  RevisionedTransaction,
  type SqlClient,
  type SqlDialect,
  type SqlTransaction,
} from "./_sql.ts";

/** The control columns every projected table carries. */
const CONTROL = ["store_key", "rev", "updated_at"] as const;

/** One column of the live table, as the catalog describes it. */
export interface LiveColumn {
  readonly name: string;
  /** The type to cast a written text to (`numeric`, `character varying`, …). */
  readonly type: string;
  readonly nullable: boolean;
  readonly hasDefault: boolean;
}

/** The SQL a dialect issues for a projected table. */
export interface ProjectedSql {
  /** Params `[table]`; rows `{column_name, data_type, is_nullable, column_default}`. */
  catalog(): string;
  /** Params `[key]`; rows hold each column's text under its own name, plus `rev`. */
  select(p: StoreProjection, forUpdate: boolean): string;
  /** Params `[key, ...values]`; the last statement's first row is `{rev}`. */
  upsert(p: StoreProjection, live: ReadonlyMap<string, LiveColumn>): readonly string[];
  /** Params `[...values, key, expectRev]`; affects one row when the revision matched. */
  update(p: StoreProjection, live: ReadonlyMap<string, LiveColumn>): string;
  /** Params `[key]` (plus `expectRev` when `guarded`). */
  delete(p: StoreProjection, guarded: boolean): string;
  /** How a boolean is bound. */
  readonly booleanValue: (b: boolean) => string | number;
  /** Whether a dateTime is bound as naive UTC text (the column keeps no offset). */
  readonly naiveDateTimes: boolean;
}

const pg: ProjectedSql = {
  catalog: () =>
    "SELECT column_name, CASE WHEN data_type = 'USER-DEFINED' THEN udt_name ELSE data_type END " +
    "AS data_type, is_nullable, column_default FROM information_schema.columns " +
    "WHERE table_schema = current_schema() AND table_name = $1",
  select: (p, forUpdate) =>
    `SELECT ${
      p.columns.map((c) => `CAST(${dq(c.column)} AS TEXT) AS ${dq(c.column)}`).join(", ")
    }` +
    `, rev FROM ${dq(p.table)} WHERE store_key = $1${forUpdate ? " FOR UPDATE" : ""}`,
  upsert: (p, live) => {
    const cols = p.columns.map((c) => dq(c.column));
    const values = p.columns.map((c, i) => `CAST($${i + 2} AS ${live.get(c.column)!.type})`);
    return [
      `INSERT INTO ${dq(p.table)} AS t (store_key, ${cols.join(", ")}, rev, updated_at) ` +
      `VALUES ($1, ${values.join(", ")}, 1, now()) ON CONFLICT (store_key) DO UPDATE SET ` +
      cols.map((c) => `${c} = EXCLUDED.${c}`).join(", ") +
      ", rev = t.rev + 1, updated_at = now() RETURNING rev",
    ];
  },
  update: (p, live) => {
    const n = p.columns.length;
    const sets = p.columns.map((c, i) =>
      `${dq(c.column)} = CAST($${i + 1} AS ${live.get(c.column)!.type})`
    );
    return `UPDATE ${dq(p.table)} SET ${sets.join(", ")}, rev = rev + 1, updated_at = now() ` +
      `WHERE store_key = $${n + 1} AND rev = $${n + 2}`;
  },
  delete: (p, guarded) =>
    `DELETE FROM ${dq(p.table)} WHERE store_key = $1${guarded ? " AND rev = $2" : ""}`,
  booleanValue: (b) => String(b),
  naiveDateTimes: false,
};

const mysql: ProjectedSql = {
  catalog: () =>
    "SELECT COLUMN_NAME AS column_name, DATA_TYPE AS data_type, IS_NULLABLE AS is_nullable, " +
    "COLUMN_DEFAULT AS column_default FROM information_schema.columns " +
    "WHERE table_schema = DATABASE() AND table_name = ?",
  select: (p, forUpdate) =>
    `SELECT ${
      p.columns.map((c) => `CAST(${bq(c.column)} AS CHAR) AS ${bq(c.column)}`).join(", ")
    }` +
    `, rev FROM ${bq(p.table)} WHERE store_key = ?${forUpdate ? " FOR UPDATE" : ""}`,
  // Text binds convert implicitly to the column's type here; no cast is needed.
  upsert: (p) => {
    const cols = p.columns.map((c) => bq(c.column));
    return [
      `INSERT INTO ${bq(p.table)} (store_key, ${cols.join(", ")}, rev, updated_at) ` +
      `VALUES (?, ${cols.map(() => "?").join(", ")}, 1, CURRENT_TIMESTAMP(6)) ` +
      `ON DUPLICATE KEY UPDATE ${cols.map((c) => `${c} = VALUES(${c})`).join(", ")}, ` +
      "rev = rev + 1, updated_at = CURRENT_TIMESTAMP(6)",
      `SELECT rev FROM ${bq(p.table)} WHERE store_key = ?`,
    ];
  },
  update: (p) =>
    `UPDATE ${bq(p.table)} SET ${p.columns.map((c) => `${bq(c.column)} = ?`).join(", ")}, ` +
    "rev = rev + 1, updated_at = CURRENT_TIMESTAMP(6) WHERE store_key = ? AND rev = ?",
  delete: (p, guarded) =>
    `DELETE FROM ${bq(p.table)} WHERE store_key = ?${guarded ? " AND rev = ?" : ""}`,
  booleanValue: (b) => b ? 1 : 0,
  naiveDateTimes: true,
};

const mssql: ProjectedSql = {
  catalog: () =>
    "SELECT COLUMN_NAME AS column_name, DATA_TYPE AS data_type, IS_NULLABLE AS is_nullable, " +
    "COLUMN_DEFAULT AS column_default FROM INFORMATION_SCHEMA.COLUMNS " +
    "WHERE TABLE_SCHEMA = SCHEMA_NAME() AND TABLE_NAME = @p1",
  // Style 126 renders date and time types as ISO-8601; other types take a plain cast.
  select: (p, forUpdate) =>
    `SELECT ${
      p.columns.map((c) =>
        ["date", "dateTime", "time"].includes(c.type)
          ? `CONVERT(NVARCHAR(MAX), ${sq(c.column)}, 126) AS ${sq(c.column)}`
          : `CAST(${sq(c.column)} AS NVARCHAR(MAX)) AS ${sq(c.column)}`
      ).join(", ")
    }, rev FROM ${sq(p.table)}${forUpdate ? " WITH (UPDLOCK, ROWLOCK)" : ""} WHERE store_key = @p1`,
  upsert: (p) => {
    const cols = p.columns.map((c) => sq(c.column));
    const values = p.columns.map((_, i) => `@p${i + 2}`);
    return [
      `UPDATE ${sq(p.table)} WITH (UPDLOCK, HOLDLOCK) SET ` +
      cols.map((c, i) => `${c} = ${values[i]}`).join(", ") +
      ", rev = rev + 1, updated_at = SYSUTCDATETIME() OUTPUT inserted.rev WHERE store_key = @p1;\n" +
      `IF @@ROWCOUNT = 0\nINSERT INTO ${sq(p.table)} (store_key, ${cols.join(", ")}, rev, ` +
      `updated_at) OUTPUT inserted.rev VALUES (@p1, ${values.join(", ")}, 1, SYSUTCDATETIME());`,
    ];
  },
  update: (p) => {
    const n = p.columns.length;
    return `UPDATE ${sq(p.table)} SET ${
      p.columns.map((c, i) => `${sq(c.column)} = @p${i + 1}`).join(", ")
    }, rev = rev + 1, updated_at = SYSUTCDATETIME() WHERE store_key = @p${n + 1} AND rev = @p${
      n + 2
    }`;
  },
  delete: (p, guarded) =>
    `DELETE FROM ${sq(p.table)} WHERE store_key = @p1${guarded ? " AND rev = @p2" : ""}`,
  booleanValue: (b) => b ? 1 : 0,
  naiveDateTimes: false,
};

/** The projected-table SQL of a dialect, by its name. */
export function projectedSql(dialect: string): ProjectedSql {
  if (dialect === "mysql") return mysql;
  if (dialect === "sqlserver") return mssql;
  return pg;
}

const dq = (id: string) => `"${id}"`;
const bq = (id: string) => `\`${id}\``;
const sq = (id: string) => `[${id}]`;

/** The connection serving one projected store. */
export class ProjectedStoreConnection implements DataStoreConnection {
  readonly store: string;
  readonly #client: SqlClient;
  readonly #projection: StoreProjection;
  readonly #sql: ProjectedSql;
  #live?: Promise<ReadonlyMap<string, LiveColumn>>;
  #closed = false;

  /** @param client the driver, shared by nothing else @param options the store and its projection */
  constructor(
    client: SqlClient,
    options: { readonly store: string; readonly projection: StoreProjection },
  ) {
    this.#client = client;
    this.store = options.store;
    this.#projection = options.projection;
    this.#sql = projectedSql(client.dialect.name);
  }

  /** Where the store lives. */
  get description(): string {
    return this.#client.description;
  }

  /** Starts a transaction, once the live table has been found to serve the projection. */
  async begin(): Promise<DataStoreTransaction> {
    const live = await this.#verified();
    const tx = contentionAware(await this.#client.begin(), this.#client, this.store);
    return new ProjectedTransaction(tx, {
      store: this.store,
      dialect: this.#client.dialect,
      projection: this.#projection,
      sql: this.#sql,
      live,
    });
  }

  /** Forgets this store's marks recorded before `before` (epoch ms); resolves to how many. */
  purgeMarks(before: number): Promise<number> {
    // The marks live in their own table: the projection need not be verified for them.
    return purgeMarks(this.#client, this.store, before);
  }

  /** Closes the pool once. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#client.close();
  }

  // Only a passing check is kept: a table fixed by hand is picked up by the next operation.
  #verified(): Promise<ReadonlyMap<string, LiveColumn>> {
    if (!this.#live) {
      this.#live = this.#check();
      this.#live.catch(() => this.#live = undefined);
    }
    return this.#live;
  }

  async #check(): Promise<ReadonlyMap<string, LiveColumn>> {
    const tx = await this.#client.begin();
    let rows;
    try {
      ({ rows } = await tx.query(this.#sql.catalog(), [this.#projection.table]));
    } finally {
      await tx.rollback().catch(() => {});
    }
    const live = new Map<string, LiveColumn>(rows.map((r) => {
      const name = String(r.column_name).toLowerCase();
      return [name, {
        name,
        type: String(r.data_type),
        nullable: String(r.is_nullable).toUpperCase() === "YES",
        hasDefault: r.column_default !== null && r.column_default !== undefined,
      }];
    }));
    const problems = unsatisfied(this.#projection, live);
    if (problems.length > 0) {
      throw new DiagnosticError(diagnostic(
        "SUTRA.RUNTIME.DATASTORE.PROJECTION_UNSATISFIABLE",
        `data store '${this.store}': table '${this.#projection.table}' on ${this.description} ` +
          `cannot hold type '${this.#projection.type}': ${problems.join("; ")}`,
        { attributes: { store: this.store, table: this.#projection.table } },
      ));
    }
    return live;
  }
}

/** Every reason the live table cannot serve the projection (empty when it can). */
export function unsatisfied(
  p: StoreProjection,
  live: ReadonlyMap<string, LiveColumn>,
): string[] {
  if (live.size === 0) return [`the table does not exist`];
  const problems: string[] = [];
  for (const c of CONTROL) {
    if (!live.has(c)) problems.push(`control column '${c}' is missing`);
  }
  for (const c of p.columns) {
    if (!live.has(c.column)) problems.push(`column '${c.column}' (field '${c.field}') is missing`);
  }
  const known = new Set<string>([...CONTROL, ...p.columns.map((c) => c.column)]);
  for (const col of live.values()) {
    if (known.has(col.name) || col.nullable || col.hasDefault) continue;
    problems.push(
      `column '${col.name}' is NOT NULL without a default, and no declared field fills it`,
    );
  }
  return problems;
}

class ProjectedTransaction extends RevisionedTransaction {
  readonly #p: StoreProjection;
  readonly #sql: ProjectedSql;
  readonly #live: ReadonlyMap<string, LiveColumn>;

  constructor(
    tx: SqlTransaction,
    o: {
      store: string;
      dialect: SqlDialect;
      projection: StoreProjection;
      sql: ProjectedSql;
      live: ReadonlyMap<string, LiveColumn>;
    },
  ) {
    super(tx, o.store, o.dialect);
    this.#p = o.projection;
    this.#sql = o.sql;
    this.#live = o.live;
  }

  async get(key: string, options: GetOptions = {}): Promise<StoredRecord | undefined> {
    const { rows } = await this.query(this.#sql.select(this.#p, options.forUpdate === true), [key]);
    if (rows.length === 0) return undefined;
    const value: Record<string, unknown> = {};
    for (const c of this.#p.columns) {
      const text = rows[0][c.column];
      if (text === null || text === undefined) continue;
      value[c.field] = fromColumnText(c, String(text));
    }
    return { value, rev: Number(rows[0].rev) };
  }

  async put(key: string, value: unknown, options: WriteOptions = {}): Promise<number> {
    // Bound before either statement, so a refused value writes nothing.
    const values = this.#bind(key, value);
    return await this.write(key, options.expectRev, {
      update: () => ({
        sql: this.#sql.update(this.#p, this.#live),
        params: [...values, key, options.expectRev],
      }),
      upsert: () =>
        this.#sql.upsert(this.#p, this.#live).map((sql) => ({ sql, params: [key, ...values] })),
    });
  }

  async delete(key: string, options: WriteOptions = {}): Promise<boolean> {
    const guarded = options.expectRev !== undefined;
    return await this.remove(key, options.expectRev, {
      sql: this.#sql.delete(this.#p, guarded),
      params: guarded ? [key, options.expectRev] : [key],
    });
  }

  // The bind values of every declared column, in declared order; refuses what has no column.
  #bind(key: string, value: unknown): (string | number | null)[] {
    const refuse = (code: string, message: string, field?: string) =>
      new DiagnosticError(
        diagnostic(code, `data store '${this.store}', key '${key}': ${message}`, {
          attributes: { store: this.store, key, ...(field === undefined ? {} : { field }) },
        }),
      );
    if (typeof value !== "object" || value === null || Array.isArray(value)) {
      throw refuse(
        "SUTRA.RUNTIME.DATASTORE.VALUE_NOT_A_RECORD",
        `a projected store holds records of type '${this.#p.type}', and the value written is ` +
          `${value === null ? "null" : Array.isArray(value) ? "a list" : `a ${typeof value}`}`,
      );
    }
    const record = value as Record<string, unknown>;
    const declared = new Set(this.#p.columns.map((c) => c.field));
    const undeclared = Object.keys(record).filter((f) => !declared.has(f));
    if (undeclared.length > 0) {
      throw refuse(
        "SUTRA.RUNTIME.DATASTORE.UNDECLARED_FIELD",
        `type '${this.#p.type}' does not declare ${
          undeclared.map((f) => `'${f}'`).join(", ")
        }; nothing was written`,
        undeclared[0],
      );
    }
    return this.#p.columns.map((c) => {
      const v = record[c.field];
      if (v === null || v === undefined) return null;
      if (typeof v === "object") {
        throw refuse(
          "SUTRA.RUNTIME.DATASTORE.VALUE_NOT_A_RECORD",
          `field '${c.field}' holds a nested value, and a projected record is flat`,
          c.field,
        );
      }
      if (typeof v === "boolean") return this.#sql.booleanValue(v);
      const text = String(v);
      return c.type === "dateTime" && this.#sql.naiveDateTimes ? naiveUtc(text) : text;
    });
  }
}

/** A column's canonical text as the JSON-shaped value of its declared type. */
export function fromColumnText(c: ProjectedColumn, text: string): unknown {
  if (c.type === "boolean") return ["true", "t", "1"].includes(text.toLowerCase());
  if (XSD_INTEGER_TYPES.has(c.type)) {
    const n = Number(text);
    return Number.isSafeInteger(n) ? n : text;
  }
  if (c.type === "decimal" || c.type === "double" || c.type === "float") {
    const n = Number(text);
    return Number.isFinite(n) && String(n) === withoutTrailingZeros(text) ? n : text;
  }
  if (c.type === "dateTime" || c.type === "time") return isoInstant(text);
  return text;
}

function withoutTrailingZeros(text: string): string {
  return text.includes(".") ? text.replace(/0+$/, "").replace(/\.$/, "") : text;
}

/**
 * A dialect's rendering of an instant or time as ISO-8601: `T` between date
 * and time, fractional zeros dropped, an explicit `±HH:MM` offset (UTC for
 * a column that keeps none).
 */
export function isoInstant(text: string): string {
  const m = /^(\d{4}-\d{2}-\d{2}[ T])?(\d{2}:\d{2}:\d{2})(\.\d+)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?$/
    .exec(text.trim());
  if (!m) return text;
  const date = m[1] === undefined ? "" : `${m[1].slice(0, 10)}T`;
  const fraction = (m[3] ?? "").replace(/0+$/, "").replace(/^\.$/, "");
  let offset = m[4] ?? "+00:00";
  if (offset === "Z") offset = "+00:00";
  else if (/^[+-]\d{2}$/.test(offset)) offset = `${offset}:00`;
  else if (/^[+-]\d{4}$/.test(offset)) offset = `${offset.slice(0, 3)}:${offset.slice(3)}`;
  return `${date}${m[2]}${fraction}${offset}`;
}

// A dateTime as UTC without an offset, for a column type that keeps none.
function naiveUtc(text: string): string {
  const instant = Temporal.Instant.from(/[zZ]|[+-]\d{2}:?\d{2}$/.test(text) ? text : `${text}Z`);
  return instant.toString({ timeZone: "UTC" }).replace("T", " ").replace(/\+00:00$/, "");
}
