/**
 * A `transport: kafka` channel's `options:` block.
 *
 * ```yaml
 * - name: transfers
 *   transport: kafka
 *   ack-mode: on-complete
 *   options:
 *     brokers: env:SUTRA_KAFKA_BROKERS   # host:port[,host:port…], a secret reference or a literal
 *     topic: transfers.requests          # default: the channel's name
 *     group-id: sutra.transfers          # default sutra.<tenant>.<channel>: one group per channel
 *     from-beginning: true               # a new group starts at the oldest record (default true)
 *     ordering: key                      # key (default): records of one key in order; partition: one at a time
 *     max-in-flight: 64                  # records of one partition being processed at once
 *     max-deliveries: 5                  # attempts before a transient refusal is dead-lettered
 *     dead-letter-topic: transfers.requests.dlt   # default <topic>.dlt
 *     idempotency-header: sutra-idempotency-key   # default: topic/partition/offset is the key
 *     session-timeout: PT30S
 *     heartbeat-interval: PT3S
 *     max-wait: PT1S                     # a fetch's long-poll wait
 *     lease-ttl: PT30S                   # singleton channels: takeover bound
 *     consume: true                      # false: an outbound-only channel (q:send channel=…)
 *     sasl:                              # optional: log in (SASL)
 *       mechanism: scram-sha-512         # plain, scram-sha-256 or scram-sha-512
 *       username: env:KAFKA_USER         # secret references, both
 *       password: secret:kafka-password
 *     tls: true                          # or a mapping: ca, cert, key — each a PEM file's
 *                                        # path or a secret reference holding the PEM
 * ```
 *
 * @module
 */
import type { Diagnostic } from "../../../engine/core/diagnostic.ts";
import type { BoundChannel, TransportContext } from "../../../engine/core/transport.ts";
import { isSecretReference } from "../../../engine/core/secrets.ts";
import {
  type BrokerChannelOptions,
  CONSUME_OPTION,
  optionInvalid,
  OptionReader,
} from "../_broker/mod.ts";

/** Every key a kafka channel's options may hold. */
export const KAFKA_OPTION_KEYS = [
  "brokers",
  "topic",
  "group-id",
  "from-beginning",
  "ordering",
  "max-in-flight",
  "max-deliveries",
  "dead-letter-topic",
  "idempotency-header",
  "session-timeout",
  "heartbeat-interval",
  "max-wait",
  "lease-ttl",
  CONSUME_OPTION,
  "sasl",
  "tls",
] as const;

/** The SASL mechanisms a kafka channel may log in with. */
export const SASL_MECHANISMS = ["plain", "scram-sha-256", "scram-sha-512"] as const;

/** How a channel logs in: the mechanism, and references to its username and password. */
export interface KafkaSasl {
  readonly mechanism: typeof SASL_MECHANISMS[number];
  readonly username: string;
  readonly password: string;
}

/** TLS to the brokers: each of `ca`, `cert`, `key` a PEM file's path or a secret reference. */
export interface KafkaTls {
  readonly ca?: string;
  readonly cert?: string;
  readonly key?: string;
}

/** A kafka channel's settings, defaults applied. */
export interface KafkaChannelOptions extends BrokerChannelOptions {
  /** The bootstrap brokers, or a secret reference to them. */
  readonly brokers: string;
  readonly topic: string;
  readonly groupId: string;
  readonly fromBeginning: boolean;
  /** `key`: one key's records one after another; `partition`: one record of a partition at a time. */
  readonly ordering: "key" | "partition";
  readonly maxInFlight: number;
  readonly maxDeliveries: number;
  readonly deadLetterTopic: string;
  /** A record header naming the idempotency key instead of topic/partition/offset. */
  readonly idempotencyHeader?: string;
  readonly sessionTimeoutMs: number;
  readonly heartbeatIntervalMs: number;
  readonly maxWaitMs: number;
  readonly leaseTtlMs: number;
  readonly sasl?: KafkaSasl;
  readonly tls?: KafkaTls;
}

/** Reads a channel's options; the diagnostics list what is wrong (empty when nothing is). */
export function readKafkaOptions(
  channel: BoundChannel,
): { options: KafkaChannelOptions; problems: Diagnostic[] } {
  const name = channel.declaration.name;
  const r = new OptionReader(name, channel.declaration.options);
  r.only(KAFKA_OPTION_KEYS);
  const topic = r.string("topic", name)!;
  const ordering = r.string("ordering", "key")!;
  const idempotencyHeader = r.string("idempotency-header")?.toLowerCase();
  const sasl = readSasl(r);
  const tls = readTls(r);
  const options: KafkaChannelOptions = {
    brokers: r.required("brokers"),
    topic,
    groupId: r.string("group-id", `sutra.${channel.tenant}.${name}`)!,
    fromBeginning: r.boolean("from-beginning", true),
    ordering: ordering === "partition" ? "partition" : "key",
    maxInFlight: r.integer("max-in-flight", 64, 1, 100_000),
    maxDeliveries: r.integer("max-deliveries", 5, 1, 1_000_000),
    deadLetterTopic: r.string("dead-letter-topic", `${topic}.dlt`)!,
    ...(idempotencyHeader ? { idempotencyHeader } : {}),
    sessionTimeoutMs: r.duration("session-timeout", 30_000),
    heartbeatIntervalMs: r.duration("heartbeat-interval", 3_000),
    maxWaitMs: r.duration("max-wait", 1_000),
    leaseTtlMs: r.duration("lease-ttl", 30_000),
    consume: r.consume(),
    ...(sasl ? { sasl } : {}),
    ...(tls ? { tls } : {}),
  };
  const problems = [...r.problems];
  if (ordering !== "key" && ordering !== "partition") {
    problems.push(optionInvalid(name, "ordering", "must be key or partition"));
  }
  if (options.heartbeatIntervalMs >= options.sessionTimeoutMs) {
    problems.push(
      optionInvalid(name, "heartbeat-interval", "must be shorter than session-timeout"),
    );
  }
  if (options.topic === options.deadLetterTopic) {
    problems.push(optionInvalid(name, "dead-letter-topic", "must differ from the topic it serves"));
  }
  return { options, problems };
}

/** The `sasl:` block: a known mechanism, a username and a password (references, as lint requires). */
function readSasl(r: OptionReader): KafkaSasl | undefined {
  const b = r.block("sasl");
  if (!b) return undefined;
  b.only(["mechanism", "username", "password"]);
  const mechanism = b.required("mechanism").toLowerCase();
  const username = b.required("username");
  const password = b.required("password");
  if (mechanism !== "" && !(SASL_MECHANISMS as readonly string[]).includes(mechanism)) {
    b.invalid("mechanism", `must be one of ${SASL_MECHANISMS.join(", ")}`);
    return undefined;
  }
  return { mechanism: mechanism as KafkaSasl["mechanism"], username, password };
}

/** `tls: true | false`, or a mapping of `ca`, `cert` and `key` (cert and key together). */
function readTls(r: OptionReader): KafkaTls | undefined {
  const value = r.raw("tls");
  if (value === undefined || value === false) return undefined;
  if (value === true) return {};
  const b = r.block("tls");
  if (!b) return undefined;
  b.only(["ca", "cert", "key"]);
  const tls: KafkaTls = {
    ...optional("ca", b.string("ca")),
    ...optional("cert", b.string("cert")),
    ...optional("key", b.string("key")),
  };
  if ((tls.cert === undefined) !== (tls.key === undefined)) {
    b.invalid(tls.cert === undefined ? "cert" : "key", "must come with its pair (cert and key)");
  }
  return tls;
}

function optional<K extends string>(key: K, value: string | undefined): { [k in K]?: string } {
  return (value === undefined || value === "" ? {} : { [key]: value }) as { [k in K]?: string };
}

/** What kafkajs needs to reach a channel's cluster: brokers, and its login and TLS when set. */
export interface KafkaConnection {
  readonly brokers: string[];
  readonly sasl?: { mechanism: KafkaSasl["mechanism"]; username: string; password: string };
  readonly ssl?: true | { ca?: string; cert?: string; key?: string };
}

/** Resolves a channel's brokers, SASL references and TLS files into a {@link KafkaConnection}. */
export async function connectionOf(
  context: TransportContext,
  options: Pick<KafkaChannelOptions, "brokers" | "sasl" | "tls">,
): Promise<KafkaConnection> {
  const brokers = await brokerList(context, options.brokers);
  const s = options.sasl;
  const sasl = s && {
    mechanism: s.mechanism,
    username: await context.resolveSecret(s.username),
    password: await context.resolveSecret(s.password),
  };
  let ssl: KafkaConnection["ssl"];
  if (options.tls) {
    const pem = async (value: string | undefined) =>
      value === undefined
        ? undefined
        : isSecretReference(value)
        ? await context.resolveSecret(value)
        : await Deno.readTextFile(value);
    const [ca, cert, key] = await Promise.all(
      [options.tls.ca, options.tls.cert, options.tls.key].map(pem),
    );
    ssl = ca || cert
      ? { ...optional("ca", ca), ...optional("cert", cert), ...optional("key", key) }
      : true;
  }
  return { brokers, ...(sasl ? { sasl } : {}), ...(ssl ? { ssl } : {}) };
}

/** Resolves a channel's brokers (a secret reference or a literal list) into `host:port` entries. */
export async function brokerList(context: TransportContext, brokers: string): Promise<string[]> {
  const literal = /^[^:/\s,]+:\d+(\s*,\s*[^:/\s,]+:\d+)*$/.test(brokers.trim());
  const text = literal ? brokers : await context.resolveSecret(brokers);
  const list = text.split(",").map((b) => b.trim()).filter((b) => b !== "");
  if (list.length === 0) throw new Error(`no brokers in '${brokers}'`);
  return list;
}
