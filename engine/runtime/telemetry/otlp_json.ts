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
import type { ExportedLog } from "./log_context.ts";
import type { Temporality } from "./temporality.ts";

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

// The engine's spans use a handful of attribute keys and names: their JSON text is made once.
const quotedCache = new Map<string, string>();
const QUOTED_LIMIT = 1_024;

/** `text` as a JSON string, remembered for the next time while few distinct ones were seen. */
function quoted(text: string): string {
  let json = quotedCache.get(text);
  if (json === undefined) {
    json = JSON.stringify(text);
    if (quotedCache.size < QUOTED_LIMIT) quotedCache.set(text, json);
  }
  return json;
}

/** An attribute list as OTLP/JSON text. */
function keyValuesJson(attributes: Readonly<Attributes>): string {
  let out = "";
  for (const key in attributes) {
    const value = attributes[key];
    if (value === undefined) continue;
    const json = typeof value === "string"
      ? `{"stringValue":${JSON.stringify(value)}}`
      : JSON.stringify(anyValue(value));
    out += `${out === "" ? "" : ","}{"key":${quoted(key)},"value":${json}}`;
  }
  return `[${out}]`;
}

/**
 * One span as OTLP/JSON text, written directly (spans are the bulk of what
 * is exported, and building objects for `JSON.stringify` costs several times
 * as much); the rare parts (events, links, a status) through objects.
 */
export function spanJson(s: FinishedSpan): string {
  // The API counts kinds from INTERNAL = 0; OTLP from UNSPECIFIED = 0.
  let out = `{"traceId":"${s.traceId}","spanId":"${s.spanId}"` +
    (s.parentSpanId ? `,"parentSpanId":"${s.parentSpanId}"` : "") +
    `,"name":${quoted(s.name)},"kind":${s.kind + 1}` +
    `,"startTimeUnixNano":"${nanos(s.startMs)}","endTimeUnixNano":"${nanos(s.endMs)}"` +
    `,"attributes":${keyValuesJson(s.attributes)}`;
  // Empty lists and an unset status are left out, as the protobuf JSON mapping allows.
  if (s.events.length > 0) {
    out += `,"events":${
      JSON.stringify(s.events.map((e) => ({
        name: e.name,
        timeUnixNano: nanos(e.atMs),
        attributes: keyValues(e.attributes),
      })))
    }`;
  }
  if (s.links.length > 0) {
    out += `,"links":${
      JSON.stringify(s.links.map((l) => ({
        traceId: l.context.traceId,
        spanId: l.context.spanId,
        attributes: keyValues(l.attributes ?? {}),
      })))
    }`;
  }
  if (s.status.code !== SpanStatusCode.UNSET) {
    const status = {
      code: STATUS[s.status.code],
      ...(s.status.message ? { message: s.status.message } : {}),
    };
    out += `,"status":${JSON.stringify(status)}`;
  }
  return out + "}";
}

/**
 * The text of an `ExportTraceServiceRequest` before and after its spans
 * (each written by {@link spanJson}, comma-separated).
 */
export function tracesEnvelope(
  resource: Readonly<Attributes>,
  scope: Scope,
): readonly [head: string, tail: string] {
  return [
    `{"resourceSpans":[{"resource":{"attributes":${keyValuesJson(resource)}},` +
    `"scopeSpans":[{"scope":${JSON.stringify(scope)},"spans":[`,
    "]}]}]}",
  ];
}

/**
 * An `ExportMetricsServiceRequest`: counters as monotonic sums, gauges, and
 * histograms, the sums and histograms cumulative (from `startMs`, when the
 * engine started) unless `times.temporality` is `delta` (the points are
 * then what was added since `startMs`, the last export).
 */
export function metricsRequest(
  resource: Readonly<Attributes>,
  scope: Scope,
  metrics: readonly MetricData[],
  times: {
    readonly startMs: number;
    readonly nowMs: number;
    readonly temporality?: Temporality;
  },
): unknown {
  // AGGREGATION_TEMPORALITY_DELTA = 1, AGGREGATION_TEMPORALITY_CUMULATIVE = 2.
  const aggregationTemporality = times.temporality === "delta" ? 1 : 2;
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
                aggregationTemporality,
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
            ? { ...head, sum: { aggregationTemporality, isMonotonic: true, dataPoints } }
            : { ...head, gauge: { dataPoints } };
        }),
      }],
    }],
  };
}

const SEVERITY = { trace: 1, debug: 5, info: 9, warn: 13, error: 17 } as const;

/** An `ExportLogsServiceRequest`: the message as the body, the logger and fields as attributes. */
export function logsRequest(
  resource: Readonly<Attributes>,
  scope: Scope,
  records: readonly ExportedLog[],
): unknown {
  return {
    resourceLogs: [{
      resource: { attributes: keyValues(resource) },
      scopeLogs: [{
        scope,
        logRecords: records.map((r) => ({
          timeUnixNano: nanos(r.atMs),
          severityNumber: SEVERITY[r.level],
          severityText: r.level.toUpperCase(),
          body: { stringValue: r.message },
          attributes: keyValues({
            loggerName: r.loggerName,
            ...Object.fromEntries(
              Object.entries(r.fields ?? {}).map(([k, v]) => [k, attributeOf(v)]),
            ),
          }),
          ...(r.traceId ? { traceId: r.traceId, spanId: r.spanId } : {}),
        })),
      }],
    }],
  };
}

/** A log field as an attribute value: scalars as they are, anything else as JSON text. */
function attributeOf(value: unknown): AttributeValue {
  if (typeof value === "string" || typeof value === "boolean") return value;
  if (typeof value === "number" && Number.isFinite(value)) return value;
  if (value instanceof Error) return value.message;
  return JSON.stringify(value) ?? String(value);
}
