/**
 * Kafka wire primitives for the test broker: big-endian integers, the
 * classic (non-flexible) strings, byte arrays and arrays the request and
 * response versions it speaks use, and the zig-zag varints of record
 * batches. Also the framing: every request and response is an int32 size
 * followed by that many bytes.
 *
 * @module
 */

/** Reads Kafka primitives from a byte array; running past its end throws. */
export class Reader {
  readonly #view: DataView;
  readonly bytes: Uint8Array;
  offset = 0;

  constructor(bytes: Uint8Array) {
    this.bytes = bytes;
    this.#view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  /** Bytes not read yet. */
  get remaining(): number {
    return this.bytes.byteLength - this.offset;
  }

  #take(n: number): number {
    if (n < 0 || this.offset + n > this.bytes.byteLength) {
      throw new RangeError(`read of ${n} byte(s) past the end at ${this.offset}`);
    }
    const at = this.offset;
    this.offset += n;
    return at;
  }

  int8(): number {
    return this.#view.getInt8(this.#take(1));
  }
  int16(): number {
    return this.#view.getInt16(this.#take(2));
  }
  int32(): number {
    return this.#view.getInt32(this.#take(4));
  }
  uint32(): number {
    return this.#view.getUint32(this.#take(4));
  }
  int64(): bigint {
    return this.#view.getBigInt64(this.#take(8));
  }
  /** An int16-length string; -1 is null. */
  string(): string | null {
    const n = this.int16();
    if (n < 0) return null;
    return new TextDecoder().decode(this.raw(n));
  }
  /** An int32-length byte array; -1 is null. */
  bytesField(): Uint8Array | null {
    const n = this.int32();
    if (n < 0) return null;
    return this.raw(n);
  }
  /** `n` bytes as they are. */
  raw(n: number): Uint8Array {
    const at = this.#take(n);
    return this.bytes.subarray(at, at + n);
  }
  /** An int32-count array; -1 (null) reads as `null`. */
  array<T>(item: (r: Reader) => T): T[] | null {
    const n = this.int32();
    if (n < 0) return null;
    const out: T[] = [];
    for (let i = 0; i < n; i++) out.push(item(this));
    return out;
  }
  /** A zig-zag varint (record batches). */
  varint(): number {
    return Number(this.varlong());
  }
  /** A zig-zag varlong. */
  varlong(): bigint {
    let value = 0n;
    let shift = 0n;
    for (;;) {
      const b = this.#view.getUint8(this.#take(1));
      value |= BigInt(b & 0x7f) << shift;
      if ((b & 0x80) === 0) break;
      shift += 7n;
      if (shift > 63n) throw new RangeError("varint too long");
    }
    return (value >> 1n) ^ -(value & 1n);
  }
  /** Varint-length bytes; -1 is null. */
  varBytes(): Uint8Array | null {
    const n = this.varint();
    return n < 0 ? null : this.raw(n);
  }
}

/** Writes Kafka primitives into a growing buffer. */
export class Writer {
  #buf = new Uint8Array(256);
  #view = new DataView(this.#buf.buffer);
  #len = 0;

  #room(n: number): number {
    if (this.#len + n > this.#buf.byteLength) {
      const next = new Uint8Array(Math.max(this.#buf.byteLength * 2, this.#len + n));
      next.set(this.#buf.subarray(0, this.#len));
      this.#buf = next;
      this.#view = new DataView(next.buffer);
    }
    const at = this.#len;
    this.#len += n;
    return at;
  }

  int8(v: number): this {
    const at = this.#room(1);
    this.#view.setInt8(at, v);
    return this;
  }
  int16(v: number): this {
    const at = this.#room(2);
    this.#view.setInt16(at, v);
    return this;
  }
  int32(v: number): this {
    const at = this.#room(4);
    this.#view.setInt32(at, v);
    return this;
  }
  uint32(v: number): this {
    const at = this.#room(4);
    this.#view.setUint32(at, v);
    return this;
  }
  int64(v: bigint): this {
    const at = this.#room(8);
    this.#view.setBigInt64(at, v);
    return this;
  }
  boolean(v: boolean): this {
    return this.int8(v ? 1 : 0);
  }
  /** An int16-length string, or -1 for null. */
  string(v: string | null): this {
    if (v === null) return this.int16(-1);
    const bytes = new TextEncoder().encode(v);
    return this.int16(bytes.byteLength).raw(bytes);
  }
  /** An int32-length byte array, or -1 for null. */
  bytesField(v: Uint8Array | null): this {
    if (v === null) return this.int32(-1);
    return this.int32(v.byteLength).raw(v);
  }
  raw(v: Uint8Array): this {
    const at = this.#room(v.byteLength);
    this.#buf.set(v, at);
    return this;
  }
  /** An int32-count array. */
  array<T>(items: readonly T[], item: (w: Writer, v: T) => void): this {
    this.int32(items.length);
    for (const v of items) item(this, v);
    return this;
  }
  /** A zig-zag varint. */
  varint(v: number): this {
    return this.varlong(BigInt(v));
  }
  varlong(v: bigint): this {
    let z = BigInt.asUintN(64, (v << 1n) ^ (v >> 63n));
    do {
      let b = Number(z & 0x7fn);
      z >>= 7n;
      if (z !== 0n) b |= 0x80;
      const at = this.#room(1);
      this.#view.setUint8(at, b);
    } while (z !== 0n);
    return this;
  }
  /** Varint-length bytes, or -1 for null. */
  varBytes(v: Uint8Array | null): this {
    if (v === null) return this.varint(-1);
    return this.varint(v.byteLength).raw(v);
  }
  /** Everything written so far. */
  get bytes(): Uint8Array {
    return this.#buf.slice(0, this.#len);
  }
  get length(): number {
    return this.#len;
  }
}

/**
 * Reads size-prefixed frames from a byte stream, yielding each frame's
 * payload. Ends when the stream ends.
 */
export async function* frames(stream: ReadableStream<Uint8Array>): AsyncGenerator<Uint8Array> {
  let pending = new Uint8Array(0);
  for await (const chunk of stream) {
    const joined = new Uint8Array(pending.byteLength + chunk.byteLength);
    joined.set(pending);
    joined.set(chunk, pending.byteLength);
    pending = joined;
    let at = 0;
    while (pending.byteLength - at >= 4) {
      const size = new DataView(pending.buffer, pending.byteOffset + at, 4).getInt32(0);
      if (pending.byteLength - at - 4 < size) break;
      yield pending.slice(at + 4, at + 4 + size);
      at += 4 + size;
    }
    pending = pending.slice(at);
  }
}

/** `payload` with its int32 size in front. */
export function frame(payload: Uint8Array): Uint8Array {
  const out = new Uint8Array(4 + payload.byteLength);
  new DataView(out.buffer).setInt32(0, payload.byteLength);
  out.set(payload, 4);
  return out;
}
