/**
 * The engine's HTTP listener: its own accept loop over `Deno.listen`, each
 * accepted connection then served by Deno's built-in HTTP server (the native
 * one `Deno.serve` runs on every connection, reached through its
 * per-connection entry point). The accept loop gives the engine what
 * `Deno.serve` (Deno 2.9) lacks: a connection cap, a listener that survives
 * running out of file descriptors, and timeouts. Parsing and writing stay
 * native, several times cheaper per request than an HTTP/1.1 exchange in
 * JavaScript.
 *
 * - At most `maxConnections` connections are open; one more is answered
 *   503 `SUTRA.HTTP.CONNECTION_LIMIT` and closed at once.
 * - A failed accept (`EMFILE`: the process is out of file descriptors) is
 *   logged and retried with a short backoff; the listener never stops.
 * - A new connection that has not delivered a complete request head within
 *   `headerTimeoutMs` (or `idleTimeoutMs`, if shorter) is closed, and so is
 *   one with no request in progress `idleTimeoutMs` after its last answer.
 *   The native parser does not report a head that is still arriving, so a
 *   slow head is closed without an answer rather than answered 408.
 * - A body not read to its end `bodyTimeoutMs` after the handler first reads
 *   it is answered 408 `SUTRA.HTTP.REQUEST_TIMEOUT`; the connection closes.
 * - A head over `maxHeaderBytes` is answered 431 `SUTRA.HTTP.HEADERS_TOO_LARGE`
 *   (one past the native parser's own buffer, about 400 kB, gets its bare 400).
 * - A body the client breaks off, or whose chunked framing is broken, errors
 *   the handler's reads with a {@link RequestBodyError}.
 *
 * The listener is a TCP `hostname:port` ({@link serveHttp}) or a Unix domain
 * socket ({@link serveHttpSocket}): a build without network access still
 * serves its health and admin routes to processes on the same host.
 *
 * @module
 */
import { type Diagnostic, diagnostic, DiagnosticError } from "../core/diagnostic.ts";
import type { Logger } from "../core/log.ts";
import { errorMessage } from "../core/errors.ts";

/** Connection limits and timeouts, from the `sutra.http.*` keys. */
export interface HttpLimits {
  readonly maxConnections: number;
  readonly idleTimeoutMs: number;
  readonly headerTimeoutMs: number;
  readonly bodyTimeoutMs: number;
  readonly maxHeaderBytes: number;
}

/** Options for {@link serveHttp}. */
export interface HttpServerOptions {
  readonly hostname: string;
  readonly port: number;
  readonly limits: HttpLimits;
  readonly logger: Logger;
}

/** Options for {@link serveHttpSocket}: a Unix socket's path instead of a host and port. */
export interface HttpSocketOptions {
  /** The socket file's path. */
  readonly path: string;
  readonly limits: HttpLimits;
  readonly logger: Logger;
}

/** Answers one request; should not reject (a rejection is answered 500). */
export type HttpHandler = (request: Request) => Promise<Response>;

/** A running listener. */
export interface HttpServer {
  /** Where it listens: a TCP address, or a Unix socket's path. */
  readonly addr: Deno.NetAddr | Deno.UnixAddr;
  /** Connections open right now. */
  readonly connections: number;
  /** Stops accepting, closes idle connections, resolves once in-flight exchanges have answered. */
  shutdown(): Promise<void>;
  /** Closes every connection now. */
  close(): void;
}

/**
 * Why a request body could not be read to its end: the client went away,
 * was too slow, or broke the chunked framing. `status` is the answer the
 * request deserves (the client may no longer be there to read it).
 */
export class RequestBodyError extends Error {
  /** The diagnostic naming what went wrong. */
  readonly diagnostic: Diagnostic;
  /** The HTTP status for it. */
  readonly status: number;

  constructor(status: number, d: Diagnostic) {
    super(d.message);
    this.name = "RequestBodyError";
    this.status = status;
    this.diagnostic = d;
  }
}

/**
 * The refusal of a TCP listener that could not bind `hostname:port`; a port
 * another process holds says how to choose another.
 */
export function listenFailed(hostname: string, port: number, error: unknown): DiagnosticError {
  const busy = error instanceof Deno.errors.AddrInUse
    ? " (another process holds the port: choose another with --port or SUTRA_HTTP_PORT)"
    : "";
  return new DiagnosticError(diagnostic(
    "SUTRA.HTTP.LISTEN_FAILED",
    `cannot listen on ${hostname}:${port}: ${errorMessage(error)}${busy}`,
    { attributes: { port, host: hostname } },
  ));
}

/** Listens on `hostname:port` and answers every request with `handler`; throws when it cannot listen. */
export function serveHttp(handler: HttpHandler, options: HttpServerOptions): HttpServer {
  const serve = builtinServer();
  const listener = Deno.listen({ hostname: options.hostname, port: options.port });
  return new Listener(listener, serve, handler, options);
}

/**
 * Listens on the Unix socket `options.path` and answers every request with
 * `handler`. A socket file a previous run left behind (nothing accepts on
 * it) is replaced; one another process listens on is refused with
 * `SUTRA.HTTP.LISTEN_FAILED`, as is a path that is not a socket. The file
 * is removed when the listener stops accepting.
 */
export async function serveHttpSocket(
  handler: HttpHandler,
  options: HttpSocketOptions,
): Promise<HttpServer> {
  const serve = builtinServer();
  const { path } = options;
  await removeStaleSocket(path);
  const listener = Deno.listen({ transport: "unix", path });
  return new Listener(listener, serve, handler, options);
}

/** Removes a socket file nothing listens on; throws when something does, or it is no socket. */
async function removeStaleSocket(path: string): Promise<void> {
  let info: Deno.FileInfo;
  try {
    info = await Deno.lstat(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return;
    throw error;
  }
  const refuse = (why: string) =>
    new DiagnosticError(diagnostic(
      "SUTRA.HTTP.LISTEN_FAILED",
      `cannot listen on the Unix socket ${path}: ${why}`,
      { attributes: { path } },
    ));
  if (!info.isSocket) {
    throw refuse("the path exists and is not a socket; remove it or choose another");
  }
  try {
    const conn = await Deno.connect({ transport: "unix", path });
    conn.close();
  } catch (error) {
    // Refused: a socket file whose listener is gone (the process was killed).
    if (!(error instanceof Deno.errors.ConnectionRefused)) throw error;
    await Deno.remove(path);
    return;
  }
  throw refuse("another process listens on it (is another engine running?)");
}

/** Deno's native HTTP server for one accepted connection (what `Deno.serve` runs per connection). */
type ServeConnection = (
  conn: Deno.Conn,
  signal: AbortSignal,
  handler: (request: Request, info: ServedRequest) => Promise<Response>,
  onError: (error: unknown) => Response,
  onListen: () => void,
) => { readonly finished: Promise<void>; shutdown(): Promise<void> };

/** What the native server tells a handler besides the request. */
interface ServedRequest {
  /** Settles once the answer has been handed to the socket (or the exchange failed). */
  readonly completed: Promise<void>;
}

/** Keeps a connection the native server had already let go of from ending the process. */
function gone(event: ErrorEvent): void {
  if (event.error instanceof Deno.errors.BadResource) event.preventDefault();
}

/** The native per-connection server; refused clearly on a Deno that does not offer it. */
function builtinServer(): ServeConnection {
  const deno = Deno as unknown as
    & { readonly internal: symbol }
    & Record<symbol, Record<string, unknown> | undefined>;
  const serve = deno[deno.internal]?.serveHttpOnConnection;
  if (typeof serve !== "function") {
    throw new DiagnosticError(diagnostic(
      "SUTRA.HTTP.LISTEN_FAILED",
      `Deno ${Deno.version.deno} offers no per-connection HTTP server; run the engine on Deno 2.9.6`,
      { attributes: { deno: Deno.version.deno } },
    ));
  }
  return serve as ServeConnection;
}

// Logs about the listener itself at most this often, so a flood costs no log storm.
const WARN_EVERY_MS = 10_000;

/** What a connection needs of the listener's options. */
type ConnectionOptions = Pick<HttpServerOptions, "limits" | "logger">;

class Listener implements HttpServer {
  readonly addr: Deno.NetAddr | Deno.UnixAddr;
  readonly #listener: Deno.Listener;
  readonly #serve: ServeConnection;
  readonly #handler: HttpHandler;
  readonly #o: ConnectionOptions;
  readonly #open = new Set<Connection>();
  #closing = false;
  #backoff?: ReturnType<typeof setTimeout>;
  #lastWarn = new Map<string, number>();
  // One timer for every connection's deadlines: a timer per exchange costs more than the sweep.
  readonly #sweeper: ReturnType<typeof setInterval>;

  constructor(
    listener: Deno.Listener,
    serve: ServeConnection,
    handler: HttpHandler,
    o: ConnectionOptions,
  ) {
    this.#listener = listener;
    this.#serve = serve;
    this.#handler = handler;
    this.#o = o;
    this.addr = listener.addr as Deno.NetAddr | Deno.UnixAddr;
    const { idleTimeoutMs, headerTimeoutMs, bodyTimeoutMs } = o.limits;
    const tick = Math.min(
      Math.max(Math.min(idleTimeoutMs, headerTimeoutMs, bodyTimeoutMs) / 4, 10),
      1_000,
    );
    this.#sweeper = setInterval(() => {
      const now = Date.now();
      for (const c of this.#open) c.expire(now);
    }, tick);
    this.#accept();
  }

  get connections(): number {
    return this.#open.size;
  }

  async #accept(): Promise<void> {
    let delay = 0;
    while (!this.#closing) {
      let conn: Deno.Conn;
      try {
        conn = await this.#listener.accept();
        delay = 0;
      } catch (error) {
        if (this.#closing) return;
        // Out of file descriptors (or a like transient failure): wait for some to close.
        delay = Math.min(Math.max(delay * 2, 10), 1_000);
        this.#warn("accept", "SUTRA.HTTP.ACCEPT_FAILED", "accepting a connection failed", {
          error: error instanceof Error ? error.message : String(error),
          retryInMs: delay,
        });
        await new Promise<void>((resolve) => this.#backoff = setTimeout(resolve, delay));
        continue;
      }
      if (this.#open.size >= this.#o.limits.maxConnections) {
        this.#refuse(conn);
        continue;
      }
      const connection = new Connection(conn, this.#serve, this.#handler, this.#o);
      this.#open.add(connection);
      connection.finished.then(() => this.#open.delete(connection));
    }
  }

  #refuse(conn: Deno.Conn): void {
    const max = this.#o.limits.maxConnections;
    this.#warn(
      "limit",
      "SUTRA.HTTP.CONNECTION_LIMIT",
      `refusing connections: ${max} are open (sutra.http.max-connections)`,
      { maxConnections: max },
    );
    const answer = refusal(
      diagnostic(
        "SUTRA.HTTP.CONNECTION_LIMIT",
        `the engine holds its maximum of ${max} connections (sutra.http.max-connections); try again`,
        { attributes: { maxConnections: max } },
      ),
    );
    // A few hundred bytes fit the socket's send buffer; the close follows at once.
    conn.write(answer).catch(() => {}).finally(() => closeQuietly(conn));
  }

  #warn(kind: string, code: string, message: string, data: Record<string, unknown>): void {
    const now = Date.now();
    if (now - (this.#lastWarn.get(kind) ?? -Infinity) < WARN_EVERY_MS) return;
    this.#lastWarn.set(kind, now);
    this.#o.logger.warn(message, { code, ...data });
  }

  async shutdown(): Promise<void> {
    this.#stopAccepting();
    const open = [...this.#open];
    await Promise.all(open.map((c) => c.shutdown()));
    await Promise.all(open.map((c) => c.finished));
    clearInterval(this.#sweeper);
  }

  close(): void {
    this.#stopAccepting();
    clearInterval(this.#sweeper);
    for (const c of this.#open) c.close();
  }

  #stopAccepting(): void {
    if (this.#closing) return;
    this.#closing = true;
    clearTimeout(this.#backoff);
    closeQuietly(this.#listener);
    // Deno unlinks a socket's file only once its pending accept has unwound: a process exiting
    // right after would leave it behind.
    if ("path" in this.addr) {
      try {
        Deno.removeSync(this.addr.path);
      } catch {
        // Already gone.
      }
    }
  }
}

function closeQuietly(resource: { close(): void }): void {
  try {
    resource.close();
  } catch {
    // Already closed.
  }
}

/**
 * What the listener offers whoever reads a request's body (see
 * {@link servedBody}): the body timeout, and closing the connection after
 * the answer when the body was not read to its end.
 */
export interface ServedBody {
  /**
   * `read` (a read of this request's body), failing with a
   * {@link RequestBodyError} when the body does not arrive within
   * `sutra.http.body-timeout` or cannot be read to its end.
   */
  within<T>(read: Promise<T>): Promise<T>;
  /** Closes the connection once the answer is written: the rest of the body will never be read. */
  closeAfterAnswer(): void;
}

const servedBodies = new WeakMap<Request, ServedBody>();

/** What the listener offers the reader of `request`'s body; undefined for a request it did not serve. */
export function servedBody(request: Request): ServedBody | undefined {
  return servedBodies.get(request);
}

/** A body read in progress and when it runs out of time. */
interface BodyWatch {
  readonly deadline: number;
  expire(): void;
}

/** One connection, served natively, watched by the listener's sweep. */
class Connection {
  /** Settles once the connection is closed (never rejects). */
  readonly finished: Promise<void>;
  readonly #served: { readonly finished: Promise<void>; shutdown(): Promise<void> };
  readonly #abort = new AbortController();
  readonly #handler: HttpHandler;
  readonly #limits: HttpLimits;
  readonly #logger: Logger;
  readonly #bodies = new Set<BodyWatch>();
  #active = 0;
  /** When the connection, with no request in progress, is closed. */
  #idleDeadline: number;
  /** When a connection that must close (its answer queued) is closed. */
  #closeAt = Infinity;
  #over = false;

  constructor(conn: Deno.Conn, serve: ServeConnection, handler: HttpHandler, o: ConnectionOptions) {
    this.#handler = handler;
    this.#limits = o.limits;
    this.#logger = o.logger;
    this.#idleDeadline = Date.now() + Math.min(o.limits.idleTimeoutMs, o.limits.headerTimeoutMs);
    // A Unix socket has no Nagle delay to turn off.
    if ("setNoDelay" in conn) {
      try {
        (conn as Deno.TcpConn).setNoDelay(true);
      } catch {
        // The peer may already be gone.
      }
    }
    this.#served = serve(
      conn,
      this.#abort.signal,
      (request, info) => this.#exchange(request, info),
      (error) => this.#unexpected(error),
      () => {},
    );
    this.finished = this.#served.finished.then(
      () => this.#ended(),
      (error) => {
        this.#ended();
        this.#logger.debug("connection ended", { error: errorText(error) });
      },
    );
  }

  /** Acts on the deadlines passed at `now` (the listener's sweep). */
  expire(now: number): void {
    if (now >= this.#closeAt || (this.#active === 0 && now >= this.#idleDeadline)) {
      this.close();
      return;
    }
    for (const watch of this.#bodies) {
      if (now >= watch.deadline) {
        this.#bodies.delete(watch);
        watch.expire();
      }
    }
  }

  /** Closes the connection once the answer in progress (if any) is written. */
  shutdown(): Promise<void> {
    return this.#served.shutdown().catch(() => {});
  }

  close(): void {
    if (this.#closed) return;
    // Deno's own listener on the signal cancels the native connection. When the native server let
    // go of it a moment before (a client that broke off), that listener throws BadResource, and an
    // error thrown by an event listener is reported as uncaught, which ends the process: any
    // client could bring the engine down by timing its disconnects. Here it only means "gone".
    globalThis.addEventListener("error", gone);
    try {
      this.#abort.abort();
    } catch {
      // The native server let go of the connection as it was being closed.
    } finally {
      globalThis.removeEventListener("error", gone);
    }
  }

  /** Whether the connection is closed or being closed. */
  get #closed(): boolean {
    return this.#over || this.#abort.signal.aborted;
  }

  /** The native server let go of the connection: nothing left to close. */
  #ended(): void {
    this.#over = true;
    this.#bodies.clear();
  }

  async #exchange(request: Request, info: ServedRequest): Promise<Response> {
    this.#active++;
    let mustClose = false;
    try {
      if (headBytes(request) > this.#limits.maxHeaderBytes) {
        mustClose = true;
        return answer(431, headTooLarge(this.#limits.maxHeaderBytes));
      }
      servedBodies.set(request, {
        within: (read) => this.#within(read, () => mustClose = true),
        closeAfterAnswer: () => mustClose = true,
      });
      return await this.#handler(request);
    } catch (error) {
      mustClose = true;
      return this.#unexpected(error);
    } finally {
      if (--this.#active === 0) this.#idleDeadline = Date.now() + this.#limits.idleTimeoutMs;
      // The native server would wait for the rest of a body nobody reads: close once the answer is
      // out. `completed` settles when the answer is queued, not yet flushed: give it a moment.
      if (mustClose) info.completed.finally(() => this.#closeAt = Date.now() + FLUSH_MS);
    }
  }

  /** `read`, bounded by the body timeout; a failure becomes a {@link RequestBodyError}. */
  #within<T>(read: Promise<T>, mustClose: () => void): Promise<T> {
    const timeoutMs = this.#limits.bodyTimeoutMs;
    const expired = Promise.withResolvers<never>();
    const watch: BodyWatch = {
      deadline: Date.now() + timeoutMs,
      expire: () => expired.reject(bodyTimedOut(timeoutMs)),
    };
    this.#bodies.add(watch);
    // Cancelling the native body would drop the connection before the answer: the read is left
    // pending (it ends with the connection) and the race decides.
    read.catch(() => {});
    return Promise.race([read, expired.promise]).then(
      (value) => {
        this.#bodies.delete(watch);
        return value;
      },
      (error) => {
        this.#bodies.delete(watch);
        mustClose();
        throw error instanceof RequestBodyError ? error : unreadable(error);
      },
    );
  }

  #unexpected(error: unknown): Response {
    this.#logger.error("request failed unexpectedly", {
      code: "SUTRA.RUNTIME.UNEXPECTED",
      error: error instanceof Error ? error.stack ?? error.message : String(error),
    });
    return new Response(null, { status: 500 });
  }
}

// How long a connection that must close stays open after its answer is queued, for the flush.
const FLUSH_MS = 100;

/** The request line and headers' length as sent, give or take the line's separators. */
function headBytes(request: Request): number {
  const url = request.url;
  const target = url.length - url.indexOf("/", url.indexOf("//") + 2);
  let size = request.method.length + target + 11;
  for (const [name, value] of request.headers) size += name.length + value.length + 4;
  return size;
}

/** A body read that failed: the client went away, or sent a chunked body that breaks the framing. */
function unreadable(error: unknown): RequestBodyError {
  const reason = errorText(error);
  if (/invalid|chunk/i.test(reason)) {
    return new RequestBodyError(
      400,
      diagnostic(
        "SUTRA.HTTP.CHUNK_INVALID",
        `the request body breaks the chunked framing (${reason})`,
      ),
    );
  }
  return new RequestBodyError(
    400,
    diagnostic("SUTRA.HTTP.REQUEST_ABORTED", "the connection ended before the request body did"),
  );
}

function bodyTimedOut(ms: number): RequestBodyError {
  return new RequestBodyError(
    408,
    diagnostic(
      "SUTRA.HTTP.REQUEST_TIMEOUT",
      `the request's body did not arrive within ${ms} ms (sutra.http.body-timeout)`,
      { attributes: { timeoutMs: ms } },
    ),
  );
}

function headTooLarge(limit: number): Diagnostic {
  return diagnostic(
    "SUTRA.HTTP.HEADERS_TOO_LARGE",
    `the request line and headers are longer than ${limit} bytes (sutra.http.max-header-bytes)`,
    { attributes: { limitBytes: limit } },
  );
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** A JSON answer carrying one diagnostic. */
function answer(status: number, d: Diagnostic): Response {
  return new Response(JSON.stringify({ diagnostics: [d] }), {
    status,
    headers: { "content-type": "application/json" },
  });
}

/** The complete `connection: close` answer 503 with one diagnostic, as bytes for a raw socket. */
function refusal(d: Diagnostic): Uint8Array {
  const body = new TextEncoder().encode(JSON.stringify({ diagnostics: [d] }));
  const head = new TextEncoder().encode(
    "HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\n" +
      `content-length: ${body.length}\r\nretry-after: 1\r\n` +
      `date: ${new Date().toUTCString()}\r\nconnection: close\r\n\r\n`,
  );
  const bytes = new Uint8Array(head.length + body.length);
  bytes.set(head);
  bytes.set(body, head.length);
  return bytes;
}
