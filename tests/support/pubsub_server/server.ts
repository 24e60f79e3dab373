/**
 * The gRPC face of the Pub/Sub test double: the `google.pubsub.v1`
 * Publisher and Subscriber services, loaded from the `.proto` files that
 * `@google-cloud/pubsub` itself ships, served by `@grpc/grpc-js` on
 * 127.0.0.1 without TLS (as the real emulator is). Only the methods the
 * client library calls for topics, subscriptions, publishing and pulling
 * are implemented; the others answer UNIMPLEMENTED.
 *
 * @module
 */
import * as grpc from "@grpc/grpc-js";
import * as protoLoader from "@grpc/proto-loader";
import { Buffer } from "node:buffer";
import { type Delivery, PubSubState } from "./broker.ts";

const EXPIRY_SWEEP_MS = 100;

/** Where the client package keeps its protos (and google-gax the google/api ones they import). */
function protoDirs(): string[] {
  const root = new URL("../../../node_modules/@google-cloud/pubsub", import.meta.url).pathname;
  const pkg = Deno.realPathSync(root);
  return [`${pkg}/build/protos`, `${pkg}/../../google-gax/build/protos`];
}

// deno-lint-ignore no-explicit-any
type Any = any;

let services: { publisher: grpc.ServiceDefinition; subscriber: grpc.ServiceDefinition } | undefined;

function loadServices() {
  if (services) return services;
  const definition = protoLoader.loadSync("google/pubsub/v1/pubsub.proto", {
    includeDirs: protoDirs(),
    keepCase: true,
    longs: Number,
    enums: String,
    defaults: true,
    oneofs: true,
  });
  const v1 = (grpc.loadPackageDefinition(definition) as Any).google.pubsub.v1;
  services = { publisher: v1.Publisher.service, subscriber: v1.Subscriber.service };
  return services;
}

/** One open StreamingPull call. */
interface PullStream {
  readonly id: string;
  readonly subscription: string;
  readonly call: grpc.ServerDuplexStream<Any, Any>;
  deadlineSeconds: number;
  maxOutstanding: number;
}

/** Answers a unary call from `work`, mapping a thrown BrokerError to its status. */
function unary(work: (request: Any) => unknown) {
  return (call: grpc.ServerUnaryCall<Any, Any>, callback: grpc.sendUnaryData<Any>) => {
    try {
      callback(null, work(call.request) ?? {});
    } catch (error) {
      callback(statusOf(error));
    }
  };
}

function statusOf(error: unknown): Partial<grpc.StatusObject> {
  const e = error as { code?: number; message?: string };
  return { code: e.code ?? grpc.status.INTERNAL, details: e.message ?? String(error) };
}

function wire(d: Delivery) {
  return {
    ack_id: d.ack_id,
    delivery_attempt: d.delivery_attempt,
    message: {
      message_id: d.message.message_id,
      data: Buffer.from(d.message.data),
      attributes: d.message.attributes,
      ordering_key: d.message.ordering_key,
      publish_time: d.message.publish_time,
    },
  };
}

/**
 * A grpc-js server over one {@link PubSubState}. It can be stopped and
 * started again on the same port with its state kept (a server outage).
 */
export class PubSubGrpcServer {
  readonly state = new PubSubState();
  readonly #streams = new Map<string, PullStream>();
  #server: grpc.Server | undefined;
  #sweep: ReturnType<typeof setInterval> | undefined;
  #streamSeq = 0;
  #port = 0;

  constructor() {
    this.state.changed = () => this.#dispatch();
  }

  /** The bound port (0 before the first start). */
  get port(): number {
    return this.#port;
  }

  /** Binds 127.0.0.1 (the previous port when restarting, else a free one). */
  async start(port = this.#port): Promise<number> {
    if (this.#server) return this.#port;
    const { publisher, subscriber } = loadServices();
    const server = new grpc.Server();
    server.addService(publisher, this.#publisher());
    server.addService(subscriber, this.#subscriber());
    this.#port = await new Promise<number>((resolve, reject) =>
      server.bindAsync(
        `127.0.0.1:${port}`,
        grpc.ServerCredentials.createInsecure(),
        (error, bound) => error ? reject(error) : resolve(bound),
      )
    );
    this.#server = server;
    this.#sweep = setInterval(() => this.state.expire(), EXPIRY_SWEEP_MS);
    return this.#port;
  }

  /** Drops every connection at once (the state stays, leases keep running out). */
  stop(): Promise<void> {
    const server = this.#server;
    this.#server = undefined;
    clearInterval(this.#sweep);
    // The open streams die with their connections, as when a server goes away.
    this.#streams.clear();
    if (!server) return Promise.resolve();
    server.forceShutdown();
    return Promise.resolve();
  }

  #publisher(): grpc.UntypedServiceImplementation {
    const s = this.state;
    return {
      CreateTopic: unary((r) => ({ name: s.createTopic(r.name).name, labels: r.labels })),
      GetTopic: unary((r) => ({ name: s.topic(r.topic).name })),
      DeleteTopic: unary((r) => s.deleteTopic(r.topic)),
      Publish: unary((r) => ({
        message_ids: s.publish(
          r.topic,
          (r.messages as Any[]).map((m) => ({
            data: new Uint8Array(m.data),
            attributes: m.attributes ?? {},
            ordering_key: m.ordering_key ?? "",
          })),
        ),
      })),
      ListTopicSubscriptions: unary((r) => ({
        subscriptions: [...s.topic(r.topic).subscriptions],
      })),
    };
  }

  #subscriber(): grpc.UntypedServiceImplementation {
    const s = this.state;
    const describe = (name: string) => {
      const sub = s.subscription(name);
      return {
        name: sub.name,
        topic: sub.topic,
        ack_deadline_seconds: sub.ackDeadlineSeconds,
        enable_message_ordering: sub.orderingEnabled,
        ...(sub.deadLetter
          ? {
            dead_letter_policy: {
              dead_letter_topic: sub.deadLetter.topic,
              max_delivery_attempts: sub.deadLetter.maxDeliveryAttempts,
            },
          }
          : {}),
      };
    };
    return {
      CreateSubscription: unary((r) => {
        const dl = r.dead_letter_policy;
        s.createSubscription({
          name: r.name,
          topic: r.topic,
          ackDeadlineSeconds: r.ack_deadline_seconds ?? 0,
          orderingEnabled: r.enable_message_ordering === true,
          ...(dl && dl.dead_letter_topic
            ? {
              deadLetter: {
                topic: dl.dead_letter_topic,
                maxDeliveryAttempts: dl.max_delivery_attempts || 5,
              },
            }
            : {}),
        });
        return describe(r.name);
      }),
      GetSubscription: unary((r) => describe(r.subscription)),
      DeleteSubscription: unary((r) => s.deleteSubscription(r.subscription)),
      Acknowledge: unary((r) => s.acknowledge(r.ack_ids)),
      ModifyAckDeadline: unary((r) => s.modifyDeadline(r.ack_ids, r.ack_deadline_seconds)),
      Pull: (call: grpc.ServerUnaryCall<Any, Any>, callback: grpc.sendUnaryData<Any>) => {
        void this.#pull(call.request).then(
          (received) => callback(null, { received_messages: received.map(wire) }),
          (error) => callback(statusOf(error)),
        );
      },
      StreamingPull: (call: grpc.ServerDuplexStream<Any, Any>) => this.#streamingPull(call),
    };
  }

  /** Unary pull: what is deliverable now, else waits a little for something to arrive. */
  async #pull(r: Any): Promise<Delivery[]> {
    const sub = this.state.subscription(r.subscription);
    const max = Math.max(1, r.max_messages || 1);
    for (let waited = 0; waited < 1_000; waited += 20) {
      const got = this.state.take(sub.name, "pull", max, sub.ackDeadlineSeconds);
      if (got.length > 0 || r.return_immediately) return got;
      await new Promise((resolve) => setTimeout(resolve, 20));
      if (!this.#server) return [];
    }
    return [];
  }

  #streamingPull(call: grpc.ServerDuplexStream<Any, Any>): void {
    let stream: PullStream | undefined;
    const close = () => {
      if (stream) this.#streams.delete(stream.id);
    };
    call.on("data", (r: Any) => {
      try {
        if (!stream) {
          const sub = this.state.subscription(r.subscription);
          stream = {
            id: `stream-${++this.#streamSeq}`,
            subscription: sub.name,
            call,
            deadlineSeconds: r.stream_ack_deadline_seconds || sub.ackDeadlineSeconds,
            maxOutstanding: Number(r.max_outstanding_messages) || 1_000,
          };
          this.#streams.set(stream.id, stream);
          call.write({
            received_messages: [],
            subscription_properties: {
              exactly_once_delivery_enabled: false,
              message_ordering_enabled: sub.orderingEnabled,
            },
          });
        } else if (r.stream_ack_deadline_seconds) {
          stream.deadlineSeconds = r.stream_ack_deadline_seconds;
        }
        if (r.ack_ids?.length) this.state.acknowledge(r.ack_ids);
        (r.modify_deadline_ack_ids as string[] | undefined)?.forEach((ackId, i) =>
          this.state.modifyDeadline([ackId], r.modify_deadline_seconds[i])
        );
        this.#dispatch();
      } catch (error) {
        close();
        call.emit("error", statusOf(error));
      }
    });
    call.on("end", () => {
      close();
      call.end();
    });
    call.on("cancelled", close);
    call.on("error", close);
  }

  /** Hands deliverable messages to the open streams, each up to its flow-control window. */
  #dispatch(): void {
    for (const stream of this.#streams.values()) {
      if (!this.state.subscriptions.has(stream.subscription)) continue;
      const room = Math.min(stream.maxOutstanding - this.state.heldBy(stream.id), 1_000);
      if (room <= 0) continue;
      const got = this.state.take(stream.subscription, stream.id, room, stream.deadlineSeconds);
      if (got.length > 0) stream.call.write({ received_messages: got.map(wire) });
    }
  }
}
