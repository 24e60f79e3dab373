/**
 * The amqp10 transport against RabbitMQ's AMQP 1.0 plugin (tier 2): both
 * ack modes, request/reply, the settled outbound send, poison messages to
 * the dead-letter address, the redelivery budget, and the broker
 * connection dropped under the consumer.
 */
import assert from "node:assert/strict";
import type { Message } from "rhea";
import type { RunningEngine } from "../../engine/runtime/mod.ts";
import { bootEngine, instanceStatuses, until } from "../runtime/support.ts";
import { withServerDatabase } from "../support/test_database.ts";
import {
  Amqp10Client,
  amqp10Package,
  type Amqp10PackageOptions,
  amqp10Test,
  Broker,
  CutProxy,
  jsonMessage,
  packageQueues,
  REJECTED_EXCHANGE,
  rejectPolicy,
  textOf,
  uniquePrefix,
  URL_VARIABLE,
} from "../support/amqp10.ts";

interface Ctx {
  readonly engine: RunningEngine;
  readonly broker: Broker;
  readonly client: Amqp10Client;
  readonly q: string;
}

/** Declares the queues, boots an engine with the package deployed, runs `run`, cleans up. */
async function withAmqp10(
  url: string,
  label: string,
  options: Omit<Amqp10PackageOptions, "prefix"> & {
    engineUrl?: string;
    env?: Readonly<Record<string, string>>;
  },
  run: (ctx: Ctx) => Promise<void>,
): Promise<void> {
  const q = uniquePrefix(`a10-${label}`);
  const broker = await Broker.open(url);
  for (const name of packageQueues(q)) await broker.queue(name);
  const client = await Amqp10Client.open(url);
  try {
    await withServerDatabase(async (_db, target) => {
      const engine = await bootEngine({
        url: target.url,
        schema: target.schema,
        env: {
          [URL_VARIABLE]: options.engineUrl ?? url,
          SUTRA_OUTBOX_POLL_INTERVAL: "PT0.05S",
          ...options.env,
        },
      });
      try {
        await engine.deployments.deploy(await amqp10Package({ prefix: q, ...options }));
        await run({ engine, broker, client, q });
      } finally {
        await engine.stop();
      }
    });
  } finally {
    await client.close();
    await broker.close(packageQueues(q));
  }
}

function property(message: Message, name: string): unknown {
  return message.application_properties?.[name];
}

amqp10Test(
  "amqp10 on-persist: each message runs once, its send is accepted, all accepted",
  async (url) => {
    await withAmqp10(
      url,
      "persist",
      { ackMode: "on-persist" },
      async ({ engine, broker, client, q }) => {
        for (const id of ["a", "b", "c"]) {
          await client.send(
            `/queue/${q}.orders`,
            jsonMessage({ orderId: id }, { message_id: `m-${id}` }),
          );
        }
        // The same message id again: inbox dedup absorbs it.
        await client.send(
          `/queue/${q}.orders`,
          jsonMessage({ orderId: "a" }, { message_id: "m-a" }),
        );
        const confirmed = await client.take(`/queue/${q}.confirmed`, 3);
        assert.deepEqual(confirmed.map((m) => JSON.parse(textOf(m)).orderId).sort(), [
          "a",
          "b",
          "c",
        ]);
        // The sink sends the outbox row's idempotency key as the AMQP message-id.
        assert.ok(confirmed.every((m) => typeof m.message_id === "string" && m.message_id !== ""));
        assert.equal(new Set(confirmed.map((m) => m.message_id)).size, 3);
        await until(async () => (await instanceStatuses(engine)).length === 3);
        await until(async () => {
          const { rows } = await engine.database.query("select 1 from outbox");
          return rows.length === 0;
        });
        await engine.stop();
        // Nothing unsettled came back when the engine's connection closed, nothing was sent twice.
        assert.equal(await broker.ready(`${q}.orders`), 0);
        assert.equal(await broker.ready(`${q}.confirmed`), 0);
      },
    );
  },
);

amqp10Test(
  "amqp10 on-complete: accepted when the instance ends; a failed one is dead-lettered",
  async (url) => {
    await withAmqp10(
      url,
      "complete",
      { ackMode: "on-complete" },
      async ({ engine, broker, client, q }) => {
        for (const id of ["ok", "fail"]) {
          await client.send(
            `/queue/${q}.orders`,
            jsonMessage({ orderId: id, hold: true }, { message_id: `m-${id}` }),
          );
        }
        await until(async () => (await instanceStatuses(engine)).length === 2);
        // Both parked: neither is settled, so neither is ready nor dead-lettered.
        assert.equal(await broker.ready(`${q}.orders`), 0);
        assert.equal(await broker.ready(`${q}.dlq`), 0);
        await client.send(`/queue/${q}.decisions`, jsonMessage({ orderId: "ok", ok: true }));
        await client.send(`/queue/${q}.decisions`, jsonMessage({ orderId: "fail", ok: false }));
        const [dead] = await client.take(`/queue/${q}.dlq`, 1);
        assert.equal(JSON.parse(textOf(dead)).orderId, "fail");
        assert.equal(dead.message_id, "m-fail");
        assert.equal(property(dead, "sutra-diagnostic-code"), "SUTRA.ACK.DEFERRED_NACKED");
        assert.equal(property(dead, "sutra-diagnostic-channel"), "a10-orders");
        await until(async () => (await instanceStatuses(engine)).includes("COMPLETED"));
        await engine.stop();
        // The completed one was accepted: stopping the engine gave nothing back.
        assert.equal(await broker.ready(`${q}.orders`), 0);
        assert.equal(await broker.ready(`${q}.dlq`), 0);
      },
    );
  },
);

amqp10Test(
  "amqp10 on-complete: a message whose instance still runs is released when the engine stops",
  async (url) => {
    await withAmqp10(
      url,
      "stop",
      { ackMode: "on-complete" },
      async ({ engine, broker, client, q }) => {
        await client.send(
          `/queue/${q}.orders`,
          jsonMessage({ orderId: "held", hold: true }, { message_id: "m-held" }),
        );
        await until(async () => (await instanceStatuses(engine)).length === 1);
        assert.equal(await broker.ready(`${q}.orders`), 0);
        await engine.stop();
        // Committed but not ended: never accepted, so the broker has it again for the next consumer.
        assert.equal(await broker.ready(`${q}.orders`), 1);
        assert.equal(await broker.ready(`${q}.dlq`), 0);
      },
    );
  },
);

amqp10Test(
  "amqp10 reply-to: the q:reply goes to reply-to with the request's correlation id",
  async (url) => {
    await withAmqp10(url, "reply", { ackMode: "on-complete" }, async ({ client, q }) => {
      await client.send(
        `/queue/${q}.orders`,
        jsonMessage({ orderId: "r1" }, {
          message_id: "m-r1",
          correlation_id: "corr-r1",
          reply_to: `/queue/${q}.replies`,
        }),
      );
      const [reply] = await client.take(`/queue/${q}.replies`, 1);
      assert.deepEqual(JSON.parse(textOf(reply)), { orderId: "r1", accepted: true });
      assert.equal(reply.correlation_id, "corr-r1");
      assert.equal(reply.content_type, "application/json");
    });
  },
);

amqp10Test(
  "amqp10 poison: dead-lettered with its diagnostic, or rejected for the broker's dead-lettering",
  async (url) => {
    // Set while the engine boots: rabbitmqctl takes seconds.
    const policy = rejectPolicy();
    await withAmqp10(url, "poison", {}, async ({ engine, broker, client, q }) => {
      await broker.channel.bindQueue(`${q}.rejected`, REJECTED_EXCHANGE, "");
      await client.send(`/queue/${q}.orders`, jsonMessage("{not json", { message_id: "m-bad" }));
      const [dead] = await client.take(`/queue/${q}.dlq`, 1);
      assert.equal(textOf(dead), "{not json");
      assert.equal(dead.message_id, "m-bad");
      assert.equal(property(dead, "sutra-diagnostic-code"), "SUTRA.PARSE.JSON.MALFORMED");
      assert.ok(String(property(dead, "sutra-diagnostic-message")).length > 0);
      // No dead-letter address on a10-strict: rejected, and the queue's policy dead-letters it.
      await policy;
      await client.send(`/queue/${q}.strict`, jsonMessage("{not json", { message_id: `m-${q}` }));
      for (;;) {
        // Other runs may share the exchange: wait for this run's message.
        const [m] = await client.take(`/queue/${q}.rejected`, 1);
        if (m.message_id !== `m-${q}`) continue;
        assert.equal(textOf(m), "{not json");
        break;
      }
      assert.deepEqual(await instanceStatuses(engine), []);
      await engine.stop();
      for (const queue of ["orders", "strict", "dlq"]) {
        assert.equal(await broker.ready(`${q}.${queue}`), 0, queue);
      }
    });
  },
);

amqp10Test(
  "amqp10 redelivery budget: a transient refusal is released, then dead-lettered when spent",
  async (url) => {
    await withAmqp10(url, "budget", {}, async ({ engine, broker, client, q }) => {
      // No instance waits for this decision: a transient refusal on every delivery.
      await client.send(
        `/queue/${q}.decisions`,
        jsonMessage({ orderId: "nobody", ok: true }, { message_id: "m-nobody" }),
      );
      const [dead] = await client.take(`/queue/${q}.dlq`, 1);
      assert.equal(dead.message_id, "m-nobody");
      assert.equal(property(dead, "sutra-diagnostic-code"), "SUTRA.BROKER.REDELIVERY_EXHAUSTED");
      assert.equal(property(dead, "sutra-diagnostic-channel"), "a10-decisions");
      // The channel allows two deliveries: released once, dead-lettered on the second.
      assert.match(
        String(property(dead, "sutra-diagnostic-message")),
        /delivered 2 time\(s\).*budget is 2/,
      );
      assert.match(String(property(dead, "sutra-diagnostic-message")), /CORRELATION_NOT_FOUND/);
      await engine.stop();
      assert.equal(await broker.ready(`${q}.decisions`), 0);
    });
  },
);

amqp10Test(
  "amqp10 tenant quota: a message past the cap is held for its Retry-After on each delivery",
  async (url) => {
    const env = { SUTRA_TENANT_MAX_CONCURRENT_INSTANCES: "test=1" };
    await withAmqp10(url, "quota", { env }, async ({ engine, client, q }) => {
      const order = (orderId: string) =>
        client.send(
          `/queue/${q}.orders`,
          jsonMessage({ orderId, hold: true }, { message_id: `m-${orderId}` }),
        );
      await order("first");
      await client.take(`/queue/${q}.confirmed`, 1);
      const sent = Date.now();
      await order("second");
      const [dead] = await client.take(`/queue/${q}.dlq`, 1);
      // Three deliveries, each refused by the cap: the first two held for the refusal's
      // one-second Retry-After before going back, not released after the short backoff.
      assert.ok(Date.now() - sent >= 2_000, `dead-lettered after ${Date.now() - sent} ms`);
      assert.equal(dead.message_id, "m-second");
      assert.equal(property(dead, "sutra-diagnostic-code"), "SUTRA.BROKER.REDELIVERY_EXHAUSTED");
      assert.match(
        String(property(dead, "sutra-diagnostic-message")),
        /delivered 3 time\(s\).*TENANT_CONCURRENCY_LIMIT/,
      );
      await client.send(
        `/queue/${q}.decisions`,
        jsonMessage({ orderId: "first", ok: true }, { message_id: "d-first" }),
      );
      await until(async () => (await instanceStatuses(engine)).includes("COMPLETED"));
      await order("third");
      const [started] = await client.take(`/queue/${q}.confirmed`, 1);
      assert.equal(JSON.parse(textOf(started)).orderId, "third");
    });
  },
);

amqp10Test(
  "amqp10 broker loss: consumption resumes after the connection drops, nothing lost or doubled",
  async (url) => {
    const proxy = await CutProxy.start(url);
    try {
      const engineUrl = proxy.urlFor(url);
      await withAmqp10(url, "loss", { engineUrl }, async ({ engine, broker, client, q }) => {
        const ids = Array.from({ length: 40 }, (_, i) => `o${i}`);
        for (const id of ids.slice(0, 20)) {
          await client.send(
            `/queue/${q}.orders`,
            jsonMessage({ orderId: id }, { message_id: `m-${id}` }),
          );
        }
        await until(async () => (await instanceStatuses(engine)).length >= 5);
        assert.ok(proxy.cutAll() > 0);
        for (const id of ids.slice(20)) {
          await client.send(
            `/queue/${q}.orders`,
            jsonMessage({ orderId: id }, { message_id: `m-${id}` }),
          );
        }
        await until(async () => (await instanceStatuses(engine)).length === 40, 20_000);
        await until(async () => {
          const { rows } = await engine.database.query("select 1 from outbox");
          return rows.length === 0;
        }, 20_000);
        // Each order ran once, however often the broker offered it again.
        assert.equal((await instanceStatuses(engine)).length, 40);
        // A send cut before its disposition is sent again under the same message-id, so a
        // confirmation may arrive twice, never under two ids.
        const idOf = new Map<string, string>();
        while (idOf.size < 40 || await broker.ready(`${q}.confirmed`) > 0) {
          const [m] = await client.take(`/queue/${q}.confirmed`, 1);
          const orderId = JSON.parse(textOf(m)).orderId;
          assert.equal(idOf.get(orderId) ?? m.message_id, m.message_id, orderId);
          idOf.set(orderId, String(m.message_id));
        }
        assert.deepEqual([...idOf.keys()].sort(), [...ids].sort());
        assert.ok(proxy.accepted >= 2, "the engine connected again through the proxy");
      });
    } finally {
      await proxy.close();
    }
  },
);
