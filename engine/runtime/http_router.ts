/**
 * A small method-and-path router for the engine's single HTTP listener.
 * Patterns are literal segments and `{name}` parameters; every miss and every
 * unexpected throw answers JSON diagnostics, never a stack trace.
 *
 * @module
 */
import { type Diagnostic, diagnostic, DiagnosticError, type Logger, newId } from "../core/mod.ts";
import { RequestBodyError, type ServedBody, servedBody } from "./http_server.ts";

/** Path parameters captured by `{name}` segments. */
export type RouteParams = Readonly<Record<string, string>>;

/** Handles one matched request. */
export type RouteHandler = (request: Request, params: RouteParams) => Response | Promise<Response>;

interface Route {
  readonly method: string;
  readonly segments: readonly string[];
  readonly handler: RouteHandler;
}

/** A JSON response with the given status. */
export function jsonResponse(status: number, body: unknown, headers: HeadersInit = {}): Response {
  const h = new Headers(headers);
  h.set("content-type", "application/json");
  return new Response(JSON.stringify(body), { status, headers: h });
}

/** A response carrying diagnostics as `{"diagnostics":[…]}`. */
export function diagnosticResponse(status: number, diagnostics: readonly Diagnostic[]): Response {
  return jsonResponse(status, { diagnostics });
}

/**
 * The part of the routes a listener serves: `all` of them (one listener),
 * or, when the admin surface has a listener of its own (`sutra.admin.port`),
 * `public` (everything but the admin surface) and `admin` (only it).
 */
export type Surface = "all" | "public" | "admin";

/** Whether a path belongs to the admin surface: `/admin/…` and the console, `/console…`. */
export function isAdminPath(pathname: string): boolean {
  const first = split(pathname)[0];
  return first === "admin" || first === "console";
}

/** Routes requests to handlers by method and path. */
export class Router {
  readonly #routes: Route[] = [];

  constructor(private readonly logger: Logger) {}

  /** Adds a route; `pattern` like `/sutra/deployments/{id}`. */
  add(method: string, pattern: string, handler: RouteHandler): this {
    this.#routes.push({ method: method.toUpperCase(), segments: split(pattern), handler });
    return this;
  }

  /**
   * The request handler of a listener serving `surface`: a path of another
   * surface is answered like a path no route matches, so a listener does
   * not reveal what the other one serves.
   */
  handler(surface: Surface): (request: Request) => Promise<Response> {
    if (surface === "all") return (request) => this.handle(request);
    return (request) => {
      const pathname = new URL(request.url).pathname;
      return isAdminPath(pathname) === (surface === "admin")
        ? this.handle(request)
        : Promise.resolve(notFound(pathname));
    };
  }

  /** Dispatches a request; never rejects. */
  async handle(request: Request): Promise<Response> {
    const path = split(new URL(request.url).pathname);
    const allowed = new Set<string>();
    for (const route of this.#routes) {
      const params = match(route.segments, path);
      if (!params) continue;
      const method = request.method === "HEAD" ? "GET" : request.method;
      if (route.method !== method) {
        allowed.add(route.method);
        continue;
      }
      const unfit = unfitParameter(params);
      if (unfit) return diagnosticResponse(400, [unfit]);
      try {
        return await route.handler(request, params);
      } catch (error) {
        if (error instanceof DiagnosticError) return diagnosticResponse(400, error.diagnostics);
        if (error instanceof RequestBodyError) {
          // The client broke off, was too slow or broke the framing: its doing, not an engine fault.
          this.logger.debug("request body not read to its end", {
            code: error.diagnostic.code,
            method: request.method,
            path: new URL(request.url).pathname,
            reason: error.message,
          });
          return diagnosticResponse(error.status, [error.diagnostic]);
        }
        this.logger.error("request failed unexpectedly", {
          code: "SUTRA.RUNTIME.UNEXPECTED",
          method: request.method,
          path: new URL(request.url).pathname,
          error: error instanceof Error ? error.stack ?? error.message : String(error),
        });
        return diagnosticResponse(500, [
          diagnostic(
            "SUTRA.RUNTIME.UNEXPECTED",
            "the request failed unexpectedly; see the engine log",
          ),
        ]);
      }
    }
    if (allowed.size > 0) {
      const allow = [...allowed].sort().join(", ");
      const refused = diagnosticResponse(
        405,
        [diagnostic("SUTRA.HTTP.METHOD_NOT_ALLOWED", `${request.method} is not allowed here`, {
          attributes: { allow },
        })],
      );
      // HTTP requires a 405 to say which methods the resource does take.
      refused.headers.set("allow", allow);
      return refused;
    }
    return notFound(new URL(request.url).pathname);
  }
}

function notFound(pathname: string): Response {
  return diagnosticResponse(404, [diagnostic("SUTRA.HTTP.NOT_FOUND", `no route for ${pathname}`)]);
}

// Control characters (NUL above all, which no PostgreSQL text value can hold) have
// no place in an id, a slot or an alias taken from a path.
// deno-lint-ignore no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;

function unfitParameter(params: RouteParams): Diagnostic | undefined {
  for (const [name, value] of Object.entries(params)) {
    const m = CONTROL.exec(value);
    if (!m) continue;
    const codePoint = `U+${m[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, "0")}`;
    return diagnostic(
      "SUTRA.HTTP.PATH_INVALID",
      `the path segment {${name}} holds the control character ${codePoint}; ids, slots and alias values never do`,
      { attributes: { parameter: name, character: codePoint } },
    );
  }
  return undefined;
}

/**
 * What a client may see of failures inside the engine (a 5xx answer): each
 * diagnostic keeps its code, but its message and attributes, which may quote
 * a database or driver, go only to the log, under an incident id the answer
 * names.
 */
export function withheld(
  logger: Logger,
  diagnostics: readonly Diagnostic[],
  context: Readonly<Record<string, unknown>> = {},
): Diagnostic[] {
  const incidentId = newId();
  logger.error("request failed inside the engine", { incidentId, ...context, diagnostics });
  return diagnostics.map((d) =>
    diagnostic(
      d.code,
      `the request failed inside the engine (${d.code}); the engine log has the detail under incident ${incidentId}`,
      { attributes: { incidentId } },
    )
  );
}

function split(path: string): string[] {
  return path.split("/").filter((s) => s !== "");
}

function match(pattern: readonly string[], path: readonly string[]): RouteParams | undefined {
  if (pattern.length !== path.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < pattern.length; i++) {
    const p = pattern[i];
    if (p.startsWith("{") && p.endsWith("}")) {
      try {
        params[p.slice(1, -1)] = decodeURIComponent(path[i]);
      } catch {
        return undefined;
      }
    } else if (p !== path[i]) return undefined;
  }
  return params;
}

/**
 * Reads a request body, stopping as soon as it passes `cap` bytes (a
 * declared length over the cap is refused before anything is read);
 * undefined when it is too large.
 */
export async function readCappedBody(
  request: Request,
  cap: number,
): Promise<Uint8Array | undefined> {
  const read = await readBodyWithin(request, cap);
  return read instanceof Uint8Array ? read : undefined;
}

/** Why {@link readBodyWithin} stopped: the declared length, or the bytes received so far. */
export interface OverCap {
  readonly size: number;
  /** True when `size` counts only what arrived before reading stopped. */
  readonly partial: boolean;
}

/**
 * Reads a request body, stopping as soon as it passes `cap` bytes, so an
 * oversized body never sits in memory whole; a declared length over the cap
 * is refused before anything is read. On a request the engine's listener
 * serves, the read is bounded by `sutra.http.body-timeout` and a body left
 * unread closes the connection after the answer (see {@link servedBody}).
 */
export async function readBodyWithin(
  request: Request,
  cap: number,
): Promise<Uint8Array | OverCap> {
  const served = servedBody(request);
  const declared = Number(request.headers.get("content-length") ?? "NaN");
  if (declared > cap) {
    await stopReading(request, served);
    return { size: declared, partial: false };
  }
  // A declared length within the cap is read whole at once; a chunked body piece by piece.
  // (`request.body` is not touched for the first: making its stream costs more than the read.)
  let read: Promise<Uint8Array | OverCap>;
  if (declared >= 0) read = request.bytes();
  else if (request.body) read = readUpTo(request.body, cap);
  else return new Uint8Array(0);
  const body = served ? await served.within(read) : await read;
  if (!(body instanceof Uint8Array)) await stopReading(request, served);
  return body;
}

/** Leaves the rest of a body unread: the listener closes the connection after the answer. */
async function stopReading(request: Request, served: ServedBody | undefined): Promise<void> {
  // Cancelling a served body would drop the connection before the answer is written.
  if (served) served.closeAfterAnswer();
  else if (!request.bodyUsed) await request.body?.cancel().catch(() => {});
}

/** A chunked body's bytes, or how far it got past `cap`. */
async function readUpTo(
  body: ReadableStream<Uint8Array>,
  cap: number,
): Promise<Uint8Array | OverCap> {
  const chunks: Uint8Array[] = [];
  let total = 0;
  const reader = body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.length;
    if (total > cap) {
      reader.releaseLock();
      return { size: total, partial: true };
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) {
    bytes.set(c, at);
    at += c.length;
  }
  return bytes;
}
