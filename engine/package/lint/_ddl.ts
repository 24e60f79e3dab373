/**
 * A static replay of a store's migration scripts: the tables they leave
 * behind, derived without a database from a deliberately small subset of
 * SQL — `CREATE TABLE`, `ALTER TABLE` (add, drop, alter, modify, change and
 * rename a column; add a primary key) and `DROP TABLE`, in the spellings of
 * PostgreSQL, MySQL/MariaDB and SQL Server. Statements that cannot change a
 * table's shape (`INSERT`, `UPDATE`, `DELETE`, `CREATE INDEX`, `COMMENT`)
 * are skipped. Anything else stops the replay: the shape is then unknown,
 * never guessed.
 *
 * @module
 */

/** One column as the scripts leave it. */
export interface DdlColumn {
  readonly name: string;
  /** Upper-case type words without arguments (`CHARACTER VARYING`, `TIMESTAMP WITH TIME ZONE`). */
  readonly type: string;
  /** The type's arguments (`[18, 2]`, `["MAX"]`), as written. */
  readonly args: readonly string[];
  readonly nullable: boolean;
  readonly hasDefault: boolean;
  /** Where the column got its current definition. */
  readonly file: string;
  readonly line: number;
}

/** One table as the scripts leave it. */
export interface DdlTable {
  readonly name: string;
  readonly columns: Map<string, DdlColumn>;
  /** The primary key's columns, in order; empty when it has none. */
  primaryKey: string[];
  readonly file: string;
  readonly line: number;
}

/** A script of the replay. */
export interface DdlScript {
  readonly file: string;
  readonly text: string;
}

/** What {@link replayDdl} derived. */
export type DdlReplay =
  | { readonly ok: true; readonly tables: ReadonlyMap<string, DdlTable> }
  | {
    readonly ok: false;
    /** Where the replay stopped and why. */
    readonly file: string;
    readonly line: number;
    readonly reason: string;
  };

interface Statement {
  readonly text: string;
  readonly line: number;
}

class Unsupported extends Error {}

/** Replays `scripts` in order. */
export function replayDdl(scripts: readonly DdlScript[]): DdlReplay {
  const tables = new Map<string, DdlTable>();
  for (const script of scripts) {
    for (const st of statements(script.text)) {
      try {
        apply(tables, new Cursor(st.text, st.line), { file: script.file, line: st.line });
      } catch (error) {
        if (!(error instanceof Unsupported)) throw error;
        return { ok: false, file: script.file, line: st.line, reason: error.message };
      }
    }
  }
  return { ok: true, tables };
}

/** Splits a script at `;` and `GO` lines, outside quotes, comments and dollar-quoted bodies. */
export function statements(text: string): Statement[] {
  const out: Statement[] = [];
  let current = "";
  let start = -1;
  let line = 1;
  const flush = () => {
    if (current.trim() !== "") out.push({ text: current.trim(), line: start });
    current = "";
    start = -1;
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === "\n") line++;
    if (c === "-" && text[i + 1] === "-") {
      const end = text.indexOf("\n", i);
      i = (end < 0 ? text.length : end) - 1;
      continue;
    }
    if (c === "/" && text[i + 1] === "*") {
      const end = text.indexOf("*/", i + 2);
      const stop = end < 0 ? text.length : end + 2;
      line += (text.slice(i, stop).match(/\n/g) ?? []).length;
      i = stop - 1;
      continue;
    }
    if (start < 0 && !/\s/.test(c)) start = line;
    if (c === ";") {
      flush();
      continue;
    }
    if ((c === "'" || c === '"' || c === "`") || (c === "$" && /^\$\w*\$/.test(text.slice(i)))) {
      const close = c === "$" ? /^\$\w*\$/.exec(text.slice(i))![0] : c;
      const end = text.indexOf(close, i + close.length);
      const stop = end < 0 ? text.length : end + close.length;
      const quoted = text.slice(i, stop);
      line += (quoted.match(/\n/g) ?? []).length;
      current += quoted;
      i = stop - 1;
      continue;
    }
    if (c === "\n" && /^[ \t]*GO[ \t]*\r?$/im.test(text.slice(i + 1).split("\n", 1)[0])) {
      flush();
      const end = text.indexOf("\n", i + 1);
      i = (end < 0 ? text.length : end) - 1;
      continue;
    }
    current += c;
  }
  flush();
  return out;
}

const TOKEN =
  /\s*("(?:[^"]|"")*"|`[^`]*`|\[[^\]]*\]|'(?:[^']|'')*'|[A-Za-z_][\w$]*|\d+(?:\.\d+)?|[(),.;]|\S)/y;

/**
 * Splits a statement into tokens, each with its line; quoted identifiers
 * lose their quotes (and keep their case).
 */
function tokens(text: string, firstLine: number): { tokens: string[]; lines: number[] } {
  const out: string[] = [];
  const lines: number[] = [];
  let line = firstLine;
  let seen = 0;
  TOKEN.lastIndex = 0;
  let m;
  while ((m = TOKEN.exec(text)) !== null) {
    const t = m[1];
    const at = TOKEN.lastIndex - t.length;
    line += (text.slice(seen, at).match(/\n/g) ?? []).length;
    seen = at;
    out.push(/^["`[]/.test(t) ? `\u0000${t.slice(1, -1)}` : t);
    lines.push(line);
  }
  return { tokens: out, lines };
}

/** A token as an identifier: quoted ones keep their case, bare ones fold to lower case. */
function ident(t: string | undefined): string {
  if (t === undefined) throw new Unsupported("the statement ends where a name was expected");
  return t.startsWith("\u0000") ? t.slice(1) : t.toLowerCase();
}

const upper = (t: string | undefined) => (t ?? "").toUpperCase();

class Cursor {
  i = 0;
  readonly t: readonly string[];
  readonly lines: readonly number[];
  constructor(text: string, firstLine: number) {
    const split = tokens(text, firstLine);
    this.t = split.tokens;
    this.lines = split.lines;
  }
  /** The line of the current token. */
  line(): number {
    return this.lines[Math.min(this.i, this.lines.length - 1)];
  }
  peek(n = 0): string {
    return upper(this.t[this.i + n]);
  }
  next(): string {
    return this.t[this.i++];
  }
  accept(...words: string[]): boolean {
    if (words.every((w, k) => this.peek(k) === w)) {
      this.i += words.length;
      return true;
    }
    return false;
  }
  expect(word: string): void {
    if (!this.accept(word)) {
      throw new Unsupported(`expected ${word} near '${this.t[this.i] ?? "end"}'`);
    }
  }
  done(): boolean {
    return this.i >= this.t.length;
  }
  // Skips one balanced parenthesised group, or one token.
  skip(): void {
    if (this.peek() !== "(") {
      this.i++;
      return;
    }
    let depth = 0;
    do {
      const t = this.next();
      if (t === "(") depth++;
      if (t === ")") depth--;
    } while (depth > 0 && !this.done());
  }
  // A possibly schema-qualified name: the last part.
  qualified(): string {
    let name = ident(this.next());
    while (this.peek() === ".") {
      this.i++;
      name = ident(this.next());
    }
    return name;
  }
}

interface Where {
  readonly file: string;
  readonly line: number;
}

function apply(tables: Map<string, DdlTable>, c: Cursor, at: Where): void {
  const t = c.t;
  const head = `${c.peek()} ${c.peek(1)}`;
  if (/^(INSERT|UPDATE|DELETE|COMMENT|SET|GRANT|REVOKE|ANALYZE|VACUUM) /.test(`${c.peek()} `)) {
    return;
  }
  if (
    head === "CREATE INDEX" || head === "CREATE UNIQUE" || head === "DROP INDEX" ||
    head === "ALTER INDEX"
  ) return;
  if (head === "CREATE TABLE") return createTable(tables, c, at);
  if (head === "ALTER TABLE") return alterTable(tables, c, at);
  if (head === "DROP TABLE") {
    c.i += 2;
    c.accept("IF", "EXISTS");
    do tables.delete(c.qualified()); while (c.accept(","));
    return;
  }
  throw new Unsupported(`the statement ${t.slice(0, 4).join(" ")} … is outside the parsed subset`);
}

function createTable(tables: Map<string, DdlTable>, c: Cursor, at: Where): void {
  c.i += 2;
  const ifNotExists = c.accept("IF", "NOT", "EXISTS");
  const name = c.qualified();
  if (c.peek() !== "(") throw new Unsupported(`CREATE TABLE ${name} has no column list`);
  c.next();
  const table: DdlTable = { name, columns: new Map(), primaryKey: [], ...at };
  for (;;) {
    readTableElement(table, c, at);
    if (c.accept(",")) continue;
    c.expect(")");
    break;
  }
  // Trailing table options (ENGINE=…, WITH (…), ON [PRIMARY]) do not change the shape.
  if (ifNotExists && tables.has(name)) return;
  tables.set(name, table);
}

const TABLE_CONSTRAINTS = new Set([
  "CONSTRAINT",
  "PRIMARY",
  "UNIQUE",
  "FOREIGN",
  "CHECK",
  "INDEX",
  "KEY",
  "EXCLUDE",
  "FULLTEXT",
  "SPATIAL",
]);

function readTableElement(table: DdlTable, c: Cursor, at: Where): void {
  if (TABLE_CONSTRAINTS.has(c.peek()) && !c.t[c.i].startsWith("\u0000")) {
    if (c.accept("CONSTRAINT")) c.next();
    if (c.accept("PRIMARY", "KEY")) {
      c.accept("CLUSTERED") || c.accept("NONCLUSTERED");
      table.primaryKey = columnList(c);
    }
    skipToElementEnd(c);
    return;
  }
  const column = readColumn(c, at);
  table.columns.set(column.name, column.def);
  if (column.primaryKey) table.primaryKey = [column.name];
}

function columnList(c: Cursor): string[] {
  c.expect("(");
  const names: string[] = [];
  for (;;) {
    names.push(ident(c.next()));
    while (c.peek() !== "," && c.peek() !== ")" && !c.done()) c.skip(); // ASC, DESC, (length)
    if (c.accept(",")) continue;
    c.expect(")");
    return names;
  }
}

function skipToElementEnd(c: Cursor): void {
  while (!c.done() && c.peek() !== "," && c.peek() !== ")") c.skip();
}

const COLUMN_CONSTRAINT_WORDS = new Set([
  "NOT",
  "NULL",
  "DEFAULT",
  "PRIMARY",
  "UNIQUE",
  "CHECK",
  "REFERENCES",
  "CONSTRAINT",
  "COLLATE",
  "GENERATED",
  "AUTO_INCREMENT",
  "IDENTITY",
  "COMMENT",
  "ON",
  "AS",
  "FIRST",
  "AFTER",
  "USING",
]);

function readColumn(
  c: Cursor,
  at: Where,
): { name: string; def: DdlColumn; primaryKey: boolean } {
  const line = c.line();
  return readColumnAfterName(ident(c.next()), c, { file: at.file, line });
}

function readColumnAfterName(
  name: string,
  c: Cursor,
  at: Where,
): { name: string; def: DdlColumn; primaryKey: boolean } {
  const words: string[] = [];
  const args: string[] = [];
  while (!c.done() && c.peek() !== "," && c.peek() !== ")") {
    const w = c.peek();
    if (w === "(" && words.length > 0 && args.length === 0) {
      c.next();
      while (c.peek() !== ")" && !c.done()) {
        const a = c.next();
        if (a !== ",") args.push(a.toUpperCase());
      }
      c.expect(")");
      continue;
    }
    if (COLUMN_CONSTRAINT_WORDS.has(w)) break;
    if (w === "CHARACTER" && c.peek(1) === "SET" || w === "CHARSET") break;
    if (["UNSIGNED", "SIGNED", "ZEROFILL", "ARRAY"].includes(w)) {
      if (w === "ARRAY") throw new Unsupported(`column ${name} is an array type`);
      c.next();
      continue;
    }
    words.push(w);
    c.next();
  }
  if (words.length === 0) throw new Unsupported(`column ${name} names no type`);
  let nullable = true;
  let hasDefault = false;
  let primaryKey = false;
  while (!c.done() && c.peek() !== "," && c.peek() !== ")") {
    if (c.accept("NOT", "NULL")) nullable = false;
    else if (c.accept("NULL")) nullable = true;
    else if (c.accept("PRIMARY", "KEY")) {
      primaryKey = true;
      nullable = false;
    } else if (c.accept("DEFAULT")) {
      hasDefault = true;
      c.skip();
    } else if (c.peek() === "USING") {
      throw new Unsupported(
        `the type change of column ${name} … USING is outside the parsed subset`,
      );
    } else if (c.accept("IDENTITY") || c.accept("AUTO_INCREMENT")) hasDefault = true;
    else if (c.accept("GENERATED")) {
      hasDefault = true;
      c.next();
    } else c.skip();
  }
  return {
    name,
    def: { name, type: words.join(" "), args, nullable, hasDefault, ...at },
    primaryKey,
  };
}

function alterTable(tables: Map<string, DdlTable>, c: Cursor, at: Where): void {
  c.i += 2;
  c.accept("IF", "EXISTS");
  c.accept("ONLY");
  const name = c.qualified();
  const table = tables.get(name);
  if (!table) throw new Unsupported(`ALTER TABLE ${name} alters a table the scripts never create`);
  do alterAction(table, c, at); while (c.accept(","));
  if (!c.done()) {
    throw new Unsupported(`ALTER TABLE ${name} has a clause outside the parsed subset`);
  }
}

function alterAction(table: DdlTable, c: Cursor, at: Where): void {
  const column = (n: string): DdlColumn => {
    const col = table.columns.get(n);
    if (!col) throw new Unsupported(`column ${n} of ${table.name} is altered before it exists`);
    return col;
  };
  if (c.accept("ADD")) {
    if (c.accept("CONSTRAINT")) c.next();
    if (c.accept("PRIMARY", "KEY")) {
      c.accept("CLUSTERED") || c.accept("NONCLUSTERED");
      table.primaryKey = columnList(c);
      return;
    }
    if (TABLE_CONSTRAINTS.has(c.peek())) {
      skipToElementEnd(c);
      return;
    }
    c.accept("COLUMN");
    const ifNotExists = c.accept("IF", "NOT", "EXISTS");
    const added = readColumn(c, at);
    if (ifNotExists && table.columns.has(added.name)) return;
    table.columns.set(added.name, added.def);
    if (added.primaryKey) table.primaryKey = [added.name];
    return;
  }
  if (c.accept("DROP")) {
    if (c.accept("CONSTRAINT") || c.accept("PRIMARY", "KEY")) {
      throw new Unsupported(`ALTER TABLE ${table.name} drops a constraint`);
    }
    c.accept("COLUMN");
    const ifExists = c.accept("IF", "EXISTS");
    const n = ident(c.next());
    if (!table.columns.has(n) && !ifExists) column(n);
    table.columns.delete(n);
    table.primaryKey = table.primaryKey.filter((k) => k !== n);
    c.accept("CASCADE") || c.accept("RESTRICT");
    return;
  }
  if (c.accept("MODIFY")) {
    c.accept("COLUMN");
    const changed = readColumn(c, at);
    column(changed.name);
    table.columns.set(changed.name, changed.def);
    return;
  }
  if (c.accept("CHANGE")) {
    c.accept("COLUMN");
    const old = ident(c.next());
    column(old);
    const changed = readColumn(c, at);
    table.columns.delete(old);
    table.columns.set(changed.name, changed.def);
    table.primaryKey = table.primaryKey.map((k) => k === old ? changed.name : k);
    return;
  }
  if (c.accept("RENAME")) {
    c.accept("COLUMN");
    const old = ident(c.next());
    c.expect("TO");
    const renamed = ident(c.next());
    table.columns.set(renamed, { ...column(old), name: renamed });
    table.columns.delete(old);
    table.primaryKey = table.primaryKey.map((k) => k === old ? renamed : k);
    return;
  }
  if (c.accept("ALTER")) {
    c.accept("COLUMN");
    const n = ident(c.next());
    const col = column(n);
    if (c.accept("SET", "NOT", "NULL")) table.columns.set(n, { ...col, nullable: false, ...at });
    else if (c.accept("DROP", "NOT", "NULL")) {
      table.columns.set(n, { ...col, nullable: true, ...at });
    } else if (c.accept("SET", "DEFAULT")) {
      c.skip();
      table.columns.set(n, { ...col, hasDefault: true });
    } else if (c.accept("DROP", "DEFAULT")) table.columns.set(n, { ...col, hasDefault: false });
    else {
      // PostgreSQL's `TYPE …` keeps the column's nullability and default;
      // SQL Server's bare `type [NULL | NOT NULL]` restates the nullability.
      const keeps = c.accept("SET", "DATA", "TYPE") || c.accept("TYPE");
      const changed = readColumnAfterName(n, c, at).def;
      table.columns.set(
        n,
        keeps ? { ...changed, nullable: col.nullable, hasDefault: col.hasDefault } : changed,
      );
    }
    return;
  }
  throw new Unsupported(`ALTER TABLE ${table.name} ${c.peek()} is outside the parsed subset`);
}
