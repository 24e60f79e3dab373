import assert from "node:assert/strict";
import { crc32c, decodeBatches, encodeBatch, type StoredRecord } from "./record_batch.ts";
import { Reader, Writer } from "./wire.ts";

Deno.test("CRC-32C matches the Castagnoli check value", () => {
  assert.equal(crc32c(new TextEncoder().encode("123456789")), 0xe3069283);
});

Deno.test("a batch encoded for a fetch decodes as a producer's batch, and a flipped bit is refused", () => {
  const bytes = (s: string) => new TextEncoder().encode(s);
  const records: StoredRecord[] = [
    {
      offset: 7n,
      timestamp: 1_000n,
      key: bytes("k"),
      value: bytes("v1"),
      headers: [["h", bytes("x")]],
    },
    { offset: 8n, timestamp: 1_005n, key: null, value: bytes("v2"), headers: [] },
  ];
  const encoded = encodeBatch(records);
  const [batch] = decodeBatches(encoded);
  assert.equal(batch.records.length, 2);
  assert.equal(batch.records[1].timestamp, 1_005n);
  assert.deepEqual(batch.records[0].headers, [["h", bytes("x")]]);
  assert.equal(batch.records[1].key, null);
  encoded[encoded.length - 1] ^= 1;
  assert.throws(() => decodeBatches(encoded), /CRC/);
});

Deno.test("zig-zag varints round-trip", () => {
  const values = [0n, -1n, 1n, 63n, -64n, 300n, -(2n ** 40n), 2n ** 62n];
  const w = new Writer();
  for (const v of values) w.varlong(v);
  const r = new Reader(w.bytes);
  assert.deepEqual(values.map(() => r.varlong()), values);
});
