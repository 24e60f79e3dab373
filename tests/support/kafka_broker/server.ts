/**
 * The test broker's TCP side: a listener on 127.0.0.1 (plain or TLS), one reader per
 * connection splitting the byte stream into requests, and the dispatch to
 * the handler of each API key. Answers may leave in another order than
 * the requests came (a held fetch does not block a heartbeat on the same
 * connection); clients match them by correlation id. A request the broker
 * cannot serve, or one before the SASL login on a broker that asks for
 * one, drops its connection, as Kafka does; with
 * `SUTRA_TEST_KAFKA_BROKER_DEBUG` set the reason is printed to stderr.
 *
 * @module
 */
import { APIS, type BrokerState, type RequestHeader } from "./handlers.ts";
import { BEFORE_LOGIN, type SaslConnection } from "./sasl.ts";
import { frame, frames, Reader, Writer } from "./wire.ts";

/** A listening socket and its open connections. */
export class Listener {
  readonly #listener: Deno.Listener;
  readonly #connections = new Set<Deno.Conn>();
  readonly #served: Promise<void>;
  readonly #tasks = new Set<Promise<void>>();

  constructor(listener: Deno.Listener, state: () => BrokerState) {
    this.#listener = listener;
    this.#served = this.#accept(state);
  }

  /** Closes the listener and every connection; resolves when their readers have ended. */
  async close(): Promise<void> {
    try {
      this.#listener.close();
    } catch {
      // already closed
    }
    for (const c of this.#connections) {
      try {
        c.close();
      } catch {
        // already closed
      }
    }
    await this.#served;
    await Promise.allSettled([...this.#tasks]);
  }

  async #accept(state: () => BrokerState): Promise<void> {
    try {
      for await (const conn of this.#listener) {
        this.#connections.add(conn);
        const task = this.#serve(conn, state()).finally(() => {
          this.#connections.delete(conn);
          this.#tasks.delete(task);
        });
        this.#tasks.add(task);
      }
    } catch {
      // the listener was closed
    }
  }

  async #serve(conn: Deno.Conn, s: BrokerState): Promise<void> {
    const writer = conn.writable.getWriter();
    let writing: Promise<void> = Promise.resolve();
    const pending = new Set<Promise<void>>();
    const send = (bytes: Uint8Array) => {
      writing = writing.then(() => writer.write(bytes)).catch(() => {});
    };
    const login: SaslConnection = { authenticated: s.users === undefined, closeAfterReply: false };
    try {
      for await (const payload of frames(conn.readable)) {
        const r = new Reader(payload);
        const header: RequestHeader = {
          apiKey: r.int16(),
          apiVersion: r.int16(),
          correlationId: r.int32(),
          clientId: r.string() ?? "",
        };
        const api = APIS.get(header.apiKey);
        // ApiVersions answers any version (it is how a client learns what is served).
        if (!api || (header.apiKey !== 18 && header.apiVersion !== api.version)) {
          throw new Error(`unsupported API ${header.apiKey} v${header.apiVersion}`);
        }
        if (!login.authenticated && !BEFORE_LOGIN.has(header.apiKey)) {
          throw new Error(`API ${header.apiKey} before the SASL login`);
        }
        const work = Promise.resolve(api.handle(r, s, header, login)).then((body) => {
          if (body !== null) send(frame(new Writer().int32(header.correlationId).raw(body).bytes));
          // A refused login is answered, then the connection goes.
          if (login.closeAfterReply) writing = writing.then(() => closeQuietly(conn));
        });
        pending.add(work);
        void work.catch(() => {}).finally(() => pending.delete(work));
      }
    } catch (error) {
      // A connection reset, or a request this broker does not speak: drop the connection.
      if (Deno.env.get("SUTRA_TEST_KAFKA_BROKER_DEBUG")) console.error("kafka test broker:", error);
    } finally {
      await Promise.allSettled([...pending]);
      await writing;
      closeQuietly(conn);
    }
  }
}

function closeQuietly(conn: Deno.Conn): void {
  try {
    conn.close();
  } catch {
    // already closed
  }
}
