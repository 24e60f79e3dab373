/**
 * One AMQP 1.0 connection through `rhea`, wrapped in promises: it opens or
 * fails once, says when it is gone, and sends with settlement (the answer
 * is the peer's disposition). rhea's own reconnect is off: the consumer's
 * loop (`keepConnected`) and the sink's pool decide when to dial again, so
 * a delivery is never settled on a connection other than the one that
 * carried it.
 *
 * @module
 */
import rhea from "rhea";
import type {
  AmqpError,
  Connection,
  ConnectionOptions,
  Delivery,
  EventContext,
  Message,
  Receiver,
  ReceiverOptions,
  Sender,
} from "rhea";
import { errorMessage } from "../../../engine/core/errors.ts";

/**
 * Terminus durability `unsettled-state`. RabbitMQ 3.10 declares the
 * `/queue/<name>` a link attaches to with the terminus's durability and no
 * arguments: a missing queue is created durable, and an existing queue that
 * is not durable, or was declared with `x-*` arguments, refuses the link
 * (queue arguments belong in a broker policy).
 */
export const DURABLE_TERMINUS = 2;

/** The peer's final word on one sent message. */
export type SendOutcome =
  | { readonly kind: "accepted" }
  | { readonly kind: "rejected"; readonly error: string }
  /** Released, modified, or the connection went away before an answer. */
  | { readonly kind: "released"; readonly error: string };

/** rhea connection options for a connection URL (`amqp://user:pass@host:port/vhost`, `amqps://…`). */
export function connectionOptions(url: string): ConnectionOptions {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new Error("the AMQP 1.0 connection URL is not a URL");
  }
  const tls = parsed.protocol === "amqps:";
  if (!tls && parsed.protocol !== "amqp:") {
    throw new Error(
      `the AMQP 1.0 connection URL must be amqp:// or amqps://, not ${parsed.protocol}`,
    );
  }
  const vhost = decodeURIComponent(parsed.pathname.replace(/^\//, ""));
  const base = {
    host: parsed.hostname,
    port: parsed.port ? Number(parsed.port) : tls ? 5671 : 5672,
    reconnect: false,
    idle_time_out: 60_000,
    ...(parsed.username ? { username: decodeURIComponent(parsed.username) } : {}),
    ...(parsed.password ? { password: decodeURIComponent(parsed.password) } : {}),
    // RabbitMQ picks the virtual host from the open frame's hostname.
    ...(vhost ? { hostname: `vhost:${vhost}` } : {}),
  };
  return tls ? { ...base, transport: "tls" } : base;
}

/** An open connection; {@link closed} settles when it is gone for any reason. */
export class Amqp10Connection {
  readonly #connection: Connection;
  readonly #senders = new Map<string, Promise<Sender>>();
  readonly #pending = new Map<Delivery, (outcome: SendOutcome) => void>();
  #gone = false;
  /** Resolves with the reason once the connection is closed or lost. */
  readonly closed: Promise<string>;

  private constructor(connection: Connection, closed: Promise<string>) {
    this.#connection = connection;
    this.closed = closed.then((reason) => {
      this.#gone = true;
      for (const answer of this.#pending.values()) answer({ kind: "released", error: reason });
      this.#pending.clear();
      return reason;
    });
  }

  /** Dials `url` and resolves once the peer opened the connection. */
  static open(url: string): Promise<Amqp10Connection> {
    const container = rhea.create_container();
    const connection = container.connect(connectionOptions(url));
    let lost: (reason: string) => void = () => {};
    const closed = new Promise<string>((resolve) => lost = resolve);
    // Every error rhea raises lands here: unhandled, it would be thrown by the container.
    for (const event of ["disconnected", "connection_close", "connection_error", "error"]) {
      connection.on(event, (e: unknown) => lost(describe(e)));
    }
    // A link error its owner did not handle ends the connection: its owner dials again.
    for (const event of ["session_error", "sender_error", "receiver_error", "protocol_error"]) {
      connection.on(event, (context: unknown) => {
        lost(describe(context));
        connection.close();
      });
    }
    return new Promise((resolve, reject) => {
      connection.once("connection_open", () => resolve(new Amqp10Connection(connection, closed)));
      void closed.then((reason) => reject(new Error(reason)));
    });
  }

  /** True once the connection is gone. */
  get isClosed(): boolean {
    return this.#gone;
  }

  /** Opens a receiver; it is attached when `receiver_open` fires. */
  receiver(options: ReceiverOptions): Receiver {
    return this.#connection.open_receiver(options);
  }

  /** Sends `message` to `address` and waits for the peer's disposition. */
  async send(address: string, message: Message): Promise<SendOutcome> {
    if (this.#gone) return { kind: "released", error: "the connection is closed" };
    let sender: Sender;
    try {
      sender = await this.#sender(address);
    } catch (error) {
      this.#senders.delete(address);
      return { kind: "released", error: errorMessage(error) };
    }
    if (this.#gone) return { kind: "released", error: "the connection is closed" };
    // Sent only with credit: rhea would otherwise queue it where no answer can come from.
    while (!sender.sendable()) {
      await new Promise((resolve) => sender.once("sendable", resolve));
      if (this.#gone) return { kind: "released", error: "the connection is closed" };
    }
    return await new Promise<SendOutcome>((resolve) => {
      const delivery = sender.send(message);
      this.#pending.set(delivery, resolve);
    });
  }

  #sender(address: string): Promise<Sender> {
    let opened = this.#senders.get(address);
    if (!opened) {
      opened = new Promise<Sender>((resolve, reject) => {
        const sender = this.#connection.open_sender({
          target: { address, durable: DURABLE_TERMINUS },
          autosettle: true,
        });
        const answer = (outcome: SendOutcome) => (context: EventContext) => {
          const delivery = context.delivery!;
          this.#pending.get(delivery)?.(
            outcome.kind === "accepted" ? outcome : {
              ...outcome,
              error: outcome.error + conditionOf(delivery.remote_state?.error),
            },
          );
          this.#pending.delete(delivery);
        };
        sender.on("accepted", answer({ kind: "accepted" }));
        sender.on("rejected", answer({ kind: "rejected", error: `rejected by ${address}` }));
        sender.on("released", answer({ kind: "released", error: `released by ${address}` }));
        sender.on("modified", answer({ kind: "released", error: `modified by ${address}` }));
        sender.once("sendable", () => resolve(sender));
        // Handled here, so a refused address (no such queue) does not end the connection.
        const refused = (context: EventContext) => {
          this.#senders.delete(address);
          const reason = `the link to ${address} was closed: ${describe(context)}`;
          for (const [delivery, answer] of this.#pending) {
            if (delivery.link !== sender) continue;
            this.#pending.delete(delivery);
            answer({ kind: "released", error: reason });
          }
          reject(new Error(reason));
        };
        sender.on("sender_error", refused);
        sender.on("sender_close", refused);
        // A session or connection that ends before the link opens answers nothing on the link.
        void this.closed.then((reason) => reject(new Error(reason)));
      });
      this.#senders.set(address, opened);
    }
    return opened;
  }

  /** Closes the connection and waits until it is gone. */
  async close(): Promise<void> {
    if (!this.#gone) this.#connection.close();
    await this.closed;
  }
}

function conditionOf(error: AmqpError | undefined): string {
  if (!error) return "";
  return `: ${error.condition ?? "error"}${error.description ? ` ${error.description}` : ""}`;
}

/** Why a connection event happened, in one line (rhea passes an event context, or an Error). */
function describe(event: unknown): string {
  if (event instanceof Error) return event.message;
  const context = event as Partial<EventContext> | undefined;
  const error = context?.error as AmqpError | Error | undefined;
  if (error instanceof Error) return error.message;
  if (error) return conditionOf(error).slice(2);
  const closed = (context?.receiver?.error ?? context?.sender?.error ?? context?.session?.error ??
    context?.connection?.error) as AmqpError | undefined;
  return closed ? conditionOf(closed).slice(2) : "the connection closed";
}
