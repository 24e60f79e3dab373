import assert from "node:assert/strict";
import { INVALID_PRODUCER_EPOCH, OUT_OF_ORDER_SEQUENCE_NUMBER, Partition } from "./log.ts";
import type { IncomingBatch } from "./record_batch.ts";

function batch(producerId: bigint, epoch: number, sequence: number, n: number): IncomingBatch {
  const records = Array.from({ length: n }, (_, i) => ({
    timestamp: 0n,
    key: null,
    value: new TextEncoder().encode(`${sequence + i}`),
    headers: [],
  }));
  return { producerId, producerEpoch: epoch, baseSequence: sequence, records };
}

Deno.test("an idempotent producer's resent batch is answered with its first offset, not appended again", () => {
  const p = new Partition();
  assert.deepEqual(p.append(batch(7n, 0, 0, 2)), { baseOffset: 0n });
  assert.deepEqual(p.append(batch(7n, 0, 2, 1)), { baseOffset: 2n });
  assert.deepEqual(p.append(batch(7n, 0, 0, 2)), { baseOffset: 0n });
  assert.equal(p.end, 3n);
  // A gap in the sequence, or an older epoch, is refused.
  assert.deepEqual(p.append(batch(7n, 0, 9, 1)), { error: OUT_OF_ORDER_SEQUENCE_NUMBER });
  assert.deepEqual(p.append(batch(7n, 1, 0, 1)), { baseOffset: 3n });
  assert.deepEqual(p.append(batch(7n, 0, 3, 1)), { error: INVALID_PRODUCER_EPOCH });
  // Without a producer id nothing is checked.
  assert.deepEqual(p.append(batch(-1n, -1, -1, 1)), { baseOffset: 4n });
  assert.deepEqual(p.append(batch(-1n, -1, -1, 1)), { baseOffset: 5n });
});

Deno.test("a read returns at least one record and stops near its byte budget", () => {
  const p = new Partition();
  p.append(batch(-1n, -1, -1, 10));
  assert.equal(p.read(0n, 1).length, 1);
  assert.equal(p.read(8n, 1_000_000).length, 2);
  assert.equal(p.read(10n, 1_000_000).length, 0);
});
