/**
 * The Pub/Sub test double in a process of its own, for the tests that stop
 * it and start it again. Deno 2.9's `node:http2` can bring a whole process
 * down (an nghttp2 assertion in `find_stream_on_goaway_func`, or a
 * segfault) when a gRPC server shuts its HTTP/2 sessions down: in the
 * server's process, and now and then in the client's on the GOAWAY. So the
 * double runs elsewhere, and an outage is its relay dropping the
 * connections (see `Relay`), not the server shutting down.
 *
 * ```ts
 * const double = await PubSubDoubleProcess.start();
 * await double.stop();    // every connection dropped, the state kept
 * await double.restart(); // on the same port
 * await double.close();
 * ```
 *
 * Run as a script it is that process: it prints the public port, then
 * answers `stop` and `start` lines on stdin with `stopped` and `started`.
 *
 * @module
 */
import { PubSubGrpcServer } from "./server.ts";
import { startScript, textLines } from "../script_process.ts";

/** A running double process, driven over its stdin. */
export class PubSubDoubleProcess {
  readonly #child: Deno.ChildProcess;
  readonly #lines: AsyncIterator<string>;
  readonly #writer: WritableStreamDefaultWriter<Uint8Array>;
  /** The port it listens on, on 127.0.0.1. */
  readonly port: number;

  private constructor(child: Deno.ChildProcess, lines: AsyncIterator<string>, port: number) {
    this.#child = child;
    this.#lines = lines;
    this.#writer = child.stdin.getWriter();
    this.port = port;
  }

  /** Starts the process and waits for its port. */
  static async start(): Promise<PubSubDoubleProcess> {
    const child = startScript(import.meta.filename!);
    const lines = child.stdout.pipeThrough(new TextDecoderStream()).pipeThrough(textLines())
      [Symbol.asyncIterator]();
    const first = await lines.next();
    if (first.done) throw new Error("the Pub/Sub double process exited before it listened");
    return new PubSubDoubleProcess(child, lines, Number(first.value));
  }

  /** Drops every connection and stops listening (the topics and messages stay). */
  stop(): Promise<void> {
    return this.#ask("stop", "stopped");
  }

  /** Listens again on the same port. */
  restart(): Promise<void> {
    return this.#ask("start", "started");
  }

  /** Ends the process. */
  async close(): Promise<void> {
    await this.#writer.close().catch(() => {});
    await this.#child.status;
    await this.#lines.return?.();
  }

  async #ask(command: string, answer: string): Promise<void> {
    await this.#writer.write(new TextEncoder().encode(`${command}\n`));
    const line = await this.#lines.next();
    if (line.done || line.value !== answer) {
      throw new Error(`the Pub/Sub double process did not answer '${command}'`);
    }
  }
}

/**
 * The double behind a TCP relay on the public port: stopping closes the
 * relay's listener and every connection through it, so clients see their
 * connections end as when a server's host goes away — without the HTTP/2
 * GOAWAY a shutting-down gRPC server sends, which Deno's `node:http2` can
 * also fail an assertion on in the client's process — while the server,
 * and its state, stay up behind it.
 */
class Relay {
  readonly #conns = new Set<Deno.Conn>();
  #listener: Deno.Listener | undefined;
  port = 0;

  constructor(readonly upstream: number) {}

  listen(): void {
    this.#listener = Deno.listen({ hostname: "127.0.0.1", port: this.port });
    this.port = (this.#listener.addr as Deno.NetAddr).port;
    void this.#accept(this.#listener);
  }

  close(): void {
    this.#listener?.close();
    this.#listener = undefined;
    for (const conn of this.#conns) conn.close();
    this.#conns.clear();
  }

  async #accept(listener: Deno.Listener): Promise<void> {
    try {
      for await (const client of listener) void this.#pipe(client);
    } catch {
      // closed
    }
  }

  async #pipe(client: Deno.Conn): Promise<void> {
    this.#conns.add(client);
    let server: Deno.Conn | undefined;
    try {
      server = await Deno.connect({ hostname: "127.0.0.1", port: this.upstream });
      this.#conns.add(server);
      await Promise.race([
        client.readable.pipeTo(server.writable, { preventClose: true }),
        server.readable.pipeTo(client.writable, { preventClose: true }),
      ]);
    } catch {
      // either side went away
    } finally {
      for (const conn of [client, server]) {
        if (conn && this.#conns.delete(conn)) {
          try {
            conn.close();
          } catch {
            // already closed
          }
        }
      }
    }
  }
}

if (import.meta.main) {
  const server = new PubSubGrpcServer();
  const relay = new Relay(await server.start());
  relay.listen();
  console.log(relay.port);
  const commands = Deno.stdin.readable.pipeThrough(new TextDecoderStream()).pipeThrough(
    textLines(),
  );
  for await (const command of commands) {
    if (command === "stop") {
      relay.close();
      console.log("stopped");
    } else if (command === "start") {
      relay.listen();
      console.log("started");
    }
  }
  relay.close();
  await server.stop();
}
