/**
 * Kafka channels that log in with SASL PLAIN, and over TLS, against the
 * Kafka test double started with a user (and a self-signed certificate)
 * (tier 2: the engine keeps its state on PostgreSQL). A channel with the
 * right credentials consumes and its `q:send` is published over a
 * logged-in producer; with a wrong password the channel does not consume
 * and says why.
 */
import assert from "node:assert/strict";
import { createLogger } from "../../engine/core/log.ts";
import type { BoundChannel, TransportContext } from "../../engine/core/transport.ts";
import { ChannelConsumer } from "../../io/transports/kafka/consumer.ts";
import { readKafkaOptions } from "../../io/transports/kafka/options.ts";
import { instanceStatuses, until } from "../runtime/support.ts";
import { withDeployedServerEngine } from "../support/broker_kill.ts";
import { KafkaTestBroker } from "../support/kafka_broker/mod.ts";
import { tier2Test } from "../support/test_database.ts";
import {
  fixtureTopics,
  KafkaClient,
  kafkaPackage,
  selfSignedCertificate,
  uniqueTopic,
} from "./kafka_support.ts";

const LOGIN = { username: "sutra", password: "s3cret" };
const SASL_ENV = { username: "SUTRA_TEST_KAFKA_USER", password: "SUTRA_TEST_KAFKA_PASSWORD" };

tier2Test("kafka SASL PLAIN: a channel that logs in consumes and publishes", async () => {
  const broker = KafkaTestBroker.start({ users: { [LOGIN.username]: LOGIN.password } });
  const client = new KafkaClient(broker.address, { login: LOGIN });
  try {
    const t = uniqueTopic("sasl");
    await client.topics(fixtureTopics(t));
    await withDeployedServerEngine(
      {
        SUTRA_TEST_KAFKA_BROKERS: broker.address,
        [SASL_ENV.username]: LOGIN.username,
        [SASL_ENV.password]: LOGIN.password,
      },
      await kafkaPackage({ prefix: t, sasl: SASL_ENV }),
      async (engine) => {
        await client.send(`${t}.orders`, [{ value: { orderId: "a" }, key: "a" }]);
        const [confirmed] = await client.read(`${t}.confirmed`, 1);
        assert.equal(JSON.parse(confirmed.value).orderId, "a");
        await until(async () => (await instanceStatuses(engine)).length === 1);
      },
    );
  } finally {
    await client.close();
    await broker.close();
  }
});

tier2Test(
  "kafka SASL PLAIN: a wrong password keeps the channel from consuming, saying why",
  async () => {
    const broker = KafkaTestBroker.start({ users: { [LOGIN.username]: LOGIN.password } });
    const lines: Record<string, unknown>[] = [];
    const logger = createLogger("test", { write: (line) => lines.push(JSON.parse(line)) });
    const channel: BoundChannel = {
      tenant: "t",
      deploymentId: "d",
      ackMode: "on-persist",
      declaration: {
        name: "kf-login",
        transport: "kafka",
        options: {
          brokers: broker.address,
          topic: uniqueTopic("wrong"),
          sasl: { mechanism: "plain", username: "env:USER", password: "env:PASSWORD" },
        },
      },
    };
    const secrets: Record<string, string> = { "env:USER": LOGIN.username, "env:PASSWORD": "wrong" };
    const context: TransportContext = {
      channels: () => [channel],
      deliver: () => Promise.reject(new Error("nothing may be delivered")),
      http: { add: () => {} },
      logger,
      resolveSecret: (reference) => Promise.resolve(secrets[reference] ?? reference),
      payloadCapBytes: 1_024,
      ackHoldMs: 1_000,
    };
    const { options, problems } = readKafkaOptions(channel);
    assert.deepEqual(problems, []);
    const consumer = new ChannelConsumer({ context, channel, options, logger });
    try {
      consumer.start();
      await until(() => Promise.resolve(lines.some((l) => String(l.error).includes("SASL"))));
      const refused = lines.find((l) => String(l.error).includes("SASL"))!;
      assert.equal(refused.code, "SUTRA.BROKER.LOGIN_REFUSED");
      assert.match(String(refused.error), /refused the channel's SASL login \(plain\)/);
      assert.match(String(refused.error), /invalid credentials for user sutra/);
      assert.ok(!lines.some((l) => l.message === "consuming"), "a refused login consumed");
    } finally {
      await consumer.stop();
      await broker.close();
    }
  },
);

tier2Test(
  "kafka over TLS with SASL PLAIN: a channel trusting the broker's CA consumes",
  async () => {
    const dir = await Deno.makeTempDir({ prefix: "sutra-kafka-tls-" });
    const certificate = await selfSignedCertificate(dir);
    const broker = KafkaTestBroker.start({
      users: { [LOGIN.username]: LOGIN.password },
      tls: { cert: certificate.cert, key: certificate.key },
    });
    const client = new KafkaClient(broker.address, { login: LOGIN, ca: certificate.cert });
    try {
      const t = uniqueTopic("tls");
      await client.topics(fixtureTopics(t));
      await withDeployedServerEngine(
        {
          SUTRA_TEST_KAFKA_BROKERS: broker.address,
          [SASL_ENV.username]: LOGIN.username,
          [SASL_ENV.password]: LOGIN.password,
        },
        await kafkaPackage({ prefix: t, sasl: SASL_ENV, tlsCa: certificate.certPath }),
        async (engine) => {
          await client.send(`${t}.orders`, [{ value: { orderId: "t" }, key: "t" }]);
          const [confirmed] = await client.read(`${t}.confirmed`, 1);
          assert.equal(JSON.parse(confirmed.value).orderId, "t");
          await until(async () => (await instanceStatuses(engine)).length === 1);
        },
      );
    } finally {
      await client.close();
      await broker.close();
      await Deno.remove(dir, { recursive: true });
    }
  },
);
