/**
 * OTLP/JSON request bodies (the protobuf messages' JSON mapping, as an
 * OTLP/HTTP collector accepts them at `/v1/traces` and `/v1/metrics`):
 * ids in hex, 64-bit integers and nanosecond times as decimal strings.
 *
 * @module
 */
import type { Attributes, AttributeValue } from "@opentelemetry/api";
import { SpanStatusCode } from "@opentelemetry/api";
import type { FinishedSpan } from "./tracer.ts";
import type { MetricData } from "./metrics.ts";

/** The instrumentation scope every signal is reported under. */
export interface Scope {
  readonly name: string;
  readonly version: string;
}

/** An OTLP AnyValue. */
type AnyValue =
  | { stringValue: string }
  | { boolValue: boolean }
  | { intValue: string }
  | { doubleValue: number }
  | { arrayValue: { values: AnyValue[] } };

function anyValue(value: AttributeValue | null | undefined): AnyValue {
  if (Array.isArray(value)) return { arrayValue: { values: value.map((v) => anyValue(v)) } };
  if (typeof value === "boolean") return { boolValue: value };
  if (typeof value === "number") {
    return Number.isInteger(value) ? { intValue: String(value) } : { doubleValue: value };
  }
  return { stringValue: String(value ?? "") };
}

/** OTLP key-value list of attributes. */
export function keyValues(
  attributes: Readonly<Attributes> | Readonly<Record<string, string>>,
): { key: string; value: AnyValue }[] {
  return Object.entries(attributes)
    .filter(([, v]) => v !== undefined)
    .map(([key, value]) => ({ key, value: anyValue(value as AttributeValue) }));
}

/** Epoch milliseconds as OTLP nanoseconds (a decimal string; microsecond precision). */
export function nanos(ms: number): string {
  // Microseconds since the epoch stay well inside a double's exact integers.
  return `${Math.round(ms * 1_000)}000`;
}

const STATUS = {
  [SpanStatusCode.UNSET]: 0,
  [SpanStatusCode.OK]: 1,
  [SpanStatusCode.ERROR]: 2,
};

/** An `ExportTraceServiceRequest`. */
export function tracesRequest(
  resource: Readonly<Attributes>,
  scope: Scope,
  spans: readonly FinishedSpan[],
): unknown {
  return {
    resourceSpans: [{
      resource: { attributes: keyValues(resource) },
      scopeSpans: [{
        scope,
        spans: spans.map((s) => ({
          traceId: s.traceId,
          spanId: s.spanId,
          ...(s.parentSpanId ? { parentSpanId: s.parentSpanId } : {}),
          name: s.name,
          // The API counts kinds from INTERNAL = 0; OTLP from UNSPECIFIED = 0.
          kind: s.kind + 1,
          startTimeUnixNano: nanos(s.startMs),
          endTimeUnixNano: nanos(s.endMs),
          attributes: keyValues(s.attributes),
          // Empty lists and an unset status are left out, as the protobuf JSON mapping allows.
          ...(s.events.length === 0 ? {} : {
            events: s.events.map((e) => ({
              name: e.name,
              timeUnixNano: nanos(e.atMs),
              attributes: keyValues(e.attributes),
            })),
          }),
          ...(s.links.length === 0 ? {} : {
            links: s.links.map((l) => ({
              traceId: l.context.traceId,
              spanId: l.context.spanId,
              attributes: keyValues(l.attributes ?? {}),
            })),
          }),
          ...(s.status.code === SpanStatusCode.UNSET ? {} : {
            status: {
              code: STATUS[s.status.code],
              ...(s.status.message ? { message: s.status.message } : {}),
            },
          }),
        })),
      }],
    }],
  };
}

/** An `ExportMetricsServiceRequest`; cumulative temporality, monotonic sums for counters. */
export function metricsRequest(
  resource: Readonly<Attributes>,
  scope: Scope,
  metrics: readonly MetricData[],
  times: { readonly startMs: number; readonly nowMs: number },
): unknown {
  const start = nanos(times.startMs);
  const now = nanos(times.nowMs);
  return {
    resourceMetrics: [{
      resource: { attributes: keyValues(resource) },
      scopeMetrics: [{
        scope,
        metrics: metrics.map((m) => {
          const head = { name: m.name, description: m.description, unit: m.unit ?? "1" };
          if (m.kind === "histogram") {
            return {
              ...head,
              histogram: {
                aggregationTemporality: 2,
                dataPoints: m.points.map((p) => ({
                  attributes: keyValues(p.labels),
                  startTimeUnixNano: start,
                  timeUnixNano: now,
                  count: String(p.count),
                  sum: p.sum,
                  bucketCounts: p.buckets.map(String),
                  explicitBounds: m.bounds,
                })),
              },
            };
          }
          const dataPoints = m.points.map((p) => ({
            attributes: keyValues(p.labels),
            ...(m.kind === "counter" ? { startTimeUnixNano: start } : {}),
            timeUnixNano: now,
            ...(Number.isInteger(p.value) ? { asInt: String(p.value) } : { asDouble: p.value }),
          }));
          return m.kind === "counter"
            ? { ...head, sum: { aggregationTemporality: 2, isMonotonic: true, dataPoints } }
            : { ...head, gauge: { dataPoints } };
        }),
      }],
    }],
  };
}
