/**
 * The Pub/Sub test double in a process of its own, for the tests that stop
 * it and start it again. Stopping a gRPC server drops its HTTP/2 sessions,
 * and with those sessions' clients in the same process Deno's `node:http2`
 * can bring the whole process down (an nghttp2 assertion, or a segfault);
 * a server in another process goes away as a real one does, and the test
 * process only ever holds the client side.
 *
 * ```ts
 * const double = await PubSubDoubleProcess.start();
 * await double.stop();    // every connection dropped, the state kept
 * await double.restart(); // on the same port
 * await double.close();
 * ```
 *
 * Run as a script it is that process: it prints the bound port, then
 * answers `stop` and `start` lines on stdin with `stopped` and `started`.
 *
 * @module
 */
import { PubSubGrpcServer } from "./server.ts";

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
    const child = new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "-A",
        "-q",
        "--config",
        new URL("../../../deno.json", import.meta.url).pathname,
        import.meta.filename!,
      ],
      env: { DENO_NO_UPDATE_CHECK: "1", NO_COLOR: "1" },
      stdin: "piped",
      stdout: "piped",
      stderr: "inherit",
    }).spawn();
    const lines = child.stdout.pipeThrough(new TextDecoderStream()).pipeThrough(splitLines())
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

function splitLines(): TransformStream<string, string> {
  let buffer = "";
  return new TransformStream({
    transform(chunk, controller) {
      buffer += chunk;
      const parts = buffer.split("\n");
      buffer = parts.pop()!;
      for (const line of parts) controller.enqueue(line);
    },
  });
}

if (import.meta.main) {
  const server = new PubSubGrpcServer();
  const port = await server.start();
  console.log(port);
  const commands = Deno.stdin.readable.pipeThrough(new TextDecoderStream()).pipeThrough(
    splitLines(),
  );
  for await (const command of commands) {
    if (command === "stop") {
      await server.stop();
      console.log("stopped");
    } else if (command === "start") {
      await server.start(port);
      console.log("started");
    }
  }
  await server.stop();
}
