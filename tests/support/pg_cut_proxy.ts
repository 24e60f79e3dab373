/**
 * A TCP proxy in front of the tier-2 PostgreSQL server that reads the
 * frontend side of the wire protocol and can cut one connection exactly
 * around a COMMIT: just before the server gets it (the transaction aborts),
 * or just after the server answered it (the transaction committed, but the
 * client never hears so). This is the only way to make a commit in doubt
 * happen on purpose; a server-side kill cannot choose its moment that well.
 * It also remembers every statement text it forwarded, so a test can look
 * at what the engine actually sends.
 *
 * @module
 */

/** Where to cut: before COMMIT reaches the server, or after its answer left it. */
export type CutPoint = "before-commit" | "after-commit";

/** Options for {@link CutProxy.cutNext}. */
export interface CutOptions {
  /** Cut only a transaction that ran a statement containing this text (case-insensitive). */
  readonly ran?: string;
}

/** A running proxy. */
export interface CutProxy {
  /** The server URL with the proxy's host and port in place of the server's. */
  readonly url: string;
  /** Arms the next matching COMMIT on any connection to be cut at `point` (once). */
  cutNext(point: CutPoint, options?: CutOptions): void;
  /** Resolves once the armed cut has happened. */
  readonly cut: () => Promise<void>;
  /** Every distinct statement text forwarded so far (simple queries and parses), as sent. */
  readonly heard: ReadonlySet<string>;
  /** Stops accepting connections (new ones are refused); open ones keep working. */
  refuseNew(): void;
  /** Closes everything. */
  close(): Promise<void>;
}

interface Armed {
  readonly point: CutPoint;
  readonly ran?: string;
}

/** Starts a proxy in front of the server named by `serverUrl` (a postgres:// URL). */
export function startCutProxy(serverUrl: string): CutProxy {
  const target = new URL(serverUrl);
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const open = new Set<Deno.Conn>();
  let armed: Armed | undefined;
  let cutDone: () => void = () => {};
  let cutHappened = Promise.resolve();
  let accepting = true;
  const heard = new Set<string>();

  const accept = async () => {
    for await (const client of listener) {
      void relay(client).catch(() => {});
    }
  };

  async function relay(client: Deno.Conn): Promise<void> {
    const server = await Deno.connect({
      hostname: target.hostname,
      port: Number(target.port || 5432),
    });
    open.add(client);
    open.add(server);
    let dropReplies = false;
    const hangUp = () => {
      for (const c of [client, server]) {
        open.delete(c);
        try {
          c.close();
        } catch {
          // already closed
        }
      }
    };
    // Server to client: forwarded until a cut after COMMIT swallows the answer.
    const back = (async () => {
      for await (const chunk of server.readable) {
        if (dropReplies) {
          hangUp();
          cutDone();
          return;
        }
        await write(client, chunk);
      }
    })().catch(() => {});
    // Client to server: framed into messages, so a COMMIT can be recognised.
    const reader = new FrameReader();
    const statements = new Map<string, string>();
    let since: string[] = [];
    try {
      for await (const chunk of client.readable) {
        for (const message of reader.push(chunk)) {
          const sql = sqlOf(message, statements);
          if (sql !== undefined) {
            heard.add(sql);
            const text = sql.trim().toLowerCase();
            if (text === "begin") since = [];
            else if (text === "commit" && armed && matches(armed, since)) {
              const point = armed.point;
              armed = undefined;
              if (point === "before-commit") {
                hangUp();
                cutDone();
                return;
              }
              dropReplies = true;
            } else since.push(text);
          }
          await write(server, message.bytes);
        }
      }
    } catch {
      // The other side hung up.
    } finally {
      hangUp();
      await back;
    }
  }

  void accept().catch(() => {});
  const url = new URL(serverUrl);
  url.hostname = "127.0.0.1";
  url.port = String((listener.addr as Deno.NetAddr).port);
  return {
    url: url.toString(),
    cutNext(point, options = {}) {
      armed = { point, ...(options.ran ? { ran: options.ran.toLowerCase() } : {}) };
      cutHappened = new Promise((resolve) => cutDone = resolve);
    },
    cut: () => cutHappened,
    heard,
    refuseNew() {
      if (!accepting) return;
      accepting = false;
      listener.close();
    },
    async close() {
      this.refuseNew();
      for (const c of open) {
        try {
          c.close();
        } catch {
          // already closed
        }
      }
      open.clear();
      await new Promise((resolve) => setTimeout(resolve, 10));
    },
  };
}

function matches(armed: Armed, since: readonly string[]): boolean {
  return armed.ran === undefined || since.some((s) => s.includes(armed.ran!));
}

async function write(conn: Deno.Conn, bytes: Uint8Array): Promise<void> {
  let at = 0;
  while (at < bytes.length) at += await conn.write(bytes.subarray(at));
}

interface Message {
  /** The message type byte as a character; "" for the untyped startup message. */
  readonly type: string;
  readonly body: Uint8Array;
  readonly bytes: Uint8Array;
}

/** Splits the frontend byte stream into protocol messages. */
class FrameReader {
  #buffer = new Uint8Array(0);
  #started = false;

  push(chunk: Uint8Array): Message[] {
    const joined = new Uint8Array(this.#buffer.length + chunk.length);
    joined.set(this.#buffer);
    joined.set(chunk, this.#buffer.length);
    const messages: Message[] = [];
    let at = 0;
    for (;;) {
      const header = this.#started ? 5 : 4;
      if (joined.length - at < header) break;
      const view = new DataView(joined.buffer, joined.byteOffset + at);
      const length = this.#started ? view.getInt32(1) + 1 : view.getInt32(0);
      if (joined.length - at < length) break;
      const bytes = joined.slice(at, at + length);
      messages.push({
        type: this.#started ? String.fromCharCode(bytes[0]) : "",
        body: bytes.subarray(header),
        bytes,
      });
      this.#started = true;
      at += length;
    }
    this.#buffer = joined.slice(at);
    return messages;
  }
}

const decoder = new TextDecoder();

/** The SQL a message runs: a simple query, a parse, or a bind of a statement parsed earlier. */
function sqlOf(message: Message, statements: Map<string, string>): string | undefined {
  const strings = () => decoder.decode(message.body).split("\0");
  switch (message.type) {
    case "Q":
      return strings()[0];
    case "P": {
      const [name, sql] = strings();
      statements.set(name, sql);
      return name === "" ? sql : undefined;
    }
    case "B": {
      const [, name] = strings();
      return name === "" ? undefined : statements.get(name);
    }
    default:
      return undefined;
  }
}
