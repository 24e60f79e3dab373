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
  context,
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

/** The wall clock in epoch milliseconds, with sub-millisecond precision. */
export function nowMs(): number {
  return performance.timeOrigin + performance.now();
}

function timeOf(input: TimeInput | undefined): number {
  if (input === undefined) return nowMs();
  if (typeof input === "number") return input;
  if (input instanceof Date) return input.getTime();
  // HrTime: [seconds, nanoseconds].
  return input[0] * 1_000 + input[1] / 1e6;
}

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, "0"));

/** A random lower-case hex id of `bytes` bytes (never all zero). */
export function randomId(bytes: 8 | 16): string {
  const raw = crypto.getRandomValues(new Uint8Array(bytes));
  if (raw.every((b) => b === 0)) raw[0] = 1;
  let out = "";
  for (const b of raw) out += HEX[b];
  return out;
}

class RecordingSpan implements Span {
  readonly #context: SpanContext;
  readonly #parentSpanId: string | undefined;
  readonly #kind: SpanKind;
  readonly #startMs: number;
  readonly #attributes: Attributes;
  readonly #links: Link[];
  #events: SpanEvent[] | undefined;
  #name: string;
  #status: SpanStatus = { code: SpanStatusCode.UNSET };
  #ended = false;
  readonly #onEnd: (span: FinishedSpan) => void;

  constructor(
    name: string,
    spanContext: SpanContext,
    parentSpanId: string | undefined,
    options: SpanOptions,
    onEnd: (span: FinishedSpan) => void,
  ) {
    this.#name = name;
    this.#context = spanContext;
    this.#parentSpanId = parentSpanId;
    this.#kind = options.kind ?? SpanKind.INTERNAL;
    this.#startMs = timeOf(options.startTime);
    this.#attributes = { ...options.attributes };
    this.#links = [...(options.links ?? [])];
    this.#onEnd = onEnd;
  }

  spanContext(): SpanContext {
    return this.#context;
  }

  setAttribute(key: string, value: AttributeValue): this {
    if (!this.#ended && value !== undefined) this.#attributes[key] = value;
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
    (this.#events ??= []).push({
      name,
      atMs: timeOf(timeGiven ? attributesOrStartTime as TimeInput : startTime),
      attributes: timeGiven ? {} : { ...(attributesOrStartTime as SpanAttributes | undefined) },
    });
    return this;
  }

  addLink(link: Link): this {
    if (!this.#ended) this.#links.push(link);
    return this;
  }

  addLinks(links: Link[]): this {
    for (const link of links) this.addLink(link);
    return this;
  }

  setStatus(status: SpanStatus): this {
    if (!this.#ended) this.#status = status;
    return this;
  }

  updateName(name: string): this {
    if (!this.#ended) this.#name = name;
    return this;
  }

  end(endTime?: TimeInput): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#onEnd({
      name: this.#name,
      kind: this.#kind,
      traceId: this.#context.traceId,
      spanId: this.#context.spanId,
      ...(this.#parentSpanId ? { parentSpanId: this.#parentSpanId } : {}),
      startMs: this.#startMs,
      endMs: timeOf(endTime),
      attributes: this.#attributes,
      links: this.#links,
      events: this.#events ?? [],
      status: this.#status,
    });
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
  startSpan(name: string, options: SpanOptions = {}, ctx: Context = context.active()): Span {
    const parent = options.root ? undefined : trace.getSpanContext(ctx);
    const valid = parent !== undefined && trace.isSpanContextValid(parent);
    const spanContext: SpanContext = {
      traceId: valid ? parent.traceId : randomId(16),
      spanId: randomId(8),
      traceFlags: valid ? parent.traceFlags : TraceFlags.SAMPLED,
      ...(valid && parent.traceState ? { traceState: parent.traceState } : {}),
    };
    if ((spanContext.traceFlags & TraceFlags.SAMPLED) === 0) {
      return trace.wrapSpanContext(spanContext);
    }
    return new RecordingSpan(
      name,
      spanContext,
      valid ? parent.spanId : undefined,
      options,
      this.#onEnd,
    );
  }

  /** Starts a span and runs `fn` with it current (the caller ends it). */
  startActiveSpan<F extends (span: Span) => unknown>(
    name: string,
    ...rest: [F] | [SpanOptions, F] | [SpanOptions, Context, F]
  ): ReturnType<F> {
    const fn = rest[rest.length - 1] as F;
    const options = (rest.length > 1 ? rest[0] : {}) as SpanOptions;
    const parent = (rest.length > 2 ? rest[1] : context.active()) as Context;
    const span = this.startSpan(name, options, parent);
    return context.with(trace.setSpan(parent, span), () => fn(span)) as ReturnType<F>;
  }
}
