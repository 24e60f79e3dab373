/**
 * RecordBatch v2 (magic 2), the on-wire and on-log unit of Kafka records,
 * for the test broker: decoding what a producer sends (CRC-32C checked,
 * uncompressed batches only) and encoding what a fetch answers.
 *
 * @module
 */
import { Reader, Writer } from "./wire.ts";

/** One record as the log keeps it. */
export interface StoredRecord {
  readonly offset: bigint;
  readonly timestamp: bigint;
  readonly key: Uint8Array | null;
  readonly value: Uint8Array | null;
  readonly headers: readonly (readonly [string, Uint8Array | null])[];
}

/** A producer's batch, before the log gives it offsets. */
export interface IncomingBatch {
  readonly producerId: bigint;
  readonly producerEpoch: number;
  readonly baseSequence: number;
  readonly records: readonly Omit<StoredRecord, "offset">[];
}

/** Why a batch was refused, as a Kafka error code. */
export class BatchError extends Error {
  constructor(readonly code: number, message: string) {
    super(message);
  }
}

/** CORRUPT_MESSAGE. */
const CORRUPT_MESSAGE = 2;
/** UNSUPPORTED_COMPRESSION_TYPE. */
const UNSUPPORTED_COMPRESSION_TYPE = 76;
/** UNSUPPORTED_FOR_MESSAGE_FORMAT. */
const UNSUPPORTED_FOR_MESSAGE_FORMAT = 43;

// CRC-32C (Castagnoli, reflected polynomial 0x82F63B78), table-driven.
const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0x82f63b78 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

/** The CRC-32C of `bytes`. */
export function crc32c(bytes: Uint8Array): number {
  let crc = 0xffffffff;
  for (let i = 0; i < bytes.byteLength; i++) {
    crc = CRC_TABLE[(crc ^ bytes[i]) & 0xff] ^ (crc >>> 8);
  }
  return (crc ^ 0xffffffff) >>> 0;
}

/** Decodes the batches of a produce request's record set. */
export function decodeBatches(recordSet: Uint8Array): IncomingBatch[] {
  const r = new Reader(recordSet);
  const out: IncomingBatch[] = [];
  while (r.remaining > 0) {
    r.int64(); // base offset: the producer's is meaningless, the log assigns its own
    const length = r.int32();
    if (length < 0 || length > r.remaining) {
      throw new BatchError(CORRUPT_MESSAGE, "record batch length past the end of the record set");
    }
    out.push(decodeBatchBody(new Reader(r.raw(length))));
  }
  return out;
}

function decodeBatchBody(r: Reader): IncomingBatch {
  r.int32(); // partition leader epoch
  const magic = r.int8();
  if (magic !== 2) {
    throw new BatchError(UNSUPPORTED_FOR_MESSAGE_FORMAT, `message format magic ${magic}`);
  }
  const crc = r.uint32();
  const covered = r.bytes.subarray(r.offset);
  if (crc32c(covered) !== crc) throw new BatchError(CORRUPT_MESSAGE, "record batch CRC mismatch");
  const attributes = r.int16();
  if ((attributes & 0x07) !== 0) {
    throw new BatchError(UNSUPPORTED_COMPRESSION_TYPE, "the test broker keeps no compressed batch");
  }
  r.int32(); // last offset delta
  const firstTimestamp = r.int64();
  r.int64(); // max timestamp
  const producerId = r.int64();
  const producerEpoch = r.int16();
  const baseSequence = r.int32();
  const count = r.int32();
  const records: Omit<StoredRecord, "offset">[] = [];
  for (let i = 0; i < count; i++) {
    const rec = new Reader(r.raw(r.varint()));
    rec.int8(); // record attributes (unused)
    const timestamp = firstTimestamp + rec.varlong();
    rec.varint(); // offset delta: records are appended in order
    const key = rec.varBytes();
    const value = rec.varBytes();
    const headers: [string, Uint8Array | null][] = [];
    const n = rec.varint();
    for (let h = 0; h < n; h++) {
      const name = new TextDecoder().decode(rec.varBytes() ?? new Uint8Array());
      headers.push([name, rec.varBytes()]);
    }
    records.push({ timestamp, key, value, headers });
  }
  return { producerId, producerEpoch, baseSequence, records };
}

/** Encodes consecutive log records as one batch (no producer id, no compression). */
export function encodeBatch(records: readonly StoredRecord[]): Uint8Array {
  const base = records[0].offset;
  const firstTimestamp = records[0].timestamp;
  const maxTimestamp = records.reduce((m, x) => (x.timestamp > m ? x.timestamp : m), 0n);
  const body = new Writer()
    .int16(0) // attributes: no compression, create time, not transactional
    .int32(Number(records[records.length - 1].offset - base))
    .int64(firstTimestamp)
    .int64(maxTimestamp)
    .int64(-1n)
    .int16(-1)
    .int32(-1)
    .int32(records.length);
  for (const x of records) {
    const rec = new Writer()
      .int8(0)
      .varlong(x.timestamp - firstTimestamp)
      .varint(Number(x.offset - base))
      .varBytes(x.key)
      .varBytes(x.value)
      .varint(x.headers.length);
    for (const [name, value] of x.headers) {
      rec.varBytes(new TextEncoder().encode(name)).varBytes(value);
    }
    body.varint(rec.length).raw(rec.bytes);
  }
  const covered = body.bytes;
  const batch = new Writer().int32(0).int8(2).uint32(crc32c(covered)).raw(covered).bytes;
  return new Writer().int64(base).int32(batch.byteLength).raw(batch).bytes;
}
