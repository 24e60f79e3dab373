/**
 * `sutra.engine.shard-queue-capacity`: a full lane holds new work back
 * instead of refusing it, so a burst larger than the lane's queue is
 * answered in full, just later. (On the server: the embedded database runs
 * a step without yielding to new requests, so its lane is never contended.)
 */
import assert from "node:assert/strict";
import { tier2Test, withServerDatabase } from "../support/test_database.ts";
import { bootEngine, post, sealDir } from "./support.ts";

tier2Test(
  "a burst beyond a full lane's capacity is answered, not refused",
  () =>
    withServerDatabase(async (_db, target) => {
      const engine = await bootEngine({
        ...target,
        env: { SUTRA_ENGINE_SHARDS: "1", SUTRA_ENGINE_SHARD_QUEUE_CAPACITY: "1" },
      });
      try {
        await engine.deployments.deploy(await sealDir("examples/quote-reply/package"));
        const quote = { item: "widget", quantity: 3, unitPrice: 2.5 };
        const answers = await Promise.all(
          Array.from({ length: 40 }, () => post(engine, "/channels/quote-request", quote)),
        );
        assert.deepEqual(answers.map((a) => a.status), new Array(40).fill(200));
        const { rows } = await engine.database.query<{ n: number }>(
          "select count(*)::int as n from instances where status = 'COMPLETED'",
        );
        assert.equal(rows[0].n, 40);
      } finally {
        await engine.stop();
      }
    }),
);
