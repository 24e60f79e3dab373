/**
 * The transport SPI. A transport module registers one {@link TransportFactory}
 * when it is imported; the engine spawns every registered factory with the
 * same {@link TransportContext} and never names a transport itself. Inbound
 * traffic enters through {@link TransportContext.deliver}; outbound traffic
 * leaves through the {@link Sink}s a factory registers for destination
 * schemes, which the outbox worker looks up by the destination's scheme.
 *
 * @module
 */
import type { Diagnostic } from "./diagnostic.ts";
import type { Logger } from "./log.ts";
import { type Named, Registry } from "./registry.ts";

/** When an inbound message is acknowledged. */
export type AckMode = "on-persist" | "on-complete";

/** How a channel authenticates inbound callers (secrets are references). */
export type ChannelAuthSpec =
  | { readonly scheme: "none" }
  | {
    readonly scheme: "apikey";
    readonly apikey: { readonly value: string; readonly header: string };
  }
  | {
    readonly scheme: "basic";
    readonly basic: { readonly username: string; readonly password: string };
  }
  | { readonly scheme: "bearer"; readonly bearer: { readonly token: string } };

/** The part of a `channels.yaml` declaration a transport reads. */
export interface ChannelDeclaration {
  readonly name: string;
  readonly transport: string;
  readonly bind?: string;
  readonly ackMode?: AckMode;
  readonly cloudeventsMode?: "none" | "binary" | "structured";
  readonly maxConcurrentInstances?: number;
  /** The channel's own payload cap in bytes; it overrides {@link TransportContext.payloadCapBytes}. */
  readonly payloadCapBytes?: number;
  /** One consumer across every replica (see {@link TransportContext.lease}). */
  readonly singleton?: boolean;
  readonly auth?: ChannelAuthSpec;
  readonly options?: Readonly<Record<string, unknown>>;
}

/** A channel of an active deployment, bound to the transport that serves it. */
export interface BoundChannel {
  readonly tenant: string;
  readonly deploymentId: string;
  readonly declaration: ChannelDeclaration;
  /** The effective mode after the transport's capability was taken into account. */
  readonly ackMode: AckMode;
}

/** A message as a transport hands it to the engine. */
export interface InboundDelivery {
  readonly channel: string;
  readonly body: Uint8Array;
  readonly contentType?: string;
  /** Transport headers by lower-case name. */
  readonly headers: Readonly<Record<string, string>>;
  /**
   * The sender's own identity for this message. When set, inbox
   * deduplication keys on it (whatever the route's `dedupKey` says), so a
   * second delivery under the same key is answered with the first one's
   * instance instead of running again.
   */
  readonly idempotencyKey?: string;
  /**
   * How the transport hears the delivery's acknowledgement when it holds
   * one until the instance ends (`ack-mode: on-complete` on a transport
   * that acknowledges later, such as `local`). It is settled exactly once
   * when the delivery's outcome is `settled`, and never otherwise (the
   * transport then acts on the outcome itself).
   */
  readonly deferral?: DeferredAck;
  /**
   * Where the answer to this message goes (a broker's `reply-to`). When set,
   * the first `q:reply` of each step the message runs is written to the
   * outbox as a message to {@link ReplyRoute.destination}, in the step's own
   * commit: it is sent (by that destination's sink) even if the engine dies
   * right after the commit, and a redelivered copy answered by inbox
   * deduplication does not send it twice.
   */
  readonly replyTo?: ReplyRoute;
  /**
   * The order the transport keeps among its messages (a Kafka record key, an
   * SQS FIFO message group, a Pub/Sub ordering key). On-persist messages of one
   * channel sharing it run one after another in capture order; without it,
   * captured messages run side by side.
   */
  readonly orderingKey?: string;
}

/** Where a delivery's answer goes, and the headers it carries (a correlation id). */
export interface ReplyRoute {
  /** An outbox destination, e.g. `rabbitmq:///<reply-queue>`. */
  readonly destination: string;
  readonly headers: Readonly<Record<string, string>>;
}

/** The late answer to a deferred delivery. */
export type AckVerdict =
  /** Every instance the delivery started or advanced has ended well. */
  | { readonly kind: "ack" }
  /**
   * No acknowledgement: `permanent` when an instance failed (a redelivery
   * would be answered the same way), otherwise the registry gave up holding
   * it (overflow, timeout, shutdown) and a redelivery is the way forward.
   */
  | { readonly kind: "nack"; readonly permanent: boolean; readonly diagnostic: Diagnostic };

/** The transport's side of a deferred acknowledgement. */
export interface DeferredAck {
  settle(verdict: AckVerdict): void;
}

/** The answer a synchronous caller gets (`q:reply`). */
export interface DeliveryReply {
  readonly body: Uint8Array;
  readonly contentType?: string;
  readonly headers: Readonly<Record<string, string>>;
}

/** Why a delivery was refused; each transport maps the class to its own signal. */
export type RefusalClass =
  /** The bytes cannot be read (bad JSON, wrong media type). */
  | "malformed"
  /** Larger than the effective payload cap. */
  | "too-large"
  /** No such channel, route or correlated instance. */
  | "not-found"
  /** Conflicts with durable state (a live unique alias). */
  | "conflict"
  /** Lost a race (a held claim): retry-safe. */
  | "retry"
  /** Decoded but refused by validation. */
  | "rejected"
  /** An admission cap is full. */
  | "overloaded"
  /** The engine failed; nothing was acknowledged. */
  | "failed";

/** Whether a refusal means "not now" (a held claim, a full cap), so the same delivery may succeed later. */
export function refusedForNow(refusal: RefusalClass): boolean {
  return refusal === "retry" || refusal === "overloaded";
}

/** What became of a delivery. */
export type DeliveryOutcome =
  | {
    /** on-persist: durably captured, processing continues asynchronously. */
    readonly kind: "captured";
    readonly receiptId: string;
  }
  | {
    /** on-complete: the step committed; the instances are parked or finished. */
    readonly kind: "settled";
    readonly instances: readonly { readonly instanceId: string; readonly status: string }[];
    readonly reply?: DeliveryReply;
  }
  | {
    readonly kind: "refused";
    readonly refusal: RefusalClass;
    readonly diagnostics: readonly Diagnostic[];
  };

/** The engine's single HTTP listener, for transports that serve HTTP routes. */
export interface HttpMount {
  add(
    method: string,
    pattern: string,
    handler: (
      request: Request,
      params: Readonly<Record<string, string>>,
    ) => Response | Promise<Response>,
  ): unknown;
}

/** What a spawned transport may use. */
export interface TransportContext {
  /** Channels this transport serves right now (follows deploys). */
  channels(): readonly BoundChannel[];
  /** Runs the intake pipeline for one message. Never rejects. */
  deliver(delivery: InboundDelivery): Promise<DeliveryOutcome>;
  readonly http: HttpMount;
  readonly logger: Logger;
  /** Resolves a secret reference (`env:`, `secret:`, `${…}`). */
  resolveSecret(reference: string): Promise<string>;
  /**
   * The engine-wide inbound payload cap (`sutra.inbound.payload-cap-bytes`), for a
   * transport that can stop reading a body at the cap instead of holding all of it.
   */
  readonly payloadCapBytes: number;
  /** The longest a deferred acknowledgement stays pending before the engine settles it, milliseconds. */
  readonly ackHoldMs: number;
  /**
   * A lease on `role`, shared by every replica on the engine database: at
   * most one replica holds it at a time, and when the holder stops renewing
   * (it died) another takes it over within `ttlMs`. Queue transports use it
   * for `singleton: true` channels (role `transport/<name>/<channel>`).
   * Absent where there is no engine database to lease from.
   */
  lease?(role: string, options?: TransportLeaseOptions): TransportLease;
}

/** Options for {@link TransportContext.lease}. */
export interface TransportLeaseOptions {
  /** Time-to-live of the lease row; the holder renews it at a third of that (default 30 s). */
  readonly ttlMs?: number;
  /** The tenant the lease row belongs to (default `default`). */
  readonly tenant?: string;
}

/** A lease this replica is trying to hold (it retries for as long as it is not released). */
export interface TransportLease {
  /** True while this replica holds the lease. */
  held(): boolean;
  /** Calls `listener` whenever {@link held} changes; answers a function that unsubscribes. */
  onChange(listener: (held: boolean) => void): () => void;
  /** Stops trying and gives the lease up, so another replica need not wait for it to expire. */
  release(): Promise<void>;
}

/** A running transport. */
export interface TransportInstance {
  /** Stops consuming; in-flight deliveries finish first. */
  stop(): Promise<void>;
  /**
   * Sinks bound to this running instance, for a transport whose deliveries
   * need its context (`local` hands them to this engine's intake). The
   * engine adds them to the sinks of {@link TransportFactory.registerSinks}.
   */
  readonly sinks?: readonly Sink[];
}

/** One outbound message handed to a sink. */
export interface OutboundMessage {
  /** The destination, e.g. `http://host/path` or `POST https://host/hook`. */
  readonly destination: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Uint8Array;
  readonly contentType?: string;
  /** The same on every attempt, so a receiver can drop redeliveries. */
  readonly idempotencyKey: string;
  /** 1 for the first attempt. */
  readonly attempt: number;
}

/** The final word on one attempt. */
export type SinkSettlement =
  | { readonly outcome: "delivered" }
  /** Try again later; `uncounted` when nothing failed (a deferral that timed out), so no attempt is spent. */
  | { readonly outcome: "retry"; readonly error: string; readonly uncounted?: boolean }
  /** Can never succeed: stop trying. */
  | { readonly outcome: "poison"; readonly error: string };

/** What a sink made of one attempt. */
export type SinkResult =
  | SinkSettlement
  /**
   * Handed over, the final word comes later (a deferred acknowledgement):
   * the row stays claimed for `holdMs` while `settled` is pending.
   */
  | {
    readonly outcome: "deferred";
    readonly settled: Promise<SinkSettlement>;
    readonly holdMs: number;
  };

/** Delivers outbox rows whose destination has this scheme by dialing something. */
export interface RemoteSink extends Named {
  /** The destination scheme (`http`, `https`, `local`, …). */
  readonly name: string;
  readonly kind?: "remote";
  send(message: OutboundMessage): Promise<SinkResult>;
}

/** The part of an open engine-database transaction a parking sink writes through. */
export interface SinkTransaction {
  query(sql: string, params?: readonly unknown[]): Promise<{ readonly rowCount: number }>;
}

/**
 * A sink that hands a delivery over to another engine table instead of
 * dialing out (the `pull` transport parks it as an external task). The
 * outbox worker calls {@link ParkingSink.park} inside the transaction that
 * deletes the outbox row when the answer is `delivered`, so ownership moves
 * from one row to the other atomically, and it stamps the reserved
 * {@link PARK_DEPLOYMENT_HEADER} and {@link PARK_INSTANCE_HEADER} headers
 * (over any copies the payload carried) for this kind of sink only.
 */
export interface ParkingSink extends Named {
  /** The destination scheme (`pull`). */
  readonly name: string;
  readonly kind: "park";
  park(message: OutboundMessage, tx: SinkTransaction): Promise<SinkSettlement>;
}

/** Delivers outbox rows whose destination has this scheme. */
export type Sink = RemoteSink | ParkingSink;

/** Reserved header: the deployment that owns a parked delivery (never sent anywhere). */
export const PARK_DEPLOYMENT_HEADER = "sutra-park-deployment";

/** Reserved header: the instance that emitted a parked delivery (never sent anywhere). */
export const PARK_INSTANCE_HEADER = "sutra-park-instance";

/** True for a reserved header name (compared case-insensitively). */
export function isReservedParkHeader(name: string): boolean {
  const lower = name.toLowerCase();
  return lower === PARK_DEPLOYMENT_HEADER || lower === PARK_INSTANCE_HEADER;
}

/** A transport implementation. */
export interface TransportFactory extends Named {
  /** The name channels use in `transport:`. */
  readonly name: string;
  /** True when the transport can hold an acknowledgement until the step commits. */
  readonly handlesOnComplete: boolean;
  /** The mode a channel gets when it declares none. */
  readonly defaultAckMode: AckMode;
  spawn(context: TransportContext): TransportInstance | Promise<TransportInstance>;
  /** Adds this transport's outbound sinks. */
  registerSinks(sinks: Registry<Sink>): void;
  /**
   * What is wrong with a channel's `options:` on this transport (empty when
   * nothing is), so lint and deploy refuse it; absent, the options are
   * checked only when the channel starts.
   */
  checkOptions?(channel: ChannelDeclaration): readonly Diagnostic[];
}

/** The registry of linked transports, which also checks a channel's options with its transport. */
export class TransportRegistry extends Registry<TransportFactory> {
  /** What the channel's transport finds wrong in its options (nothing when it is not linked). */
  checkOptions(channel: ChannelDeclaration): readonly Diagnostic[] {
    return this.get(channel.transport)?.checkOptions?.(channel) ?? [];
  }
}

/** Every transport linked into this build (satisfies the package checks' transport catalogue). */
export const transports: TransportRegistry = new TransportRegistry("transport");

/** A fresh sink table holding every registered transport's sinks. */
export function collectSinks(factories: Registry<TransportFactory> = transports): Registry<Sink> {
  const sinks = new Registry<Sink>("sink");
  for (const factory of factories.list()) factory.registerSinks(sinks);
  return sinks;
}

/** The destination's scheme (`POST https://h/p` → `https`), or undefined. */
export function destinationScheme(destination: string): string | undefined {
  const target = destination.replace(/^[A-Z]+\s+/, "");
  const match = /^([a-z][a-z0-9+.-]*):/.exec(target);
  return match?.[1];
}
