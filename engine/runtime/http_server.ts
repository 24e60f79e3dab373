/**
 * The engine's HTTP/1.1 listener: its own accept loop over `Deno.listen`
 * and a small HTTP/1.1 exchange per connection, so the engine decides how
 * many connections it holds and how long a client may take. `Deno.serve`
 * (Deno 2.9) offers neither a connection cap nor header, body or idle
 * timeouts, and its listener stops for good (the process with it) when an
 * accept fails for want of file descriptors.
 *
 * - At most `maxConnections` connections are open; one more is answered
 *   503 `SUTRA.HTTP.CONNECTION_LIMIT` and closed at once.
 * - A failed accept (`EMFILE`: the process is out of file descriptors) is
 *   logged and retried with a short backoff; the listener never stops.
 * - A connection waiting for a request is closed after `idleTimeoutMs`; a
 *   request head must be complete `headerTimeoutMs` after its first byte
 *   and its body `bodyTimeoutMs` after the handler first reads it, else 408.
 * - A head over `maxHeaderBytes` is 431, a chunk-size line over
 *   {@link MAX_CHUNK_LINE_BYTES} 400, each with a `SUTRA.HTTP.*` diagnostic.
 *
 * The listener is a TCP `hostname:port` ({@link serveHttp}) or a Unix domain
 * socket ({@link serveHttpSocket}): a build without network access still
 * serves its health and admin routes to processes on the same host.
 *
 * A body arrives as a stream the handler reads (and may stop reading: the
 * connection then closes after the answer). When it cannot be read to its
 * end the stream errors with a {@link RequestBodyError}.
 *
 * @module
 */
import { type Diagnostic, diagnostic, DiagnosticError } from "../core/diagnostic.ts";
import type { Logger } from "../core/log.ts";

/** The longest chunk-size line (size, extensions, CRLF) a chunked body may carry. */
export const MAX_CHUNK_LINE_BYTES = 4096;

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

/** Listens on `hostname:port` and answers every request with `handler`; throws when it cannot listen. */
export function serveHttp(handler: HttpHandler, options: HttpServerOptions): HttpServer {
  const listener = Deno.listen({ hostname: options.hostname, port: options.port });
  return new Listener(listener, handler, options);
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
  const { path } = options;
  await removeStaleSocket(path);
  const listener = Deno.listen({ transport: "unix", path });
  return new Listener(listener, handler, options);
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

const ENCODER = new TextEncoder();
const EMPTY = new Uint8Array(0);
const READ_BYTES = 16_384;
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const REASONS: Readonly<Record<number, string>> = {
  100: "Continue",
  200: "OK",
  201: "Created",
  202: "Accepted",
  204: "No Content",
  304: "Not Modified",
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  405: "Method Not Allowed",
  408: "Request Timeout",
  409: "Conflict",
  413: "Content Too Large",
  422: "Unprocessable Content",
  429: "Too Many Requests",
  431: "Request Header Fields Too Large",
  500: "Internal Server Error",
  501: "Not Implemented",
  503: "Service Unavailable",
  505: "HTTP Version Not Supported",
};

// Logs about the listener itself at most this often, so a flood costs no log storm.
const WARN_EVERY_MS = 10_000;

/** What a connection needs of the listener's options. */
type ConnectionOptions = Pick<HttpServerOptions, "limits" | "logger">;

class Listener implements HttpServer {
  readonly addr: Deno.NetAddr | Deno.UnixAddr;
  readonly #listener: Deno.Listener;
  readonly #handler: HttpHandler;
  readonly #o: ConnectionOptions;
  readonly #open = new Set<Connection>();
  readonly #authority: string;
  #closing = false;
  #drained?: () => void;
  #backoff?: ReturnType<typeof setTimeout>;
  #lastWarn = new Map<string, number>();

  constructor(listener: Deno.Listener, handler: HttpHandler, o: ConnectionOptions) {
    this.#listener = listener;
    this.#handler = handler;
    this.#o = o;
    this.addr = listener.addr as Deno.NetAddr | Deno.UnixAddr;
    this.#authority = authorityOf(this.addr);
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
      const connection = new Connection(conn, this.#handler, this.#o, this.#authority);
      this.#open.add(connection);
      connection.run().finally(() => {
        this.#open.delete(connection);
        if (this.#open.size === 0) this.#drained?.();
      });
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
    const answer = errorAnswer(
      503,
      diagnostic(
        "SUTRA.HTTP.CONNECTION_LIMIT",
        `the engine holds its maximum of ${max} connections (sutra.http.max-connections); try again`,
        { attributes: { maxConnections: max } },
      ),
      { "retry-after": "1" },
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
    if (this.#open.size === 0) return;
    const drained = new Promise<void>((resolve) => this.#drained = resolve);
    for (const c of this.#open) c.shutdown();
    await drained;
  }

  close(): void {
    this.#stopAccepting();
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

/** The authority request URLs carry; a socket has none, so they read as addressed to localhost, as curl sends them. */
function authorityOf(addr: Deno.NetAddr | Deno.UnixAddr): string {
  if (!("port" in addr)) return "localhost";
  return `${addr.hostname.includes(":") ? `[${addr.hostname}]` : addr.hostname}:${addr.port}`;
}

function closeQuietly(resource: { close(): void }): void {
  try {
    resource.close();
  } catch {
    // Already closed.
  }
}

/** A parsed request head. */
interface Head {
  readonly method: string;
  readonly target: string;
  readonly headers: Headers;
  readonly keepAlive: boolean;
  readonly length: number | "chunked";
}

/** A request refused before its handler ran. */
interface Refusal {
  readonly status: number;
  readonly diagnostic: Diagnostic;
}

type Phase = "idle" | "head" | "body" | "handler" | "answering";

/** One connection: requests in order, one at a time. */
class Connection {
  readonly #conn: Deno.Conn;
  readonly #handler: HttpHandler;
  readonly #limits: HttpLimits;
  readonly #logger: Logger;
  readonly #authority: string;
  #buf: Uint8Array<ArrayBuffer> = new Uint8Array(READ_BYTES);
  #start = 0;
  #end = 0;
  #phase: Phase = "idle";
  #timer?: ReturnType<typeof setTimeout>;
  #closed = false;
  #draining = false;
  #timedOut = false;

  constructor(conn: Deno.Conn, handler: HttpHandler, o: ConnectionOptions, authority: string) {
    this.#conn = conn;
    this.#handler = handler;
    this.#limits = o.limits;
    this.#logger = o.logger;
    this.#authority = authority;
    // A Unix socket has no Nagle delay to turn off.
    if ("setNoDelay" in conn) {
      try {
        (conn as Deno.TcpConn).setNoDelay(true);
      } catch {
        // The peer may already be gone.
      }
    }
  }

  async run(): Promise<void> {
    try {
      while (!this.#closed && !this.#draining) {
        const head = await this.#readHead();
        if (head === undefined) return;
        if ("status" in head) {
          await this.#write(errorAnswer(head.status, head.diagnostic));
          return;
        }
        if (!await this.#exchange(head)) return;
      }
    } catch (error) {
      // A read or write on a connection the peer or a timeout closed.
      if (!this.#closed) {
        this.#logger.debug("connection ended", {
          error: error instanceof Error ? error.message : String(error),
        });
      }
    } finally {
      this.close();
    }
  }

  /** Closes the connection if it is between requests; else after the answer in progress. */
  shutdown(): void {
    this.#draining = true;
    if (this.#phase === "idle" && this.#start === this.#end) this.close();
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    clearTimeout(this.#timer);
    closeQuietly(this.#conn);
  }

  #arm(ms: number): void {
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => this.#expire(), ms);
  }

  #disarm(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #expire(): void {
    this.#timedOut = true;
    if (this.#phase === "head" || this.#phase === "body") {
      const which = this.#phase === "head" ? "header" : "body";
      const ms = which === "header" ? this.#limits.headerTimeoutMs : this.#limits.bodyTimeoutMs;
      const answer = errorAnswer(
        408,
        diagnostic(
          "SUTRA.HTTP.REQUEST_TIMEOUT",
          `the request's ${
            which === "header" ? "head" : "body"
          } did not arrive within ${ms} ms (sutra.http.${which}-timeout)`,
          { attributes: { timeoutMs: ms } },
        ),
      );
      this.#phase = "answering";
      this.#conn.write(answer).catch(() => {}).finally(() => this.close());
      return;
    }
    this.close();
  }

  /** Reads more bytes after `#end`; false at end of stream. */
  async #fill(): Promise<boolean> {
    if (this.#start > 0 && this.#start === this.#end) this.#start = this.#end = 0;
    if (this.#end === this.#buf.length) {
      if (this.#start > 0) {
        this.#buf.copyWithin(0, this.#start, this.#end);
        this.#end -= this.#start;
        this.#start = 0;
      } else {
        const bigger = new Uint8Array(this.#buf.length * 2);
        bigger.set(this.#buf);
        this.#buf = bigger;
      }
    }
    const n = await this.#conn.read(this.#buf.subarray(this.#end));
    if (n === null) return false;
    this.#end += n;
    return true;
  }

  async #readHead(): Promise<Head | Refusal | undefined> {
    this.#phase = "idle";
    this.#arm(this.#limits.idleTimeoutMs);
    // Bytes after #start already searched (an offset: a fill may move the buffer).
    let searched = 0;
    for (;;) {
      // Empty lines before a request line are allowed (RFC 9112 §2.2).
      while (this.#end - this.#start >= 2 && this.#buf[this.#start] === 13) {
        if (this.#buf[this.#start + 1] !== 10) break;
        this.#start += 2;
        searched = 0;
      }
      if (this.#phase === "idle" && this.#end > this.#start) {
        this.#phase = "head";
        this.#arm(this.#limits.headerTimeoutMs);
      }
      const at = findHeadEnd(this.#buf, this.#start + searched, this.#end);
      if (at >= 0 && at - this.#start > this.#limits.maxHeaderBytes) {
        this.#disarm();
        return headTooLarge(this.#limits.maxHeaderBytes);
      }
      if (at >= 0) {
        const bytes = this.#buf.subarray(this.#start, at);
        this.#start = at + 4;
        this.#disarm();
        return parseHead(bytes);
      }
      if (this.#end - this.#start > this.#limits.maxHeaderBytes) {
        this.#disarm();
        return headTooLarge(this.#limits.maxHeaderBytes);
      }
      searched = Math.max(0, this.#end - this.#start - 3);
      if (!await this.#fill()) return undefined;
    }
  }

  /** Runs one request; true when the connection may carry another. */
  async #exchange(head: Head): Promise<boolean> {
    let url: string;
    if (head.target.startsWith("/")) url = `http://${this.#authority}${head.target}`;
    else if (/^https?:\/\//i.test(head.target)) url = head.target;
    else return this.#refuse(400, "SUTRA.HTTP.REQUEST_INVALID", "the request target is not a path");
    const bodied = head.length === "chunked" || head.length > 0;
    if (bodied && (head.method === "GET" || head.method === "HEAD")) {
      return this.#refuse(400, "SUTRA.HTTP.REQUEST_INVALID", `a ${head.method} carries no body`);
    }
    const body = new Body(this, head);
    let request: Request;
    try {
      request = new Request(url, {
        method: head.method,
        headers: head.headers,
        ...(bodied ? { body: body.source(), duplex: "half" } : {}),
      });
    } catch {
      return this.#refuse(400, "SUTRA.HTTP.REQUEST_INVALID", "the request target is not a URL");
    }
    this.#phase = "handler";
    let response: Response;
    try {
      response = await this.#handler(request);
    } catch (error) {
      this.#logger.error("request failed unexpectedly", {
        code: "SUTRA.RUNTIME.UNEXPECTED",
        error: error instanceof Error ? error.stack ?? error.message : String(error),
      });
      response = new Response(null, { status: 500 });
    }
    this.#disarm();
    if (this.#closed || this.#timedOut) return false;
    // A body left unread would be taken for the next request: close instead.
    const reusable = head.keepAlive && !this.#draining && (!bodied || body.done);
    this.#phase = "answering";
    await this.#write(await serialize(response, head.method, reusable));
    return reusable;
  }

  async #refuse(status: number, code: string, message: string): Promise<false> {
    await this.#write(errorAnswer(status, diagnostic(code, message)));
    return false;
  }

  async #write(bytes: Uint8Array): Promise<void> {
    let at = 0;
    while (at < bytes.length && !this.#closed) at += await this.#conn.write(bytes.subarray(at));
  }

  // ----------------------------------------------------------- body reading

  /** Starts the body phase (its timeout) when a handler first reads. */
  beginBody(expectContinue: boolean): Promise<void> {
    if (this.#phase !== "handler") return Promise.resolve();
    this.#phase = "body";
    this.#arm(this.#limits.bodyTimeoutMs);
    return expectContinue ? this.#write(CONTINUE) : Promise.resolve();
  }

  /** Ends the body phase. */
  endBody(): void {
    if (this.#phase !== "body") return;
    this.#phase = "handler";
    this.#disarm();
  }

  /** Up to `max` body bytes: buffered ones first; an empty array at end of stream. */
  async take(max: number): Promise<Uint8Array> {
    if (this.#start === this.#end && !await this.#fill()) return EMPTY;
    const n = Math.min(max, this.#end - this.#start);
    const bytes = this.#buf.slice(this.#start, this.#start + n);
    this.#start += n;
    return bytes;
  }

  /** One CRLF-terminated line of at most `limit` bytes (CRLF included), without its CRLF. */
  async line(limit: number): Promise<Uint8Array | "too-long" | "eof"> {
    let searched = 0;
    for (;;) {
      const end = Math.min(this.#end, this.#start + limit);
      for (let i = this.#start + searched; i < end - 1; i++) {
        if (this.#buf[i] === 13 && this.#buf[i + 1] === 10) {
          const line = this.#buf.subarray(this.#start, i);
          this.#start = i + 2;
          return line;
        }
      }
      if (this.#end - this.#start >= limit) return "too-long";
      searched = Math.max(0, this.#end - this.#start - 1);
      if (!await this.#fill()) return "eof";
    }
  }

  /** Whether the whole body of `length` bytes is already buffered. */
  buffered(length: number): Uint8Array<ArrayBuffer> | undefined {
    if (this.#end - this.#start < length) return undefined;
    const bytes = this.#buf.slice(this.#start, this.#start + length);
    this.#start += length;
    return bytes;
  }
}

const CONTINUE = ENCODER.encode("HTTP/1.1 100 Continue\r\n\r\n");

/** A request body read from its connection as the handler pulls it. */
class Body {
  readonly #c: Connection;
  readonly #head: Head;
  done = false;

  constructor(connection: Connection, head: Head) {
    this.#c = connection;
    this.#head = head;
  }

  /** What the Request is built with: the bytes when they are all here, else a stream. */
  source(): Uint8Array<ArrayBuffer> | ReadableStream<Uint8Array> {
    const expectContinue = /100-continue/i.test(this.#head.headers.get("expect") ?? "");
    if (typeof this.#head.length === "number" && !expectContinue) {
      const all = this.#c.buffered(this.#head.length);
      if (all) {
        this.done = true;
        return all;
      }
    }
    let started = false;
    let remaining = typeof this.#head.length === "number" ? this.#head.length : 0;
    const chunked = this.#head.length === "chunked";
    return new ReadableStream<Uint8Array>({
      pull: async (controller) => {
        if (!started) {
          started = true;
          await this.#c.beginBody(expectContinue);
        }
        try {
          if (chunked && remaining === 0) {
            const size = await this.#chunkSize();
            if (size === 0) {
              await this.#trailers();
              return this.#finish(controller);
            }
            remaining = size;
          }
          const bytes = await this.#c.take(Math.min(remaining, 65_536));
          if (bytes.length === 0) throw aborted();
          remaining -= bytes.length;
          controller.enqueue(bytes);
          if (remaining > 0) return;
          if (!chunked) return this.#finish(controller);
          if ((await this.#c.line(2)) instanceof Uint8Array) return;
          throw framing("a chunk's data is not followed by CRLF");
        } catch (error) {
          controller.error(
            error instanceof RequestBodyError ? error : aborted(),
          );
        }
      },
      // The handler stopped reading (a cap): the connection closes after its answer.
      cancel: () => this.#c.endBody(),
    }, { highWaterMark: 0 });
  }

  #finish(controller: ReadableStreamDefaultController<Uint8Array>): void {
    this.done = true;
    this.#c.endBody();
    controller.close();
  }

  async #chunkSize(): Promise<number> {
    const line = await this.#c.line(MAX_CHUNK_LINE_BYTES);
    if (line === "eof") throw aborted();
    if (line === "too-long") {
      throw new RequestBodyError(
        400,
        diagnostic(
          "SUTRA.HTTP.CHUNK_INVALID",
          `a chunk-size line (size and extensions) is longer than ${MAX_CHUNK_LINE_BYTES} bytes`,
          { attributes: { limitBytes: MAX_CHUNK_LINE_BYTES } },
        ),
      );
    }
    const text = latin1(line);
    const semicolon = text.indexOf(";");
    const hex = (semicolon < 0 ? text : text.slice(0, semicolon)).trim();
    if (!/^[0-9A-Fa-f]{1,12}$/.test(hex)) throw framing("a chunk size is not a hexadecimal number");
    return parseInt(hex, 16);
  }

  async #trailers(): Promise<void> {
    let total = 0;
    for (;;) {
      const line = await this.#c.line(MAX_CHUNK_LINE_BYTES);
      if (line === "eof") throw aborted();
      if (line === "too-long") throw framing("a trailer line is too long");
      if (line.length === 0) return;
      total += line.length;
      if (total > MAX_CHUNK_LINE_BYTES) throw framing("the trailers are too long");
    }
  }
}

function aborted(): RequestBodyError {
  return new RequestBodyError(
    400,
    diagnostic("SUTRA.HTTP.REQUEST_ABORTED", "the connection ended before the request body did"),
  );
}

function framing(message: string): RequestBodyError {
  return new RequestBodyError(400, diagnostic("SUTRA.HTTP.CHUNK_INVALID", message));
}

function findHeadEnd(buf: Uint8Array, from: number, to: number): number {
  for (let i = buf.indexOf(13, from); i >= 0 && i + 3 < to; i = buf.indexOf(13, i + 1)) {
    if (buf[i + 1] === 10 && buf[i + 2] === 13 && buf[i + 3] === 10) return i;
  }
  return -1;
}

function latin1(bytes: Uint8Array): string {
  let text = "";
  for (let i = 0; i < bytes.length; i += 8_192) {
    text += String.fromCharCode(...bytes.subarray(i, i + 8_192));
  }
  return text;
}

function invalid(message: string): Refusal {
  return { status: 400, diagnostic: diagnostic("SUTRA.HTTP.REQUEST_INVALID", message) };
}

function headTooLarge(limit: number): Refusal {
  return {
    status: 431,
    diagnostic: diagnostic(
      "SUTRA.HTTP.HEADERS_TOO_LARGE",
      `the request line and headers are longer than ${limit} bytes (sutra.http.max-header-bytes)`,
      { attributes: { limitBytes: limit } },
    ),
  };
}

function parseHead(bytes: Uint8Array): Head | Refusal {
  const lines = latin1(bytes).split("\r\n");
  const [method, target, version, extra] = lines[0].split(" ");
  if (extra !== undefined || !method || !target || !version || !TOKEN.test(method)) {
    return invalid("the request line is not METHOD TARGET HTTP-VERSION");
  }
  if (version !== "HTTP/1.1" && version !== "HTTP/1.0") {
    return {
      status: 505,
      diagnostic: diagnostic(
        "SUTRA.HTTP.VERSION_UNSUPPORTED",
        `${version} is not served here; use HTTP/1.1`,
      ),
    };
  }
  const headers = new Headers();
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i];
    const colon = line.indexOf(":");
    const name = colon > 0 ? line.slice(0, colon) : "";
    if (!TOKEN.test(name)) return invalid(`header line ${i} is not NAME: VALUE`);
    try {
      headers.append(name, line.slice(colon + 1).trim());
    } catch {
      return invalid(`header ${name} has a value HTTP does not allow`);
    }
  }
  const connection = headers.get("connection")?.toLowerCase() ?? "";
  const keepAlive = version === "HTTP/1.1"
    ? !connection.includes("close")
    : connection.includes("keep-alive");
  const te = headers.get("transfer-encoding");
  const cl = headers.get("content-length");
  if (te !== null) {
    if (cl !== null) return invalid("a request has both Transfer-Encoding and Content-Length");
    if (te.trim().toLowerCase() !== "chunked") {
      return {
        status: 501,
        diagnostic: diagnostic(
          "SUTRA.HTTP.REQUEST_INVALID",
          `transfer coding '${te}' is not supported; send chunked or a Content-Length`,
        ),
      };
    }
    return { method, target, headers, keepAlive, length: "chunked" };
  }
  if (cl === null) return { method, target, headers, keepAlive, length: 0 };
  const values = new Set(cl.split(",").map((v) => v.trim()));
  const [only] = values;
  if (values.size !== 1 || !/^\d{1,15}$/.test(only)) {
    return invalid("Content-Length is not one decimal number");
  }
  return { method, target, headers, keepAlive, length: Number(only) };
}

let dateSecond = 0;
let dateText = "";

function httpDate(): string {
  const now = Date.now();
  const second = Math.floor(now / 1000);
  if (second !== dateSecond) {
    dateSecond = second;
    dateText = new Date(now).toUTCString();
  }
  return dateText;
}

/** A response as bytes: status line, headers, and (but for HEAD, 1xx, 204, 304) its body. */
async function serialize(response: Response, method: string, keepAlive: boolean) {
  const status = response.status;
  const bodiless = status < 200 || status === 204 || status === 304;
  let body = EMPTY;
  if (bodiless) await response.body?.cancel();
  else if (response.body) body = await response.bytes();
  let head = `HTTP/1.1 ${status} ${response.statusText || REASONS[status] || "Status"}\r\n`;
  response.headers.forEach((value, name) => {
    if (name !== "content-length" && name !== "connection" && name !== "transfer-encoding") {
      head += `${name}: ${value}\r\n`;
    }
  });
  if (!bodiless) head += `content-length: ${body.length}\r\n`;
  // A HEAD answer announces the length of the body GET would carry, and carries none.
  if (method === "HEAD") body = EMPTY;
  head += `date: ${httpDate()}\r\n${keepAlive ? "" : "connection: close\r\n"}\r\n`;
  const headBytes = /[^\p{ASCII}]/u.test(head)
    ? Uint8Array.from(head, (c) => c.charCodeAt(0))
    : ENCODER.encode(head);
  if (body.length === 0) return headBytes;
  const bytes = new Uint8Array(headBytes.length + body.length);
  bytes.set(headBytes);
  bytes.set(body, headBytes.length);
  return bytes;
}

/** A complete `connection: close` answer carrying one diagnostic. */
function errorAnswer(
  status: number,
  d: Diagnostic,
  headers: Record<string, string> = {},
): Uint8Array {
  const body = ENCODER.encode(JSON.stringify({ diagnostics: [d] }));
  let head = `HTTP/1.1 ${status} ${REASONS[status] ?? "Error"}\r\n` +
    `content-type: application/json\r\ncontent-length: ${body.length}\r\n`;
  for (const [name, value] of Object.entries(headers)) head += `${name}: ${value}\r\n`;
  head += `date: ${httpDate()}\r\nconnection: close\r\n\r\n`;
  const bytes = new Uint8Array(head.length + body.length);
  bytes.set(ENCODER.encode(head));
  bytes.set(body, head.length);
  return bytes;
}
