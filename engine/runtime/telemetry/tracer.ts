/**
 * A small OpenTelemetry tracer: spans implementing the API's `Span`, ended
 * spans handed to a callback (the exporter's queue) as plain records.
 * Sampling follows the parent: a root span is sampled, a child of an
 * unsampled remote parent is not recorded (its context still propagates,
 * with the flag off).
 *
 * @module
 */
import {
  type Attributes,
  type AttributeValue,
  type Context,
  type Exception,
  type Link,
  type Span,
  type SpanAttributes,
  type SpanContext,
  SpanKind,
  type SpanOptions,
  type SpanStatus,
  SpanStatusCode,
  type TimeInput,
  trace,
  TraceFlags,
  type Tracer,
} from "@opentelemetry/api";
import { CheckedSpanContext, contexts, validSpanContext } from "./context.ts";

/** A span as exported. */
export interface FinishedSpan {
  readonly name: string;
  readonly kind: SpanKind;
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId?: string;
  /** Epoch milliseconds (fractional). */
  readonly startMs: number;
  readonly endMs: number;
  readonly attributes: Readonly<Attributes>;
  readonly links: readonly Link[];
  readonly events: readonly SpanEvent[];
  readonly status: SpanStatus;
}

/** A timed event on a span (an exception, say). */
export interface SpanEvent {
  readonly name: string;
  readonly atMs: number;
  readonly attributes: Readonly<Attributes>;
}

const origin = performance.timeOrigin;

/** The wall clock in epoch milliseconds, with sub-millisecond precision. */
export function nowMs(): number {
  return origin + performance.now();
}

function timeOf(input: TimeInput | undefined): number {
  if (input === undefined) return nowMs();
  if (typeof input === "number") return input;
  if (input instanceof Date) return input.getTime();
  // HrTime: [seconds, nanoseconds].
  return input[0] * 1_000 + input[1] / 1e6;
}

// Random bytes drawn in bulk (one call to the system's generator per 256 span ids, not per id),
// written out through a table: converting numbers to hex costs several times as much.
const pool = new Uint8Array(2_048);
let used = pool.length;
const HEX = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, "0"));

/** A random lower-case hex id of `bytes` bytes (never all zero). */
export function randomId(bytes: 8 | 16): string {
  if (used + bytes > pool.length) {
    crypto.getRandomValues(pool);
    used = 0;
  }
  let id = "";
  let any = 0;
  for (let i = 0; i < bytes; i++) {
    const byte = pool[used++];
    any |= byte;
    id += HEX[byte];
  }
  return any === 0 ? randomId(bytes) : id;
}

const NO_LINKS: readonly Link[] = Object.freeze([]);
const NO_EVENTS: readonly SpanEvent[] = Object.freeze([]);
const UNSET: SpanStatus = Object.freeze({ code: SpanStatusCode.UNSET });

/** A recording span; once ended, the same object is the exported record (one allocation, not two). */
class RecordingSpan implements Span, FinishedSpan {
  name: string;
  readonly kind: SpanKind;
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId?: string;
  readonly startMs: number;
  endMs = 0;
  readonly attributes: Attributes;
  links: readonly Link[];
  events: readonly SpanEvent[] = NO_EVENTS;
  status: SpanStatus = UNSET;
  readonly #context: SpanContext;
  #ended = false;
  readonly #onEnd: (span: FinishedSpan) => void;

  constructor(
    name: string,
    spanContext: SpanContext,
    parentSpanId: string | undefined,
    options: SpanOptions,
    onEnd: (span: FinishedSpan) => void,
  ) {
    this.name = name;
    this.#context = spanContext;
    this.traceId = spanContext.traceId;
    this.spanId = spanContext.spanId;
    if (parentSpanId !== undefined) this.parentSpanId = parentSpanId;
    this.kind = options.kind ?? SpanKind.INTERNAL;
    this.startMs = timeOf(options.startTime);
    this.attributes = { ...options.attributes };
    this.links = options.links?.length ? [...options.links] : NO_LINKS;
    this.#onEnd = onEnd;
  }

  spanContext(): SpanContext {
    return this.#context;
  }

  setAttribute(key: string, value: AttributeValue): this {
    if (!this.#ended && value !== undefined) this.attributes[key] = value;
    return this;
  }

  setAttributes(attributes: SpanAttributes): this {
    for (const [key, value] of Object.entries(attributes)) this.setAttribute(key, value!);
    return this;
  }

  addEvent(
    name: string,
    attributesOrStartTime?: SpanAttributes | TimeInput,
    startTime?: TimeInput,
  ): this {
    if (this.#ended) return this;
    const timeGiven = typeof attributesOrStartTime === "number" ||
      attributesOrStartTime instanceof Date || Array.isArray(attributesOrStartTime);
    this.events = [...this.events, {
      name,
      atMs: timeOf(timeGiven ? attributesOrStartTime as TimeInput : startTime),
      attributes: timeGiven ? {} : { ...(attributesOrStartTime as SpanAttributes | undefined) },
    }];
    return this;
  }

  addLink(link: Link): this {
    if (!this.#ended) this.links = [...this.links, link];
    return this;
  }

  addLinks(links: Link[]): this {
    for (const link of links) this.addLink(link);
    return this;
  }

  setStatus(status: SpanStatus): this {
    if (!this.#ended) this.status = status;
    return this;
  }

  updateName(name: string): this {
    if (!this.#ended) this.name = name;
    return this;
  }

  end(endTime?: TimeInput): void {
    if (this.#ended) return;
    this.#ended = true;
    this.endMs = timeOf(endTime);
    this.#onEnd(this);
  }

  isRecording(): boolean {
    return !this.#ended;
  }

  recordException(exception: Exception, time?: TimeInput): void {
    const attributes: SpanAttributes = typeof exception === "string"
      ? { "exception.message": exception }
      : {
        "exception.type": String(exception.name ?? exception.code ?? "Error"),
        "exception.message": String(exception.message ?? ""),
      };
    this.addEvent("exception", attributes, time);
  }
}

/** A tracer whose ended spans go to `onEnd`. */
export class SutraTracer implements Tracer {
  readonly #onEnd: (span: FinishedSpan) => void;

  constructor(onEnd: (span: FinishedSpan) => void) {
    this.#onEnd = onEnd;
  }

  /** Starts a span, a child of the span current in `ctx` unless `options.root` says otherwise. */
  startSpan(name: string, options: SpanOptions = {}, ctx: Context = contexts.active()): Span {
    const parent = options.root ? undefined : validSpanContext(ctx);
    const spanContext = parent
      ? new CheckedSpanContext(parent.traceId, randomId(8), parent.traceFlags, parent.traceState)
      : new CheckedSpanContext(randomId(16), randomId(8), TraceFlags.SAMPLED);
    if ((spanContext.traceFlags & TraceFlags.SAMPLED) === 0) {
      return trace.wrapSpanContext(spanContext);
    }
    return new RecordingSpan(name, spanContext, parent?.spanId, options, this.#onEnd);
  }

  /** Starts a span and runs `fn` with it current (the caller ends it). */
  startActiveSpan<F extends (span: Span) => unknown>(
    name: string,
    ...rest: [F] | [SpanOptions, F] | [SpanOptions, Context, F]
  ): ReturnType<F> {
    const fn = rest[rest.length - 1] as F;
    const options = (rest.length > 1 ? rest[0] : {}) as SpanOptions;
    const parent = (rest.length > 2 ? rest[1] : contexts.active()) as Context;
    const span = this.startSpan(name, options, parent);
    return contexts.with(trace.setSpan(parent, span), () => fn(span)) as ReturnType<F>;
  }
}
