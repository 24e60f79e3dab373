/**
 * The in-memory state of the Pub/Sub test double: topics, subscriptions,
 * the messages each subscription still owes, and the leases of messages
 * handed out and not yet acknowledged. It knows nothing about gRPC
 * (`server.ts` maps the RPCs onto it).
 *
 * What it models, because the transport depends on it:
 *
 * - a lease per delivery, with its own ack id; a lease whose deadline
 *   passes, or that is nacked (deadline 0), puts the message back and it is
 *   delivered again under a new ack id; an ack or deadline change naming an
 *   ack id that is no longer current is ignored (as the real service does);
 * - delivery attempts, counted per subscription and reported only when the
 *   subscription has a dead-letter policy; past `max_delivery_attempts` the
 *   message is forwarded to the dead-letter topic with the service's
 *   `CloudPubSubDeadLetterSource*` attributes instead of being redelivered;
 * - ordering keys on a subscription with message ordering: at most one
 *   message per key is out at a time, and the next one is the oldest;
 * - per-stream flow control (`max_outstanding_messages`).
 *
 * @module
 */

/** A message as published (fields in the proto's snake_case). */
export interface StoredMessage {
  readonly message_id: string;
  readonly data: Uint8Array;
  readonly attributes: Readonly<Record<string, string>>;
  readonly ordering_key: string;
  readonly publish_time: { seconds: number; nanos: number };
  /** Publish order across the server, for ordered redelivery. */
  readonly seq: number;
}

/** A topic. */
export interface TopicState {
  readonly name: string;
  readonly subscriptions: Set<string>;
}

/** A subscription's settings (as created) and what it still owes. */
export interface SubscriptionState {
  readonly name: string;
  readonly topic: string;
  readonly ackDeadlineSeconds: number;
  readonly orderingEnabled: boolean;
  readonly deadLetter?: { readonly topic: string; readonly maxDeliveryAttempts: number };
  /** Messages waiting for a delivery, oldest first (by `seq`). */
  readonly pending: StoredMessage[];
  /** Deliveries so far per message id (the next delivery is this + 1). */
  readonly attempts: Map<string, number>;
  /** Ordering keys with a message out. */
  readonly busyKeys: Set<string>;
}

/** One message handed out and not yet settled. */
export interface Lease {
  readonly ackId: string;
  readonly subscription: string;
  readonly message: StoredMessage;
  /** Which receiver holds it (a stream id, or `pull`). */
  readonly holder: string;
  deadline: number;
}

/** A delivery as it goes out on the wire. */
export interface Delivery {
  readonly ack_id: string;
  readonly message: StoredMessage;
  readonly delivery_attempt: number;
}

/** A failure with a gRPC status code (5 NOT_FOUND, 6 ALREADY_EXISTS, 3 INVALID_ARGUMENT). */
export class BrokerError extends Error {
  constructor(readonly code: number, message: string) {
    super(message);
  }
}

/** Counters a test can read. */
export interface SubscriptionStats {
  readonly pending: number;
  readonly outstanding: number;
  readonly delivered: number;
  readonly acked: number;
  readonly deadLettered: number;
}

const NOT_FOUND = 5;
const ALREADY_EXISTS = 6;
const INVALID_ARGUMENT = 3;

/** Topics, subscriptions and leases; `changed` is called whenever something may be deliverable. */
export class PubSubState {
  readonly topics = new Map<string, TopicState>();
  readonly subscriptions = new Map<string, SubscriptionState>();
  readonly leases = new Map<string, Lease>();
  readonly #stats = new Map<string, { delivered: number; acked: number; deadLettered: number }>();
  readonly #held = new Map<string, number>();
  #seq = 0;
  #ackSeq = 0;
  changed: () => void = () => {};

  createTopic(name: string): TopicState {
    checkName(name, "topics");
    if (this.topics.has(name)) throw new BrokerError(ALREADY_EXISTS, `Topic already exists`);
    const topic = { name, subscriptions: new Set<string>() };
    this.topics.set(name, topic);
    return topic;
  }

  topic(name: string): TopicState {
    const topic = this.topics.get(name);
    if (!topic) throw new BrokerError(NOT_FOUND, `Topic not found: ${name}`);
    return topic;
  }

  deleteTopic(name: string): void {
    this.topic(name);
    this.topics.delete(name);
  }

  createSubscription(o: {
    name: string;
    topic: string;
    ackDeadlineSeconds: number;
    orderingEnabled: boolean;
    deadLetter?: { topic: string; maxDeliveryAttempts: number };
  }): SubscriptionState {
    checkName(o.name, "subscriptions");
    if (this.subscriptions.has(o.name)) {
      throw new BrokerError(ALREADY_EXISTS, `Subscription already exists`);
    }
    const topic = this.topic(o.topic);
    const dl = o.deadLetter;
    if (dl && (dl.maxDeliveryAttempts < 5 || dl.maxDeliveryAttempts > 100)) {
      throw new BrokerError(INVALID_ARGUMENT, "max_delivery_attempts must be between 5 and 100");
    }
    const deadline = o.ackDeadlineSeconds === 0 ? 10 : o.ackDeadlineSeconds;
    if (deadline < 10 || deadline > 600) {
      throw new BrokerError(INVALID_ARGUMENT, "ack_deadline_seconds must be between 10 and 600");
    }
    const sub: SubscriptionState = {
      name: o.name,
      topic: o.topic,
      ackDeadlineSeconds: deadline,
      orderingEnabled: o.orderingEnabled,
      ...(dl ? { deadLetter: dl } : {}),
      pending: [],
      attempts: new Map(),
      busyKeys: new Set(),
    };
    this.subscriptions.set(o.name, sub);
    this.#stats.set(o.name, { delivered: 0, acked: 0, deadLettered: 0 });
    topic.subscriptions.add(o.name);
    return sub;
  }

  subscription(name: string): SubscriptionState {
    const sub = this.subscriptions.get(name);
    if (!sub) throw new BrokerError(NOT_FOUND, `Subscription does not exist: ${name}`);
    return sub;
  }

  deleteSubscription(name: string): void {
    const sub = this.subscription(name);
    this.subscriptions.delete(name);
    this.topics.get(sub.topic)?.subscriptions.delete(name);
    for (const lease of [...this.leases.values()]) {
      if (lease.subscription === name) this.#drop(lease);
    }
  }

  /** Appends messages to every subscription of `topic`; answers their ids. */
  publish(
    topicName: string,
    messages: readonly {
      data: Uint8Array;
      attributes: Record<string, string>;
      ordering_key: string;
    }[],
  ): string[] {
    const topic = this.topic(topicName);
    const now = Date.now();
    const ids: string[] = [];
    for (const m of messages) {
      const seq = ++this.#seq;
      const stored: StoredMessage = {
        message_id: String(seq),
        data: m.data,
        attributes: { ...m.attributes },
        ordering_key: m.ordering_key ?? "",
        publish_time: { seconds: Math.floor(now / 1000), nanos: (now % 1000) * 1e6 },
        seq,
      };
      for (const name of topic.subscriptions) this.subscriptions.get(name)?.pending.push(stored);
      ids.push(stored.message_id);
    }
    this.changed();
    return ids;
  }

  /**
   * Hands out up to `max` deliverable messages of `subscription` to `holder`,
   * leased for `deadlineSeconds`.
   */
  take(subscription: string, holder: string, max: number, deadlineSeconds: number): Delivery[] {
    const sub = this.subscription(subscription);
    const out: Delivery[] = [];
    const keep: StoredMessage[] = [];
    for (const message of sub.pending) {
      const key = sub.orderingEnabled ? message.ordering_key : "";
      if (out.length >= max || (key !== "" && sub.busyKeys.has(key))) {
        keep.push(message);
        continue;
      }
      if (key !== "") sub.busyKeys.add(key);
      const attempt = (sub.attempts.get(message.message_id) ?? 0) + 1;
      sub.attempts.set(message.message_id, attempt);
      const ackId = `${subscription}#${message.message_id}#${++this.#ackSeq}`;
      this.#held.set(holder, (this.#held.get(holder) ?? 0) + 1);
      this.leases.set(ackId, {
        ackId,
        subscription,
        message,
        holder,
        deadline: Date.now() + deadlineSeconds * 1000,
      });
      this.#stats.get(subscription)!.delivered++;
      out.push({
        ack_id: ackId,
        message,
        // The service reports attempts only where a dead-letter policy counts them.
        delivery_attempt: sub.deadLetter ? attempt : 0,
      });
    }
    sub.pending.splice(0, sub.pending.length, ...keep);
    return out;
  }

  /** Acknowledges the current leases among `ackIds` (stale ids are ignored). */
  acknowledge(ackIds: readonly string[]): void {
    for (const ackId of ackIds) {
      const lease = this.leases.get(ackId);
      if (!lease) continue;
      this.#drop(lease);
      const sub = this.subscriptions.get(lease.subscription);
      if (!sub) continue;
      sub.busyKeys.delete(lease.message.ordering_key);
      sub.attempts.delete(lease.message.message_id);
      this.#stats.get(sub.name)!.acked++;
    }
    this.changed();
  }

  /** Moves the deadline of current leases; 0 hands them back at once (a nack). */
  modifyDeadline(ackIds: readonly string[], seconds: number): void {
    for (const ackId of ackIds) {
      const lease = this.leases.get(ackId);
      if (!lease) continue;
      if (seconds <= 0) this.#release(lease);
      else lease.deadline = Date.now() + seconds * 1000;
    }
    this.changed();
  }

  /** Releases every lease whose deadline passed (or every lease of `subscription`, when given). */
  expire(subscription?: string): number {
    const now = Date.now();
    let n = 0;
    for (const lease of [...this.leases.values()]) {
      const due = subscription === undefined
        ? lease.deadline <= now
        : lease.subscription === subscription;
      if (due) {
        this.#release(lease);
        n++;
      }
    }
    if (n > 0) this.changed();
    return n;
  }

  stats(subscription: string): SubscriptionStats {
    const sub = this.subscription(subscription);
    const counts = this.#stats.get(subscription)!;
    let outstanding = 0;
    for (const lease of this.leases.values()) {
      if (lease.subscription === subscription) outstanding++;
    }
    return { pending: sub.pending.length, outstanding, ...counts };
  }

  /** How many leases `holder` has out. */
  heldBy(holder: string): number {
    return this.#held.get(holder) ?? 0;
  }

  #drop(lease: Lease): void {
    this.leases.delete(lease.ackId);
    const n = (this.#held.get(lease.holder) ?? 1) - 1;
    if (n > 0) this.#held.set(lease.holder, n);
    else this.#held.delete(lease.holder);
  }

  /** A lease ends without an ack: redeliver in publish order, or dead-letter past the policy. */
  #release(lease: Lease): void {
    this.#drop(lease);
    const sub = this.subscriptions.get(lease.subscription);
    if (!sub) return;
    const message = lease.message;
    sub.busyKeys.delete(message.ordering_key);
    const attempts = sub.attempts.get(message.message_id) ?? 0;
    const dl = sub.deadLetter;
    if (dl && attempts >= dl.maxDeliveryAttempts && this.topics.has(dl.topic)) {
      sub.attempts.delete(message.message_id);
      this.#stats.get(sub.name)!.deadLettered++;
      const project = sub.name.split("/")[1] ?? "";
      this.publish(dl.topic, [{
        data: message.data,
        ordering_key: "",
        attributes: {
          ...message.attributes,
          CloudPubSubDeadLetterSourceDeliveryCount: String(attempts),
          CloudPubSubDeadLetterSourceSubscription: sub.name.split("/").pop() ?? sub.name,
          CloudPubSubDeadLetterSourceSubscriptionProject: project,
          CloudPubSubDeadLetterSourceTopicPublishTime: new Date(
            message.publish_time.seconds * 1000 + message.publish_time.nanos / 1e6,
          ).toISOString(),
        },
      }]);
      return;
    }
    // Back in publish order, so an ordering key's next message is still its oldest.
    let i = sub.pending.length;
    while (i > 0 && sub.pending[i - 1].seq > message.seq) i--;
    sub.pending.splice(i, 0, message);
  }
}

function checkName(name: string, kind: "topics" | "subscriptions"): void {
  if (!new RegExp(`^projects/[^/]+/${kind}/[A-Za-z][\\w.~+%-]{2,254}$`).test(name)) {
    throw new BrokerError(INVALID_ARGUMENT, `Invalid resource name given (name=${name})`);
  }
}
