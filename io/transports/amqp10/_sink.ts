/**
 * The outbound sink for `amqp10:` destinations. A destination names the
 * channel whose connection carries it and, optionally, an address:
 *
 * - `amqp10://<channel>` — that channel's own `address` (what `q:send
 *   channel="<channel>"` resolves to when the channel has no `bind`);
 * - `amqp10://<channel>/<address>` — another address on that channel's
 *   connection (`amqp10://orders/queue/replies` → `/queue/replies`);
 * - `amqp10:///<address>` — the connection of the engine's one `amqp10`
 *   connection (refused as ambiguous when the active channels name several).
 *
 * The destination never holds a credential: the URL is the channel's
 * secret reference. A message is sent unsettled and counts as delivered
 * only once the peer's disposition is `accepted`; `rejected` is poison
 * (sending it again would be refused again); `released`, `modified`, a
 * lost connection or no answer within the send timeout are retried by the
 * outbox, under the same `message-id` (the row's idempotency key).
 *
 * @module
 */
import type { Logger } from "../../../engine/core/log.ts";
import type {
  OutboundMessage,
  RemoteSink,
  SinkSettlement,
  TransportContext,
} from "../../../engine/core/transport.ts";
import { errorMessage } from "../../../engine/core/errors.ts";
import { Amqp10Connection, type SendOutcome } from "./_connection.ts";
import { outboundOf } from "./_message.ts";
import { readOptions } from "./_options.ts";

/** The destination scheme. */
export const AMQP10_SCHEME = "amqp10";

/** How long a send waits for the peer's disposition before the outbox tries again. */
const SEND_TIMEOUT_MS = 30_000;

/** A parsed destination: the channel whose connection to use (empty: the only one) and the address. */
export interface Amqp10Destination {
  readonly channel: string;
  readonly address?: string;
}

/** Parses `amqp10://<channel>[/<address>]`, or undefined when it is not one. */
export function parseDestination(destination: string): Amqp10Destination | undefined {
  const match = /^amqp10:\/\/([^/\s]*)(\/\S*)?$/.exec(destination.trim());
  if (!match) return undefined;
  const [, channel, address] = match;
  if (!channel && !address) return undefined;
  return { channel, ...(address && address !== "/" ? { address } : {}) };
}

/** Connections by resolved URL, opened on first use and again after a loss. */
export class ConnectionPool {
  readonly #open = new Map<string, Promise<Amqp10Connection>>();

  /** The open connection to `url`, dialling it when there is none. */
  async get(url: string): Promise<Amqp10Connection> {
    const cached = this.#open.get(url);
    if (cached) {
      const connection = await cached.catch(() => undefined);
      if (connection && !connection.isClosed) return connection;
      if (this.#open.get(url) === cached) this.#open.delete(url);
    }
    let opening = this.#open.get(url);
    if (!opening) {
      opening = Amqp10Connection.open(url);
      this.#open.set(url, opening);
      opening.catch(() => this.#open.delete(url));
    }
    return await opening;
  }

  /** Closes every connection. */
  async close(): Promise<void> {
    const all = [...this.#open.values()];
    this.#open.clear();
    await Promise.all(all.map((c) => c.then((x) => x.close(), () => {})));
  }
}

/** The sink of one running engine; connections come from its `amqp10` channels. */
export function amqp10Sink(
  context: TransportContext,
  pool: ConnectionPool,
  logger: Logger,
): RemoteSink {
  return {
    name: AMQP10_SCHEME,
    async send(message: OutboundMessage): Promise<SinkSettlement> {
      const target = await targetOf(context, message.destination);
      if ("outcome" in target) return target;
      let outcome: SendOutcome;
      try {
        const connection = await pool.get(target.url);
        outcome = await withTimeout(connection.send(target.address, outboundOf(message)));
      } catch (error) {
        outcome = { kind: "released", error: errorMessage(error) };
      }
      const where = `${message.destination} (${target.address})`;
      switch (outcome.kind) {
        case "accepted":
          return { outcome: "delivered" };
        case "rejected":
          logger.warn("an amqp10 peer rejected an outbound message", {
            code: "SUTRA.AMQP10.SEND_REJECTED",
            destination: message.destination,
          });
          return {
            outcome: "poison",
            error: `SUTRA.AMQP10.SEND_REJECTED: ${outcome.error} ${where}`,
          };
        case "released":
          return {
            outcome: "retry",
            error: `SUTRA.BROKER.PUBLISH_FAILED: ${outcome.error} ${where}`,
          };
      }
    },
  };
}

/** The URL and address a destination goes to, or the settlement when it cannot go anywhere. */
async function targetOf(
  context: TransportContext,
  destination: string,
): Promise<{ url: string; address: string } | SinkSettlement> {
  const parsed = parseDestination(destination);
  if (!parsed) {
    return {
      outcome: "poison",
      error:
        `SUTRA.AMQP10.DESTINATION_INVALID: '${destination}' is not amqp10://<channel>[/<address>] or amqp10:///<address>`,
    };
  }
  const channels = context.channels();
  const named = parsed.channel
    ? channels.filter((c) => c.declaration.name === parsed.channel)
    : channels;
  const refs = new Set(named.map((c) => c.declaration.options?.["url"]));
  if (named.length === 0) {
    // The deployment that declares it may be activated later: the outbox backs off meanwhile.
    return {
      outcome: "retry",
      error: `SUTRA.AMQP10.NO_CONNECTION: no active amqp10 channel${
        parsed.channel ? ` named '${parsed.channel}'` : ""
      } to send ${destination} through`,
    };
  }
  if (refs.size > 1) {
    return {
      outcome: "poison",
      error:
        `SUTRA.AMQP10.DESTINATION_INVALID: '${destination}' names no channel and the active amqp10 channels use ${refs.size} connections; write amqp10://<channel>/<address>`,
    };
  }
  const read = readOptions(named[0]);
  if ("problems" in read) {
    return { outcome: "retry", error: `${read.problems[0].code}: ${read.problems[0].message}` };
  }
  const address = parsed.address ?? read.options.address;
  if (!address) {
    return {
      outcome: "poison",
      error: `SUTRA.AMQP10.DESTINATION_INVALID: '${destination}' names no address and channel '${
        named[0].declaration.name
      }' has none`,
    };
  }
  try {
    return { url: await context.resolveSecret(read.options.url), address };
  } catch (error) {
    return { outcome: "retry", error: errorMessage(error) };
  }
}

function withTimeout(sent: Promise<SendOutcome>): Promise<SendOutcome> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<SendOutcome>((resolve) => {
    timer = setTimeout(
      () => resolve({ kind: "released", error: `no disposition within ${SEND_TIMEOUT_MS} ms` }),
      SEND_TIMEOUT_MS,
    );
  });
  return Promise.race([sent, late]).finally(() => clearTimeout(timer));
}
