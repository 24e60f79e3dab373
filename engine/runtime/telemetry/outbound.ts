/**
 * Trace context on the way out. A step's outbox rows are stamped at commit
 * with the committing span as their `traceparent`; the worker's attempt
 * continues from it in a span of its own and hands the sink that span as
 * the message's parent (HTTP and broker headers alike; a CloudEvent's
 * `ce-traceparent` follows), so the receiving engine's trace is a child of
 * the sending one's.
 *
 * @module
 */
import { type Attributes, type SpanKind, trace } from "@opentelemetry/api";
import type { Database } from "../../persistence/mod.ts";
import {
  contexts,
  EMPTY_CONTEXT,
  extractTraceContext,
  injectTraceContext,
  validSpanContext,
} from "./context.ts";
import { telemetryOf } from "./telemetry.ts";

/** Headers with the current span as their parent; unchanged outside a span. */
export function stampTraceparent<H extends Readonly<Record<string, string>>>(
  headers: H,
): H | Record<string, string> {
  const span = validSpanContext(contexts.active());
  return span ? injectTraceContext(headers, span) : headers;
}

/** An outbox row with the current span as its `traceparent`; unchanged outside a span. */
export function stampOutboxRow<R extends { readonly headers: Readonly<Record<string, string>> }>(
  row: R,
): R {
  const headers = stampTraceparent(row.headers);
  return headers === row.headers ? row : { ...row, headers };
}

/** What to call the span of one outbound attempt. */
export interface OutboundSpan {
  readonly name: string;
  readonly kind: SpanKind;
  /** The stored headers, whose `traceparent` is the parent. */
  readonly headers: Readonly<Record<string, string>>;
  readonly attributes: Attributes;
}

/**
 * Runs one outbound attempt, in its span when the engine on `db` traces;
 * `run` gets a function that stamps headers with that span as parent (the
 * identity without tracing).
 */
export async function traceOutbound<T>(
  db: Database,
  what: OutboundSpan,
  run: (
    stamp: (h: Readonly<Record<string, string>>) => Readonly<Record<string, string>>,
  ) => Promise<T>,
): Promise<T> {
  const tracer = telemetryOf(db)?.tracer;
  if (!tracer) return await run((h) => h);
  const remote = extractTraceContext(what.headers);
  const parent = remote ? trace.setSpanContext(EMPTY_CONTEXT, remote) : EMPTY_CONTEXT;
  const span = tracer.startSpan(
    what.name,
    { kind: what.kind, attributes: what.attributes },
    parent,
  );
  const stamp = (h: Readonly<Record<string, string>>) => injectTraceContext(h, span.spanContext());
  try {
    return await contexts.with(trace.setSpan(parent, span), () => run(stamp));
  } finally {
    span.end();
  }
}
