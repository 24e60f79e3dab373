/**
 * Ended spans written at once as OTLP/JSON bytes into buffers of one export
 * request each (the request's head, the spans comma-separated, its tail).
 * A span object then dies young: kept until the next export, spans would
 * outlive the young generation, and the garbage collector would sweep the
 * engine's whole heap more often for them. Buffers of the usual size are
 * reused once sent.
 *
 * @module
 */
import { spanJson } from "./otlp_json.ts";
import type { FinishedSpan } from "./tracer.ts";

/** One export request: its body and how many spans it carries. */
export interface SpanBatch {
  readonly body: Uint8Array<ArrayBuffer>;
  readonly spans: number;
}

/** Bytes of a batch buffer: room for a full batch of ordinary spans. */
const BUFFER_BYTES = 256 * 1_024;
/** Sent buffers kept for reuse. */
const SPARE_BUFFERS = 4;

interface Open {
  readonly bytes: Uint8Array<ArrayBuffer>;
  length: number;
  spans: number;
}

const utf8 = new TextEncoder();

/** Spans as request bodies, `batchSize` spans at most per body. */
export class SpanBatches {
  readonly #head: Uint8Array<ArrayBuffer>;
  readonly #tail: Uint8Array<ArrayBuffer>;
  readonly #batchSize: number;
  #open: Open | undefined;
  #closed: SpanBatch[] = [];
  readonly #spare: Uint8Array<ArrayBuffer>[] = [];
  #size = 0;

  /** Batches inside the envelope `head` … `tail` (see `tracesEnvelope`). */
  constructor(o: { readonly head: string; readonly tail: string; readonly batchSize: number }) {
    this.#head = utf8.encode(o.head);
    this.#tail = utf8.encode(o.tail);
    this.#batchSize = o.batchSize;
  }

  /** Spans written and not taken yet. */
  get size(): number {
    return this.#size;
  }

  /** Whether a batch is full and waits to be sent. */
  get ready(): boolean {
    return this.#closed.length > 0;
  }

  /** Writes `span` into the open batch (closing it when full). */
  add(span: FinishedSpan): void {
    const text = spanJson(span);
    let open = this.#open ?? this.#opened(text.length);
    if (!this.#write(open, text)) {
      this.#close();
      open = this.#opened(text.length);
      this.#write(open, text);
    }
    open.spans++;
    this.#size++;
    if (open.spans >= this.#batchSize) this.#close();
  }

  /** Every batch written so far, the open one closed; the caller sends them and hands each back. */
  take(): SpanBatch[] {
    this.#close();
    const taken = this.#closed;
    this.#closed = [];
    for (const batch of taken) this.#size -= batch.spans;
    return taken;
  }

  /** Hands back a batch that was sent (or given up on): its buffer may be reused. */
  release(batch: SpanBatch): void {
    const buffer = new Uint8Array(batch.body.buffer);
    if (buffer.length === BUFFER_BYTES && this.#spare.length < SPARE_BUFFERS) {
      this.#spare.push(buffer);
    }
  }

  /** Writes `text` (after a comma unless first) leaving room for the tail; false when it does not fit. */
  #write(open: Open, text: string): boolean {
    const room = open.bytes.subarray(open.length, open.bytes.length - this.#tail.length);
    const piece = open.spans === 0 ? text : "," + text;
    const { read, written } = utf8.encodeInto(piece, room);
    if (read < piece.length) return false;
    open.length += written;
    return true;
  }

  /** A new open batch with room for a span of `chars` UTF-16 units. */
  #opened(chars: number): Open {
    // Three bytes per UTF-16 unit at most, a comma, the head and the tail.
    const needed = this.#head.length + this.#tail.length + chars * 3 + 1;
    const bytes = needed <= BUFFER_BYTES
      ? this.#spare.pop() ?? new Uint8Array(BUFFER_BYTES)
      : new Uint8Array(needed);
    bytes.set(this.#head);
    return this.#open = { bytes, length: this.#head.length, spans: 0 };
  }

  #close(): void {
    const open = this.#open;
    if (!open) return;
    this.#open = undefined;
    if (open.spans === 0) {
      this.release({ body: open.bytes, spans: 0 });
      return;
    }
    open.bytes.set(this.#tail, open.length);
    this.#closed.push({
      body: open.bytes.subarray(0, open.length + this.#tail.length),
      spans: open.spans,
    });
  }
}
