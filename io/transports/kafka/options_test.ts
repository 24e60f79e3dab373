import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import type { BoundChannel, TransportContext } from "../../../engine/core/transport.ts";
import { brokerList, connectionOf, readKafkaOptions } from "./options.ts";
import { parseDestination, resolveTarget } from "./sink.ts";
import { outboundHeaders, recordHeaders } from "./_kafka.ts";
// The linked secret schemes tell a tls reference from a file path.
import "../../secrets/mod.ts";

function channel(options: Record<string, unknown>): BoundChannel {
  return {
    tenant: "t",
    deploymentId: "d",
    ackMode: "on-persist",
    declaration: { name: "orders", transport: "kafka", options },
  };
}

Deno.test("kafka options: defaults, one group per channel", () => {
  const { options, problems } = readKafkaOptions(channel({ brokers: "env:B" }));
  assert.deepEqual(problems, []);
  assert.equal(options.topic, "orders");
  assert.equal(options.groupId, "sutra.t.orders");
  assert.equal(options.deadLetterTopic, "orders.dlt");
  assert.equal(options.ordering, "key");
  assert.equal(options.fromBeginning, true);
  assert.equal(options.idempotencyHeader, undefined);
});

Deno.test("kafka options: every mistake is reported, naming the option", () => {
  const { problems } = readKafkaOptions(channel({
    topic: "x",
    ordering: "random",
    "max-in-flight": 0,
    "heartbeat-interval": "PT40S",
    "dead-letter-topic": "x",
    typo: 1,
  }));
  const named = problems.map((p) => p.attributes?.option).sort();
  assert.deepEqual(named, [
    "brokers",
    "dead-letter-topic",
    "heartbeat-interval",
    "max-in-flight",
    "ordering",
    "typo",
  ]);
  assert.ok(problems.every((p) => p.code === "SUTRA.BROKER.OPTIONS_INVALID"));
});

Deno.test("kafka brokers: a literal list is used as is, anything else is resolved as a secret", async () => {
  const context = {
    resolveSecret: (ref: string) => Promise.resolve(ref === "env:B" ? "h1:9092, h2:9092" : ""),
  } as unknown as TransportContext;
  assert.deepEqual(await brokerList(context, "localhost:9092,k2:9093"), [
    "localhost:9092",
    "k2:9093",
  ]);
  assert.deepEqual(await brokerList(context, "env:B"), ["h1:9092", "h2:9092"]);
  await assert.rejects(brokerList(context, "env:EMPTY"), /no brokers/);
});

Deno.test("kafka destinations: kafka://<topic>, optionally naming the channel whose brokers to use", () => {
  assert.deepEqual(parseDestination("kafka://orders.out"), { topic: "orders.out" });
  assert.deepEqual(parseDestination("kafka://t?channel=c1"), { topic: "t", channel: "c1" });
  assert.equal(parseDestination("kafka://"), undefined);
  assert.equal(parseDestination("kafka://a b"), undefined);
  assert.equal(parseDestination("rabbitmq://x/y"), undefined);
});

Deno.test("kafka destinations: a served channel's name stands for its topic on its brokers", () => {
  const events = channel({ brokers: "env:B", topic: "events.v1", consume: false });
  const served = [{ ...events, declaration: { ...events.declaration, name: "events" } }];
  assert.deepEqual(resolveTarget("kafka://events", served), {
    topic: "events.v1",
    channel: "events",
  });
  assert.deepEqual(resolveTarget("kafka://other", served), { topic: "other" });
  assert.deepEqual(resolveTarget("kafka://events?channel=x", served), {
    topic: "events",
    channel: "x",
  });
  assert.equal(readKafkaOptions(events).options.consume, false);
});

Deno.test("kafka headers: the CloudEvents binding's ce_ prefix in and out", () => {
  const inbound = recordHeaders({
    ce_id: Buffer.from("e-1"),
    "Content-Type": "application/json",
    twice: [Buffer.from("a"), Buffer.from("b")],
  });
  assert.deepEqual(inbound, { "ce-id": "e-1", "content-type": "application/json", twice: "b" });
  assert.deepEqual(outboundHeaders({ "ce-type": "t", "x-a": "b" }), { ce_type: "t", "x-a": "b" });
});

Deno.test("kafka options: sasl and tls are read; every mistake in them names the option", () => {
  const good = readKafkaOptions(channel({
    brokers: "env:B",
    sasl: { mechanism: "SCRAM-SHA-512", username: "env:U", password: "secret:kafka-password" },
    tls: true,
  }));
  assert.deepEqual(good.problems, []);
  assert.deepEqual(good.options.sasl, {
    mechanism: "scram-sha-512",
    username: "env:U",
    password: "secret:kafka-password",
  });
  assert.deepEqual(good.options.tls, {});
  const { problems } = readKafkaOptions(channel({
    brokers: "env:B",
    sasl: { mechanism: "gssapi", username: "env:U", pasword: "env:P" },
    tls: { cert: "/etc/kafka/client.pem" },
  }));
  assert.deepEqual(problems.map((p) => p.attributes?.option).sort(), [
    "sasl.mechanism",
    "sasl.password",
    "sasl.pasword",
    "tls.key",
  ]);
  assert.ok(problems.every((p) => p.code === "SUTRA.BROKER.OPTIONS_INVALID"));
  const notBlock = readKafkaOptions(channel({ brokers: "env:B", sasl: "plain", tls: "yes" }));
  assert.deepEqual(notBlock.problems.map((p) => p.attributes?.option), ["sasl", "tls"]);
});

Deno.test("kafka connection: the login is resolved; tls files are read, references resolved", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(`${dir}/ca.pem`, "CA PEM");
    const secrets: Record<string, string> = { "env:U": "user", "env:P": "pass", "env:K": "KEY" };
    const context = {
      resolveSecret: (r: string) => Promise.resolve(secrets[r] ?? r),
    } as unknown as TransportContext;
    const { options } = readKafkaOptions(channel({
      brokers: "k1:9092",
      sasl: { mechanism: "plain", username: "env:U", password: "env:P" },
      tls: { ca: `${dir}/ca.pem`, cert: `${dir}/ca.pem`, key: "env:K" },
    }));
    assert.deepEqual(await connectionOf(context, options), {
      brokers: ["k1:9092"],
      sasl: { mechanism: "plain", username: "user", password: "pass" },
      ssl: { ca: "CA PEM", cert: "CA PEM", key: "KEY" },
    });
    const plain = readKafkaOptions(channel({ brokers: "k1:9092", tls: true })).options;
    assert.deepEqual(await connectionOf(context, plain), { brokers: ["k1:9092"], ssl: true });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
