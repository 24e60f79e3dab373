/**
 * The instance search behind `GET /admin/instances`: query parameters read
 * into a filter (every bad one reported at once, each naming itself), and
 * the filter turned into one keyset-paginated statement, newest first.
 *
 * Each filter adds its own condition, so the statement only ever holds
 * conditions that constrain something and each shape plans against the
 * index that leads with its column (migration 9). A page continues after
 * the `(created_at, instance_id)` of the last row of the previous one,
 * carried in an opaque cursor at the database's full precision: a page
 * boundary never skips or repeats a row, however many instances share a
 * millisecond.
 *
 * @module
 */
import { type Diagnostic, diagnostic } from "../../core/diagnostic.ts";
import type { Queryable } from "../../persistence/mod.ts";

/** Statuses a search can ask for: the surface statuses plus the row's SUSPENDED. */
export const SEARCH_STATUSES = [
  "RUNNING",
  "WAITING",
  "SUSPENDED",
  "COMPLETED",
  "TERMINATED",
  "FAILED",
] as const;

/** One searchable status. */
export type SearchStatus = typeof SEARCH_STATUSES[number];

/** Page size when `limit` is absent. */
export const DEFAULT_PAGE = 50;
/** The largest page `limit` may ask for. */
export const MAX_PAGE = 500;

/** A parsed search. */
export interface InstanceSearch {
  readonly process?: string;
  readonly status?: SearchStatus;
  readonly deployment?: string;
  readonly alias?: { readonly name: string; readonly value: string };
  /** Exclusive lower bound on the start instant, ISO-8601 text. */
  readonly startedAfter?: string;
  /** Exclusive upper bound on the start instant, ISO-8601 text. */
  readonly startedBefore?: string;
  readonly failureCode?: string;
  /** Where the previous page ended. */
  readonly after?: { readonly createdAt: string; readonly instanceId: string };
  readonly limit: number;
}

const PARAMETERS = [
  "process",
  "status",
  "deployment",
  "alias",
  "startedAfter",
  "startedBefore",
  "failureCode",
  "cursor",
  "limit",
] as const;

/** The query parameters a search takes, for the OpenAPI document. */
export const SEARCH_PARAMETERS: readonly string[] = PARAMETERS;

// Control characters (NUL above all, which no text column can hold) have no place in a filter.
// deno-lint-ignore no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;

// PostgreSQL's timestamps have no year 0 and read a negative year as something else.
const YEAR_ONE_MS = Date.parse("0001-01-01T00:00:00Z");

/** True when `text` holds a control character. */
export function hasControl(text: string): boolean {
  return CONTROL.test(text);
}

function invalid(parameter: string, value: string, why: string): Diagnostic {
  return diagnostic(
    "SUTRA.ADMIN.QUERY.INVALID",
    `query parameter '${parameter}' ${why} (got '${value.slice(0, 80)}')`,
    { attributes: { parameter, value: value.slice(0, 200) } },
  );
}

/**
 * Reads every query parameter the listing may take; names every parameter
 * that is unknown, repeated, or holds a value it cannot take.
 */
export function parseSearch(
  params: URLSearchParams,
): { search: InstanceSearch } | { diagnostics: Diagnostic[] } {
  const problems: Diagnostic[] = [];
  const seen = new Map<string, string>();
  for (const [name, value] of params) {
    if (!(PARAMETERS as readonly string[]).includes(name)) {
      problems.push(diagnostic(
        "SUTRA.ADMIN.QUERY.UNKNOWN",
        `unknown query parameter '${name}'; this listing takes ${PARAMETERS.join(", ")}`,
        { attributes: { parameter: name } },
      ));
    } else if (seen.has(name)) {
      problems.push(invalid(name, value, "is given more than once"));
    } else if (value === "" || hasControl(value)) {
      problems.push(invalid(name, value, "is empty or holds a control character"));
    } else seen.set(name, value);
  }
  const text = (name: string) => seen.get(name);
  let status: SearchStatus | undefined;
  const statusText = text("status");
  if (statusText !== undefined) {
    const upper = statusText.toUpperCase();
    if ((SEARCH_STATUSES as readonly string[]).includes(upper)) status = upper as SearchStatus;
    else {problems.push(
        invalid("status", statusText, `must be one of ${SEARCH_STATUSES.join(", ")}`),
      );}
  }
  let alias: InstanceSearch["alias"];
  const aliasText = text("alias");
  if (aliasText !== undefined) {
    const eq = aliasText.indexOf("=");
    if (eq <= 0 || eq === aliasText.length - 1) {
      problems.push(invalid("alias", aliasText, "must be NAME=VALUE"));
    } else alias = { name: aliasText.slice(0, eq), value: aliasText.slice(eq + 1) };
  }
  const instant = (name: string) => {
    const value = text(name);
    if (value === undefined) return undefined;
    try {
      const at = Temporal.Instant.from(value);
      if (at.epochMilliseconds >= YEAR_ONE_MS) return at.toString();
    } catch {
      // Reported below.
    }
    problems.push(invalid(name, value, "must be an ISO-8601 instant with an offset, from year 1"));
    return undefined;
  };
  const startedAfter = instant("startedAfter");
  const startedBefore = instant("startedBefore");
  let limit = DEFAULT_PAGE;
  const limitText = text("limit");
  if (limitText !== undefined) {
    const n = /^\d{1,6}$/.test(limitText) ? Number(limitText) : NaN;
    if (!(n >= 1 && n <= MAX_PAGE)) {
      problems.push(invalid("limit", limitText, `must be a whole number from 1 to ${MAX_PAGE}`));
    } else limit = n;
  }
  let after: InstanceSearch["after"];
  const cursorText = text("cursor");
  if (cursorText !== undefined) {
    after = decodeCursor(cursorText);
    if (!after) problems.push(invalid("cursor", cursorText, "is not a cursor this listing issued"));
  }
  if (problems.length > 0) return { diagnostics: problems };
  return {
    search: {
      process: text("process"),
      status,
      deployment: text("deployment"),
      alias,
      startedAfter,
      startedBefore,
      failureCode: text("failureCode"),
      after,
      limit,
    },
  };
}

/** The cursor after a row: its start instant at full precision and its id, base64url JSON. */
export function encodeCursor(createdAt: string, instanceId: string): string {
  const bytes = new TextEncoder().encode(JSON.stringify([createdAt, instanceId]));
  return btoa(String.fromCharCode(...bytes)).replaceAll("+", "-").replaceAll("/", "_")
    .replace(/=+$/, "");
}

const CURSOR_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

function decodeCursor(text: string): InstanceSearch["after"] {
  try {
    const binary = atob(text.replaceAll("-", "+").replaceAll("_", "/"));
    const json = new TextDecoder("utf-8", { fatal: true }).decode(
      Uint8Array.from(binary, (c) => c.charCodeAt(0)),
    );
    const value = JSON.parse(json);
    if (
      Array.isArray(value) && value.length === 2 && typeof value[0] === "string" &&
      CURSOR_INSTANT.test(value[0]) && typeof value[1] === "string" && value[1] !== ""
    ) {
      return { createdAt: value[0], instanceId: value[1] };
    }
  } catch {
    // Not base64, not UTF-8 or not JSON: the caller reports it as not a cursor.
  }
  return undefined;
}

/** One row of a search page. */
export interface SearchRow {
  tenant: string;
  instance_id: string;
  deployment_id: string;
  process_id: string;
  status: string;
  owner: string | null;
  failure_code: string | null;
  failure_detail: string | null;
  failure_node: string | null;
  created_at: Date;
  updated_at: Date;
  ended_at: Date | null;
  /** `created_at` in UTC at microsecond precision, for the cursor. */
  created_key: string;
}

/** The statement and its parameters for `search` (one row more than the page, to learn whether more follow). */
export function searchStatement(search: InstanceSearch): { sql: string; params: unknown[] } {
  const params: unknown[] = [];
  const p = (value: unknown) => {
    params.push(value);
    return `$${params.length}`;
  };
  const where: string[] = [];
  if (search.process !== undefined) where.push(`i.process_id = ${p(search.process)}`);
  if (search.deployment !== undefined) where.push(`i.deployment_id = ${p(search.deployment)}`);
  if (search.failureCode !== undefined) {
    where.push(`i.failure_code is not null and i.failure_code = ${p(search.failureCode)}`);
  }
  switch (search.status) {
    case undefined:
      break;
    // The row keeps RUNNING for every live instance; a held claim is what running means.
    case "RUNNING":
      where.push("i.status = 'RUNNING' and i.owner is not null");
      break;
    case "WAITING":
      where.push("i.status = 'RUNNING' and i.owner is null");
      break;
    default:
      where.push(`i.status = ${p(search.status)}`);
  }
  if (search.alias !== undefined) {
    where.push(`i.instance_id in (select a.instance_id from aliases a
        where a.name = ${p(search.alias.name)} and a.value = ${p(search.alias.value)}
          and a.tenant = i.tenant)`);
  }
  if (search.startedAfter !== undefined) {
    where.push(`i.created_at > ${p(search.startedAfter)}::timestamptz`);
  }
  if (search.startedBefore !== undefined) {
    where.push(`i.created_at < ${p(search.startedBefore)}::timestamptz`);
  }
  if (search.after !== undefined) {
    where.push(
      `(i.created_at, i.instance_id) < (${p(search.after.createdAt)}::timestamptz, ${
        p(search.after.instanceId)
      })`,
    );
  }
  const sql = `select i.tenant, i.instance_id, i.deployment_id, i.process_id, i.status, i.owner,
      i.failure_code, i.failure_detail, i.failure_node, i.created_at, i.updated_at, i.ended_at,
      to_char(i.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as created_key
    from instances i${where.length > 0 ? `\n    where ${where.join("\n      and ")}` : ""}
    order by i.created_at desc, i.instance_id desc
    limit ${p(search.limit + 1)}`;
  return { sql, params };
}

/** A page of rows and the cursor to the next page (absent on the last page). */
export interface SearchPage {
  readonly rows: readonly SearchRow[];
  readonly next?: string;
}

/** Runs a search. */
export async function searchInstances(db: Queryable, search: InstanceSearch): Promise<SearchPage> {
  const { sql, params } = searchStatement(search);
  const { rows } = await db.query<SearchRow>(sql, params);
  if (rows.length <= search.limit) return { rows };
  const page = rows.slice(0, search.limit);
  const last = page[page.length - 1];
  return { rows: page, next: encodeCursor(last.created_key, last.instance_id) };
}
