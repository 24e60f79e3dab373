/**
 * The sqs transport against the fauxqs emulator (an SQS test double driven
 * by the real `@aws-sdk/client-sqs`; `SUTRA_TEST_SQS_ENDPOINT` points the
 * tests at another endpoint): both ack modes, poison messages and the
 * redelivery budget, a visibility timeout far shorter than an on-complete
 * flow, and per-group order on a FIFO queue.
 */
import assert from "node:assert/strict";
import { createLogger } from "../../engine/core/mod.ts";
import type {
  BoundChannel,
  OutboundMessage,
  TransportContext,
} from "../../engine/core/transport.ts";
import type { RunningEngine } from "../../engine/runtime/mod.ts";
import { ReceiveMessageCommand } from "@aws-sdk/client-sqs";
import { sqsSink } from "../../io/transports/sqs/mod.ts";
import { DeleteBatcher } from "../../io/transports/sqs/_deletes.ts";
import { bootEngine, instanceStatuses, until } from "../runtime/support.ts";
import { withServerDatabase } from "../support/test_database.ts";
import {
  fileFauxqs,
  fixtureQueues,
  ordersQueue,
  sqsEnv,
  sqsPackage,
  type SqsPackageOptions,
  SqsQueues,
  sqsTest,
  uniquePrefix,
} from "../support/sqs.ts";

const sqs = await fileFauxqs();

/** Boots an engine with the fixture deployed for a fresh prefix, runs `run`, stops it and cleans up. */
async function withSqs(
  label: string,
  options: Omit<SqsPackageOptions, "prefix">,
  run: (ctx: { engine: RunningEngine; queues: SqsQueues; q: string; orders: string }) => Promise<
    void
  >,
): Promise<void> {
  const q = uniquePrefix(label);
  const queues = new SqsQueues(sqs!.endpoint);
  const names = fixtureQueues({ prefix: q, ...options });
  await queues.create(...names);
  try {
    await withServerDatabase(async (_db, target) => {
      const engine = await bootEngine({
        url: target.url,
        schema: target.schema,
        env: sqsEnv(sqs!),
      });
      try {
        await engine.deployments.deploy(await sqsPackage({ prefix: q, ...options }));
        await run({ engine, queues, q, orders: ordersQueue({ prefix: q, ...options }) });
      } finally {
        await engine.stop();
      }
    });
  } finally {
    await queues.close(names);
  }
}

sqsTest(
  "sqs on-persist: each message runs once, its q:send is sent, all deleted",
  sqs,
  async () => {
    await withSqs("persist", {}, async ({ engine, queues, q, orders }) => {
      for (const id of ["a", "b", "c"]) {
        await queues.send(orders, { orderId: id }, {
          attributes: { "idempotency-key": `m-${id}` },
        });
      }
      // A copy under the same idempotency key: inbox dedup absorbs it.
      await queues.send(orders, { orderId: "a" }, { attributes: { "idempotency-key": "m-a" } });
      const confirmed = await queues.await(`${q}-confirmed`, 3);
      assert.deepEqual(confirmed.map((m) => JSON.parse(m.body).orderId).sort(), ["a", "b", "c"]);
      // The sink sends the outbox row's idempotency key as an attribute.
      assert.ok(confirmed.every((m) => typeof m.attributes["idempotency-key"] === "string"));
      assert.match(confirmed[0].attributes["content-type"], /application\/json/);
      await until(async () => (await instanceStatuses(engine)).length === 3);
      await until(async () => (await queues.depth(orders)).inFlight === 0);
      await engine.stop();
      assert.deepEqual(await queues.depth(orders), { visible: 0, inFlight: 0 });
      assert.deepEqual(await queues.take(`${q}-confirmed`), []);
    });
  },
);

sqsTest(
  "sqs on-complete: the delete waits for the instance; a failed one is dead-lettered",
  sqs,
  async () => {
    const options = { ackMode: "on-complete", visibility: "PT3S" } as const;
    await withSqs("complete", options, async ({ engine, queues, q, orders }) => {
      for (const id of ["held", "ok", "fail"]) {
        await queues.send(orders, { orderId: id, hold: true });
      }
      await queues.await(`${q}-confirmed`, 3);
      // All three are held (invisible) while their instances wait.
      assert.deepEqual(await queues.depth(orders), { visible: 0, inFlight: 3 });
      await queues.send(`${q}-decisions`, { orderId: "ok", ok: true });
      await queues.send(`${q}-decisions`, { orderId: "fail", ok: false });
      const [dead] = await queues.await(`${q}-orders-dlq`, 1);
      assert.equal(JSON.parse(dead.body).orderId, "fail");
      assert.equal(dead.attributes["sutra-diagnostic-code"], "SUTRA.ACK.DEFERRED_NACKED");
      assert.equal(dead.attributes["sutra-diagnostic-channel"], "sqs-orders");
      assert.match(dead.attributes["content-type"], /application\/json/);
      await until(async () => (await instanceStatuses(engine)).includes("COMPLETED"));
      await until(async () => (await queues.depth(orders)).inFlight === 1);
      await engine.stop();
      // Only the order whose instance still waits was not deleted: renewals stopped with the
      // engine, so it is visible again once its timeout has run out (fauxqs counts an expired
      // message as in flight until someone receives: taking it is the way to see it).
      const back = await queues.await(orders, 1);
      assert.deepEqual(back.map((m) => JSON.parse(m.body).orderId), ["held"]);
      assert.deepEqual(await queues.take(orders), []);
    });
  },
);

for (const ackMode of ["on-complete", "on-persist"] as const) {
  sqsTest(`sqs reply-to (${ackMode}): the q:reply goes to the reply queue`, sqs, async () => {
    await withSqs("reply", { ackMode }, async ({ queues, q, orders }) => {
      const replies = `${q}-replies`;
      await queues.create(replies);
      try {
        await queues.send(orders, { orderId: "r1" }, {
          attributes: { "reply-to": replies, "correlation-id": "corr-1" },
        });
        const [reply] = await queues.await(replies, 1);
        assert.deepEqual(JSON.parse(reply.body), { orderId: "r1", accepted: true });
        assert.equal(reply.attributes["correlation-id"], "corr-1");
        assert.match(reply.attributes["content-type"], /application\/json/);
      } finally {
        await queues.remove([replies]);
      }
    });
  });
}

sqsTest(
  "sqs poison: a malformed message is dead-lettered with its diagnostic, not retried",
  sqs,
  async () => {
    await withSqs("poison", {}, async ({ queues, q, orders }) => {
      await queues.send(orders, "{not json", { attributes: { trace: "t-1" } });
      const [dead] = await queues.await(`${q}-orders-dlq`, 1);
      assert.equal(dead.body, "{not json");
      assert.equal(dead.attributes["sutra-diagnostic-code"], "SUTRA.PARSE.JSON.MALFORMED");
      assert.equal(dead.attributes["sutra-diagnostic-channel"], "sqs-orders");
      assert.equal(dead.attributes.trace, "t-1");
      assert.equal(dead.system.ApproximateReceiveCount, "1");
      await until(async () => (await queues.depth(orders)).inFlight === 0);
      assert.deepEqual(await queues.depth(orders), { visible: 0, inFlight: 0 });
    });
  },
);

sqsTest(
  "sqs redelivery budget: a relay that never correlates is dead-lettered by receive count",
  sqs,
  async () => {
    await withSqs("budget", {}, async ({ queues, q }) => {
      await queues.send(`${q}-decisions`, { orderId: "nobody", ok: true });
      const [dead] = await queues.await(`${q}-decisions-dlq`, 1);
      assert.equal(dead.attributes["sutra-diagnostic-code"], "SUTRA.BROKER.REDELIVERY_EXHAUSTED");
      assert.match(dead.attributes["sutra-diagnostic-message"], /delivered 2 time/);
      await until(async () => (await queues.depth(`${q}-decisions`)).inFlight === 0);
      assert.deepEqual(await queues.depth(`${q}-decisions`), { visible: 0, inFlight: 0 });
    });
  },
);

sqsTest(
  "sqs visibility: an on-complete flow outliving the timeout keeps its message hidden",
  sqs,
  async () => {
    const options = { ackMode: "on-complete", visibility: "PT3S", prefetch: 1 } as const;
    await withSqs("visibility", options, async ({ engine, queues, q, orders }) => {
      await queues.send(orders, { orderId: "long", hold: true });
      await queues.await(`${q}-confirmed`, 1);
      // Three timeouts long, this receiver would get the message the moment it became visible
      // (the engine, its one prefetch slot taken, does not receive meanwhile).
      const until9s = Date.now() + 9_000;
      while (Date.now() < until9s) {
        assert.deepEqual(await queues.take(orders), [], "the held message became visible");
        await new Promise((r) => setTimeout(r, 200));
      }
      await queues.send(`${q}-decisions`, { orderId: "long", ok: true });
      await until(async () => (await instanceStatuses(engine)).includes("COMPLETED"));
      await until(async () => (await queues.depth(orders)).inFlight === 0);
      assert.deepEqual(await instanceStatuses(engine), ["COMPLETED"]);
      assert.deepEqual(await queues.take(`${q}-confirmed`), []);
      assert.deepEqual(await queues.depth(orders), { visible: 0, inFlight: 0 });
    });
  },
);

sqsTest(
  "sqs FIFO: the messages of one group run in order while groups run side by side",
  sqs,
  async () => {
    const options = { ackMode: "on-complete", fifo: true, prefetch: 10 } as const;
    await withSqs("fifo", options, async ({ engine, queues, q, orders }) => {
      const groups = ["g1", "g2", "g3", "g4"];
      const perGroup = 8;
      const messages = [];
      for (let n = 0; n < perGroup; n++) {
        for (const g of groups) {
          messages.push({
            body: { orderId: `${g}-${n}` },
            options: { group: g, dedup: `${g}-${n}` },
          });
        }
      }
      await queues.sendMany(orders, messages);
      // The same deduplication id again within SQS's window: SQS drops it.
      await queues.send(orders, { orderId: "g1-0" }, { group: "g1", dedup: "g1-0" });
      await queues.await(`${q}-confirmed`, groups.length * perGroup);
      await until(async () => (await queues.depth(orders)).inFlight === 0);
      const { rows } = await engine.database.query<
        { value: string; created_at: Date }
      >(
        `select a.value, i.created_at from aliases a
           join instances i on i.instance_id = a.instance_id where a.name = 'orderId'`,
      );
      assert.equal(rows.length, groups.length * perGroup);
      const started = new Map(rows.map((r) => [r.value, r.created_at.getTime()]));
      for (const g of groups) {
        for (let n = 1; n < perGroup; n++) {
          assert.ok(
            started.get(`${g}-${n}`)! > started.get(`${g}-${n - 1}`)!,
            `${g}-${n} ran before ${g}-${n - 1}`,
          );
        }
      }
    });
  },
);

sqsTest(
  "sqs sink: FIFO group and deduplication ids; a message SQS refuses for good is poison",
  sqs,
  async (sqs) => {
    const q = uniquePrefix("sink");
    const queues = new SqsQueues(sqs.endpoint);
    const names = [`${q}-out.fifo`, `${q}-plain`];
    await queues.create(...names);
    // The sink takes the settings of the engine's first sqs channel (SUTRA_SQS_ENDPOINT unset).
    const channel: BoundChannel = {
      tenant: "default",
      deploymentId: "d",
      ackMode: "on-persist",
      declaration: {
        name: "out",
        transport: "sqs",
        options: {
          endpoint: sqs.endpoint,
          "access-key-id": "test",
          "secret-access-key": "env:SQS_SECRET",
        },
      },
    };
    const context: TransportContext = {
      channels: () => [channel],
      deliver: () => Promise.reject(new Error("no intake here")),
      http: { add: () => {} },
      logger: createLogger("test", { filter: "error", write: () => {} }),
      resolveSecret: (reference) =>
        reference === "env:SQS_SECRET"
          ? Promise.resolve(Deno.env.get("SUTRA_TEST_SQS_SECRET") ?? "test")
          : Promise.reject(new Error(`unset: ${reference}`)),
      payloadCapBytes: 1_000_000,
      ackHoldMs: 1000,
    };
    const sink = sqsSink(context);
    const message = (destination: string, body: string, headers = {}): OutboundMessage => ({
      destination,
      headers,
      body: new TextEncoder().encode(body),
      contentType: "application/json",
      idempotencyKey: `key-${body.length}`,
      attempt: 1,
    });
    try {
      assert.deepEqual(
        await sink.send(
          message(`sqs://${q}-out.fifo`, "{}", {
            "sqs-message-group-id": "customer-7",
            trace: "t",
          }),
        ),
        { outcome: "delivered" },
      );
      const [sent] = await queues.await(`${q}-out.fifo`, 1);
      assert.equal(sent.system.MessageGroupId, "customer-7");
      assert.equal(sent.system.MessageDeduplicationId, "key-2");
      assert.equal(sent.attributes["idempotency-key"], "key-2");
      assert.equal(sent.attributes.trace, "t");
      assert.equal(sent.attributes["sqs-message-group-id"], undefined);
      const tooLarge = await sink.send(message(`sqs://${q}-plain`, "x".repeat(1_100_000)));
      assert.equal(tooLarge.outcome, "poison");
      const missing = await sink.send(message(`sqs://${q}-nowhere`, "{}"));
      assert.equal(missing.outcome, "retry");
      const bad = await sink.send(message("sqs://not a queue", "{}"));
      assert.equal(bad.outcome, "poison");
      assert.match(String((bad as { error: string }).error), /SUTRA\.BROKER\.DESTINATION_INVALID/);
    } finally {
      sink.close();
      await queues.close(names);
    }
  },
);

sqsTest(
  "sqs deletes: batched ten at a time; a refused batch rejects its callers",
  sqs,
  async (sqs) => {
    const q = `${uniquePrefix("deletes")}-q`;
    const queues = new SqsQueues(sqs.endpoint);
    await queues.create(q);
    try {
      const url = await queues.url(q);
      await queues.sendMany(q, Array.from({ length: 13 }, (_, n) => ({ body: { n } })));
      const handles: string[] = [];
      while (handles.length < 13) {
        const got = await queues.client.send(
          new ReceiveMessageCommand({ QueueUrl: url, MaxNumberOfMessages: 10 }),
        );
        handles.push(...(got.Messages ?? []).map((m) => m.ReceiptHandle!));
      }
      const deletes = new DeleteBatcher(queues.client, url);
      await Promise.all(handles.map((h) => deletes.delete(h)));
      assert.deepEqual(await queues.depth(q), { visible: 0, inFlight: 0 });
      // A queue that is gone refuses the whole batch: every caller hears it.
      const gone = new DeleteBatcher(queues.client, url.replace(/[^/]+$/, `${q}-gone`));
      const outcomes = await Promise.allSettled(handles.slice(0, 3).map((h) => gone.delete(h)));
      assert.deepEqual(outcomes.map((o) => o.status), ["rejected", "rejected", "rejected"]);
    } finally {
      await queues.close([q]);
    }
  },
);
