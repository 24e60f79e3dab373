/**
 * Helpers for the tier-2 AMQP 1.0 tests, on RabbitMQ's AMQP 1.0 plugin (the
 * broker named by `SUTRA_TEST_RABBITMQ_URL`; see `rabbitmq.ts` for the
 * skip/require rules and the AMQP 0-9-1 client the tests declare and
 * inspect queues with):
 * an AMQP 1.0 client that sends with settlement and takes messages, the
 * `amqp10` test package sealed for one test, and a TCP proxy that cuts the
 * engine's broker connections. RabbitMQ 3.10's `rabbitmqctl` does not see
 * AMQP 1.0 connections (`list_amqp10_connections` answers nothing and
 * `close_all_user_connections` leaves them open), so a test drops them at
 * the proxy instead.
 *
 * @module
 */
import { Buffer } from "node:buffer";
import net from "node:net";
import assert from "node:assert/strict";
import rhea from "rhea";
import type { EventContext, Message } from "rhea";
import { Amqp10Connection, DURABLE_TERMINUS } from "../../io/transports/amqp10/_connection.ts";

import { rabbitmqctl } from "./rabbitmq.ts";
import { sealFiles } from "./fixture_package.ts";

export { Broker, rabbitTest as amqp10Test, uniquePrefix } from "./rabbitmq.ts";

/** The variable the test package's channels read their connection URL from. */
export const URL_VARIABLE = "SUTRA_TEST_AMQP10_URL";

/** A JSON message with a data section, as most senders write one. */
export function jsonMessage(body: unknown, properties: Partial<Message> = {}): Message {
  const bytes = typeof body === "string" ? body : JSON.stringify(body);
  return {
    body: rhea.message.data_section(Buffer.from(bytes)),
    content_type: "application/json",
    durable: true,
    ...properties,
  };
}

/** The body of a received message as text. */
export function textOf(message: Message): string {
  const body = message.body as { content?: Uint8Array } | Uint8Array | string;
  if (typeof body === "string") return body;
  const bytes = body instanceof Uint8Array ? body : body.content ?? new Uint8Array();
  return new TextDecoder().decode(bytes);
}

/** A test's own AMQP 1.0 client. */
export class Amqp10Client {
  private constructor(readonly connection: Amqp10Connection) {}

  /** Connects to `url`. */
  static async open(url: string): Promise<Amqp10Client> {
    return new Amqp10Client(await Amqp10Connection.open(url));
  }

  /** Sends and waits until the broker accepted it. */
  async send(address: string, message: Message): Promise<void> {
    const outcome = await this.connection.send(address, message);
    assert.equal(outcome.kind, "accepted", JSON.stringify(outcome));
  }

  /** Receives (and accepts) `count` messages from `address`, waiting up to `timeoutMs`. */
  async take(address: string, count: number, timeoutMs = 10_000): Promise<Message[]> {
    const got: Message[] = [];
    const receiver = this.connection.receiver({
      source: { address, durable: DURABLE_TERMINUS },
      autoaccept: true,
      credit_window: 0,
    });
    receiver.once("receiver_open", () => receiver.add_credit(count));
    try {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(
          () =>
            reject(new Error(`${address}: ${got.length} of ${count} messages in ${timeoutMs} ms`)),
          timeoutMs,
        );
        receiver.on("message", (event: EventContext) => {
          got.push(event.message!);
          if (got.length === count) {
            clearTimeout(timer);
            resolve();
          }
        });
      });
    } finally {
      receiver.close();
    }
    return got;
  }

  /** Closes the connection. */
  close(): Promise<void> {
    return this.connection.close();
  }
}

/** Options for {@link amqp10Package}. */
export interface Amqp10PackageOptions {
  /** The unique queue prefix. */
  readonly prefix: string;
  readonly ackMode?: "on-persist" | "on-complete";
  /** `a10-orders` consumed on one replica at a time, with a two-second lease. */
  readonly singleton?: boolean;
}

/** The queues the package uses under `prefix`, each to be declared before the engine starts. */
export function packageQueues(prefix: string): string[] {
  return ["orders", "decisions", "strict", "rejected", "confirmed", "replies", "dlq"].map((q) =>
    `${prefix}.${q}`
  );
}

/**
 * The test package: `a10-orders` (dead-letter address `<prefix>.dlq`, three
 * deliveries) starts an order that sends a confirmation to
 * `<prefix>.confirmed`, then answers with a `q:reply` at once, or, when the
 * order says `hold`, parks until a decision on `a10-decisions` (two
 * deliveries) completes it (`ok`) or fails it. `a10-strict` has no
 * dead-letter address (its poison is rejected) and no process.
 */
export async function amqp10Package(o: Amqp10PackageOptions): Promise<Uint8Array> {
  const q = o.prefix;
  const channels = `channels:
  - name: a10-orders
    transport: amqp10
    codec: urn:sutra:codec:json
    ack-mode: ${o.ackMode ?? "on-persist"}
    singleton: ${o.singleton ?? false}
    options:
      url: env:${URL_VARIABLE}
      address: /queue/${q}.orders
      lease-ttl: PT2S
      dead-letter-address: /queue/${q}.dlq
      max-deliveries: 3
      prefetch: 16
  - name: a10-decisions
    transport: amqp10
    codec: urn:sutra:codec:json
    options:
      url: env:${URL_VARIABLE}
      address: /queue/${q}.decisions
      dead-letter-address: /queue/${q}.dlq
      max-deliveries: 2
  - name: a10-strict
    transport: amqp10
    codec: urn:sutra:codec:json
    options:
      url: env:${URL_VARIABLE}
      address: /queue/${q}.strict
`;
  const bpmn = `<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL"
                  xmlns:q="urn:sutra:q:1.0" id="amqp10-channel" targetNamespace="urn:test:amqp10">
  <bpmn:error id="Refused" errorCode="REFUSED"/>
  <bpmn:process id="orders" isExecutable="true">
    <bpmn:startEvent id="OrderIn">
      <bpmn:extensionElements>
        <q:source channel="a10-orders" name="order"/>
        <q:alias name="orderId" expression="order.orderId"/>
      </bpmn:extensionElements>
    </bpmn:startEvent>
    <bpmn:sequenceFlow id="o1" sourceRef="OrderIn" targetRef="Confirm"/>
    <bpmn:intermediateThrowEvent id="Confirm">
      <bpmn:extensionElements><q:send destination="amqp10://a10-orders/queue/${q}.confirmed"/></bpmn:extensionElements>
      <bpmn:dataInput id="confirmBody"/>
      <bpmn:dataInputAssociation id="c1">
        <bpmn:targetRef>confirmBody</bpmn:targetRef>
        <bpmn:transformation>{orderId: order.orderId, confirmed: true}</bpmn:transformation>
      </bpmn:dataInputAssociation>
      <bpmn:inputSet/>
      <bpmn:messageEventDefinition/>
    </bpmn:intermediateThrowEvent>
    <bpmn:sequenceFlow id="o2" sourceRef="Confirm" targetRef="Route"/>
    <bpmn:exclusiveGateway id="Route" default="o4"/>
    <bpmn:sequenceFlow id="o3" sourceRef="Route" targetRef="Hold">
      <bpmn:conditionExpression>order.hold = true</bpmn:conditionExpression>
    </bpmn:sequenceFlow>
    <bpmn:sequenceFlow id="o4" sourceRef="Route" targetRef="Answer"/>
    <bpmn:userTask id="Hold">
      <bpmn:extensionElements>
        <q:source channel="a10-decisions" name="decision">
          <q:alias name="orderId" expression="decision.orderId"/>
        </q:source>
      </bpmn:extensionElements>
    </bpmn:userTask>
    <bpmn:sequenceFlow id="o5" sourceRef="Hold" targetRef="Decide"/>
    <bpmn:exclusiveGateway id="Decide" default="o7"/>
    <bpmn:sequenceFlow id="o6" sourceRef="Decide" targetRef="Refuse">
      <bpmn:conditionExpression>decision.ok = false</bpmn:conditionExpression>
    </bpmn:sequenceFlow>
    <bpmn:sequenceFlow id="o7" sourceRef="Decide" targetRef="Done"/>
    <bpmn:endEvent id="Done"/>
    <bpmn:endEvent id="Refuse"><bpmn:errorEventDefinition errorRef="Refused"/></bpmn:endEvent>
    <bpmn:endEvent id="Answer">
      <bpmn:extensionElements><q:reply contentType="application/json"/></bpmn:extensionElements>
      <bpmn:dataInput id="answerOut"/>
      <bpmn:dataInputAssociation id="a1">
        <bpmn:targetRef>answerOut</bpmn:targetRef>
        <bpmn:transformation>{orderId: order.orderId, accepted: true}</bpmn:transformation>
      </bpmn:dataInputAssociation>
      <bpmn:messageEventDefinition/>
    </bpmn:endEvent>
  </bpmn:process>
</bpmn:definitions>
`;
  const pkg = `labels:
  tenant: test
  module: amqp10-channel
  version: 1.0.0
engine:
  minContract: 1
`;
  const encode = (text: string) => new TextEncoder().encode(text);
  const files = new Map<string, Uint8Array>([
    ["package.yaml", encode(pkg)],
    ["channels.yaml", encode(channels)],
    ["bpmn/orders.bpmn", encode(bpmn)],
  ]);
  return await sealFiles(files);
}

/** A TCP proxy in front of the broker whose connections a test can drop at once. */
export class CutProxy {
  readonly #server: net.Server;
  readonly #pairs = new Set<[net.Socket, net.Socket]>();
  /** Connections the proxy has accepted so far. */
  accepted = 0;

  private constructor(server: net.Server) {
    this.#server = server;
  }

  /** Listens on a free loopback port and forwards to the broker of `brokerUrl`. */
  static async start(brokerUrl: string): Promise<CutProxy> {
    const target = new URL(brokerUrl);
    const server = net.createServer();
    const proxy = new CutProxy(server);
    server.on("connection", (client: net.Socket) => {
      proxy.accepted++;
      const upstream = net.connect(Number(target.port || 5672), target.hostname);
      const pair: [net.Socket, net.Socket] = [client, upstream];
      proxy.#pairs.add(pair);
      const drop = () => {
        proxy.#pairs.delete(pair);
        client.destroy();
        upstream.destroy();
      };
      for (const socket of pair) {
        socket.on("error", drop);
        socket.on("close", drop);
      }
      client.pipe(upstream);
      upstream.pipe(client);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    return proxy;
  }

  /** The broker URL with the proxy's address in place of the broker's. */
  urlFor(brokerUrl: string): string {
    const url = new URL(brokerUrl);
    url.hostname = "127.0.0.1";
    url.port = String((this.#server.address() as net.AddressInfo).port);
    return url.toString();
  }

  /** Drops every open connection (both sides), as a broker that went away would. */
  cutAll(): number {
    const pairs = [...this.#pairs];
    for (const [client, upstream] of pairs) {
      client.destroy();
      upstream.destroy();
    }
    return pairs.length;
  }

  /** Drops everything and stops listening. */
  async close(): Promise<void> {
    this.cutAll();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}

/** The exchange RabbitMQ dead-letters what `a10-strict` rejects to (by the {@link rejectPolicy}). */
export const REJECTED_EXCHANGE = "amq.fanout";

let policy: Promise<string> | undefined;

/**
 * A broker policy dead-lettering what is rejected on the test package's
 * `<prefix>.strict` queues to {@link REJECTED_EXCHANGE}. A policy, because
 * RabbitMQ 3.10's AMQP 1.0 plugin declares the queue it attaches to without
 * arguments, and refuses the link when the queue was declared with
 * `x-dead-letter-*` arguments. Set once per test process.
 */
export function rejectPolicy(): Promise<string> {
  policy ??= rabbitmqctl(
    "set_policy",
    "--apply-to",
    "queues",
    "--priority",
    "10",
    "sutra-test-amqp10-strict",
    "^sutra-test-a10-.*\\.strict$",
    JSON.stringify({ "dead-letter-exchange": REJECTED_EXCHANGE }),
  );
  return policy;
}
