import assert from "node:assert/strict";
import type { BoundChannel } from "../../../engine/core/transport.ts";
import { readSqsOptions, resolveConnection } from "./options.ts";
import { parseDestination, replyDestination } from "./sink.ts";

function bound(options: Record<string, unknown>): BoundChannel {
  return {
    tenant: "t",
    deploymentId: "d",
    ackMode: "on-persist",
    declaration: { name: "orders", transport: "sqs", options },
  };
}

Deno.test("sqs options: defaults follow the channel and the queue kind", () => {
  const standard = readSqsOptions(bound({}));
  assert.deepEqual(standard.problems, []);
  assert.equal(standard.options.queue, "orders");
  assert.equal(standard.options.fifo, false);
  assert.equal(standard.options.deadLetterQueue, "orders-dlq");
  assert.equal(standard.options.waitSeconds, 20);
  assert.equal(standard.options.visibilitySeconds, 30);
  assert.equal(standard.options.prefetch, 10);
  assert.equal(standard.options.maxDeliveries, 5);
  assert.equal(standard.options.declare, false);
  assert.equal(standard.options.connection.region, "us-east-1");
  assert.deepEqual(standard.options.idempotency, {
    from: "message-id",
    attribute: "idempotency-key",
  });
  const fifo = readSqsOptions(bound({ queue: "orders.fifo" }));
  assert.deepEqual(fifo.problems, []);
  assert.equal(fifo.options.fifo, true);
  assert.equal(fifo.options.deadLetterQueue, "orders-dlq.fifo");
  assert.deepEqual(fifo.options.idempotency, { from: "deduplication-id" });
});

Deno.test("sqs options: every wrong key is named, a literal secret refused", () => {
  const { problems } = readSqsOptions(bound({
    queue: "orders.fifo",
    "wait-time": "PT30S",
    "visibility-timeout": "PT1.5S",
    "access-key-id": "AKIA",
    "secret-access-key": "plain-secret",
    endpoint: "ftp://host",
    "dead-letter-queue": "orders-dlq",
    "idempotency-key": "header",
    prefetch: 0,
    typo: 1,
  }));
  assert.ok(problems.every((p) => p.code === "SUTRA.BROKER.OPTIONS_INVALID"));
  const named = problems.map((p) => p.attributes?.option).sort();
  assert.deepEqual(named, [
    "dead-letter-queue",
    "endpoint",
    "idempotency-key",
    "prefetch",
    "secret-access-key",
    "typo",
    "visibility-timeout",
    "wait-time",
  ]);
  const unpaired = readSqsOptions(bound({ "access-key-id": "AKIA" })).problems;
  assert.deepEqual(unpaired.map((p) => p.attributes?.option), ["secret-access-key"]);
});

Deno.test("sqs options: references are resolved, literals kept", async () => {
  const { options } = readSqsOptions(bound({
    endpoint: "env:SQS_ENDPOINT",
    region: "eu-west-1",
    "access-key-id": "AKIA",
    "secret-access-key": "secret:sqs-key",
  }));
  const resolved = await resolveConnection(
    { resolveSecret: (r) => Promise.resolve(`<${r}>`) },
    options.connection,
  );
  assert.deepEqual(resolved, {
    region: "eu-west-1",
    endpoint: "<env:SQS_ENDPOINT>",
    credentials: { accessKeyId: "AKIA", secretAccessKey: "<secret:sqs-key>" },
  });
});

Deno.test("sqs destinations: queue, group and channel; anything else is refused", () => {
  assert.deepEqual(parseDestination("sqs://orders"), { queue: "orders" });
  assert.deepEqual(parseDestination("sqs://orders.fifo?group=g-1&channel=in"), {
    queue: "orders.fifo",
    group: "g-1",
    channel: "in",
  });
  assert.deepEqual(parseDestination(replyDestination("answers", "a b")), {
    queue: "answers",
    channel: "a b",
  });
  for (const bad of ["sqs://", "sqs://a/b", "sqs://bad name", "sqs://q?other=1", "rabbitmq://q"]) {
    assert.equal(parseDestination(bad), undefined, bad);
  }
});

Deno.test("sqs options: consume: false makes a send-only channel", () => {
  assert.equal(readSqsOptions(bound({})).options.consume, true);
  const { options, problems } = readSqsOptions(bound({ consume: false }));
  assert.deepEqual(problems, []);
  assert.equal(options.consume, false);
});
