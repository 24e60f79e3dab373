/**
 * A small method-and-path router for the engine's single HTTP listener.
 * Patterns are literal segments and `{name}` parameters; every miss and every
 * unexpected throw answers JSON diagnostics, never a stack trace.
 *
 * @module
 */
import { type Diagnostic, diagnostic, DiagnosticError, type Logger } from "../core/mod.ts";

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

/** Routes requests to handlers by method and path. */
export class Router {
  readonly #routes: Route[] = [];

  constructor(private readonly logger: Logger) {}

  /** Adds a route; `pattern` like `/sutra/deployments/{id}`. */
  add(method: string, pattern: string, handler: RouteHandler): this {
    this.#routes.push({ method: method.toUpperCase(), segments: split(pattern), handler });
    return this;
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
      try {
        return await route.handler(request, params);
      } catch (error) {
        if (error instanceof DiagnosticError) return diagnosticResponse(400, error.diagnostics);
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
      return diagnosticResponse(
        405,
        [diagnostic("SUTRA.HTTP.METHOD_NOT_ALLOWED", `${request.method} is not allowed here`, {
          attributes: { allow: [...allowed].sort().join(", ") },
        })],
      );
    }
    return diagnosticResponse(404, [
      diagnostic("SUTRA.HTTP.NOT_FOUND", `no route for ${new URL(request.url).pathname}`),
    ]);
  }
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
  if (Number(request.headers.get("content-length") ?? "NaN") > cap) {
    await request.body?.cancel();
    return undefined;
  }
  if (!request.body) return new Uint8Array(0);
  const chunks: Uint8Array[] = [];
  let total = 0;
  const reader = request.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.length;
    if (total > cap) {
      await reader.cancel();
      return undefined;
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
