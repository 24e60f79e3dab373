/**
 * A single-node Kafka **test double**: a protocol-level broker that speaks
 * the Kafka wire protocol versions `npm:kafkajs` 2.2.4 negotiates, over an
 * in-memory log, so the `kafka` transport's tests drive the real client
 * library over a real socket. It is not a Kafka server: one node, no
 * replication, no persistence, no compression, no transactions, no ACLs.
 * With `SUTRA_TEST_KAFKA_BROKERS` set the tests use a real cluster instead.
 *
 * Served (one version each, the one kafkajs then picks): ApiVersions v0–2,
 * Metadata v1 (topics are created on first use), Produce v3 (RecordBatch
 * v2 with CRC-32C; the idempotent producer's sequences are checked and a
 * resent batch is not appended twice), Fetch v4 (long poll), ListOffsets
 * v1, FindCoordinator v0, JoinGroup v1, SyncGroup v0, Heartbeat v0,
 * LeaveGroup v0 (generations and rebalances as the real coordinator runs
 * them), OffsetCommit v2, OffsetFetch v1, CreateTopics v0,
 * InitProducerId v0, and, when it is given users, SaslHandshake v1 and
 * SaslAuthenticate v1 with the PLAIN mechanism (`sasl.ts`). Given a
 * certificate and key it listens with TLS instead of plain TCP.
 *
 * The files: `wire.ts` (primitives and framing), `record_batch.ts` (the
 * batch codec), `log.ts` (partitions and the producer sequence check),
 * `group_coordinator.ts` (consumer groups), `handlers.ts` (one function per
 * request), `server.ts` (sockets).
 *
 * @module
 */
import { GroupCoordinator } from "./group_coordinator.ts";
import type { BrokerState } from "./handlers.ts";
import { Log } from "./log.ts";
import { Listener } from "./server.ts";

export { Log } from "./log.ts";
export type { StoredRecord } from "./record_batch.ts";

/** Options for {@link KafkaTestBroker.start}. */
export interface KafkaTestBrokerOptions {
  /** The port (default: a free one). */
  readonly port?: number;
  /** Partitions of a topic created on first use (default 1). */
  readonly defaultPartitions?: number;
  /** SASL PLAIN users (name → password): every connection must log in as one. */
  readonly users?: Readonly<Record<string, string>>;
  /** A PEM certificate and key: the broker listens with TLS. */
  readonly tls?: { readonly cert: string; readonly key: string };
}

/** A running test broker; its log survives {@link stop} / {@link restart}. */
export class KafkaTestBroker {
  readonly log = new Log();
  readonly groups = new GroupCoordinator();
  readonly #options: KafkaTestBrokerOptions;
  #listener: Listener | undefined;
  #port = 0;
  #closing = false;

  private constructor(options: KafkaTestBrokerOptions) {
    this.#options = options;
  }

  /** Starts a broker on 127.0.0.1. */
  static start(options: KafkaTestBrokerOptions = {}): KafkaTestBroker {
    const broker = new KafkaTestBroker(options);
    broker.#listen(options.port ?? 0);
    return broker;
  }

  /** `127.0.0.1:<port>`, the bootstrap address. */
  get address(): string {
    return `127.0.0.1:${this.#port}`;
  }

  /** Stops listening and drops every connection (an outage); the log and offsets stay. */
  async stop(): Promise<void> {
    this.#closing = true;
    this.log.wakeAll();
    this.groups.forgetMembers();
    await this.#listener?.close();
    this.#listener = undefined;
  }

  /** Listens again on the same port after {@link stop}. */
  restart(): void {
    this.#listen(this.#port);
  }

  /** Stops for good. */
  async close(): Promise<void> {
    await this.stop();
    this.groups.close();
  }

  #listen(port: number): void {
    this.#closing = false;
    const tls = this.#options.tls;
    const listener = tls
      ? Deno.listenTls({ hostname: "127.0.0.1", port, cert: tls.cert, key: tls.key })
      : Deno.listen({ hostname: "127.0.0.1", port });
    this.#port = (listener.addr as Deno.NetAddr).port;
    const users = this.#options.users;
    const state: BrokerState = {
      log: this.log,
      groups: this.groups,
      host: "127.0.0.1",
      port: this.#port,
      defaultPartitions: this.#options.defaultPartitions ?? 1,
      autoCreateTopics: true,
      closing: () => this.#closing,
      ...(users ? { users: new Map(Object.entries(users)) } : {}),
    };
    this.#listener = new Listener(listener, () => state);
  }
}
