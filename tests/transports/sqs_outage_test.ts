/**
 * SQS going away under a running engine (the fauxqs emulator killed and
 * started again on the same port): an outbound `sqs://` send is retried by
 * the outbox and its row is removed only once SQS has taken the message,
 * and the consumers pick up again once SQS is back. Needs an emulator this
 * test can stop, so it does not run against `SUTRA_TEST_SQS_ENDPOINT`.
 */
import assert from "node:assert/strict";
import { bootEngine, post, until } from "../runtime/support.ts";
import { withServerDatabase } from "../support/test_database.ts";
import {
  externalEndpoint,
  Fauxqs,
  fixtureQueues,
  ordersQueue,
  sqsEnv,
  sqsPackage,
  SqsQueues,
  sqsTest,
  sqsTestsRun,
  uniquePrefix,
} from "../support/sqs.ts";

interface OutboxRow {
  attempts: number;
  last_error: string | null;
  idempotency_key: string;
}

const NAME = "sqs outage: the outbox retries a send until SQS takes it; consumers resume";

/** The test: it starts its own emulator, as it stops and restarts it. */
async function outage(): Promise<void> {
  let sqs = await Fauxqs.start(0, true);
  const prefix = uniquePrefix("outage");
  const names = fixtureQueues({ prefix });
  let queues = new SqsQueues(sqs.endpoint);
  try {
    await queues.create(...names);
    await withServerDatabase(async (_db, target) => {
      const engine = await bootEngine({
        url: target.url,
        schema: target.schema,
        env: sqsEnv(sqs),
      });
      try {
        await engine.deployments.deploy(await sqsPackage({ prefix }));
        await queues.send(ordersQueue({ prefix }), { orderId: "before" });
        await queues.await(`${prefix}-confirmed`, 1);

        await sqs.stop();
        const accepted = await post(engine, "/channels/http-orders", { orderId: "during" });
        assert.equal(accepted.status, 202);
        const rows = async () =>
          (await engine.database.query<OutboxRow>(
            "select attempts, last_error, idempotency_key from outbox",
          )).rows;
        // Refused twice while SQS is down: the row stays, with the reason.
        await until(async () => (await rows())[0]?.attempts >= 2, 20_000);
        const [pending] = await rows();
        assert.match(String(pending.last_error), /SUTRA\.BROKER\.PUBLISH_FAILED/);

        sqs = await sqs.restart();
        queues.client.destroy();
        queues = new SqsQueues(sqs.endpoint);
        // A fresh emulator has no queues: the operator recreates them.
        await queues.create(...names);
        const [sent] = await queues.await(`${prefix}-confirmed`, 1, 30_000);
        assert.deepEqual(JSON.parse(sent.body), { orderId: "during", forwarded: true });
        assert.equal(sent.attributes["idempotency-key"], pending.idempotency_key);
        await until(async () => (await rows()).length === 0);

        // The consumer reconnected on its own.
        await queues.send(ordersQueue({ prefix }), { orderId: "after" });
        const [after] = await queues.await(`${prefix}-confirmed`, 1, 30_000);
        assert.equal(JSON.parse(after.body).orderId, "after");
      } finally {
        await engine.stop();
      }
    });
  } finally {
    await queues.close(names);
    await sqs.stop();
  }
}

if (externalEndpoint() === undefined) {
  sqsTest(NAME, sqsTestsRun() ? true : undefined, outage);
} else {
  console.log("notice: the SQS outage test needs an emulator it can stop; skipped");
  Deno.test({ name: NAME, ignore: true, fn: () => {} });
}
