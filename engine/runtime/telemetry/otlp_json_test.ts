import assert from "node:assert/strict";
import { SpanKind, SpanStatusCode } from "@opentelemetry/api";
import { metricsRequest, nanos, spanJson, tracesEnvelope } from "./otlp_json.ts";
import type { FinishedSpan } from "./tracer.ts";

const span: FinishedSpan = {
  name: 'sutra."commit"',
  kind: SpanKind.CONSUMER,
  traceId: "4bf92f3577b34da6a3ce929d0e0e4736",
  spanId: "00f067aa0ba902b7",
  parentSpanId: "1111111111111111",
  startMs: 1_764_636_000_000.5,
  endMs: 1_764_636_000_002.25,
  attributes: { s: "a\nb", i: 3, d: 0.5, b: true, list: ["x", "y"] },
  links: [{
    context: { traceId: "a".repeat(32), spanId: "b".repeat(16), traceFlags: 1 },
    attributes: { "sutra.link": "resumes" },
  }],
  events: [{
    name: "exception",
    atMs: 1_764_636_000_001,
    attributes: { "exception.message": "x" },
  }],
  status: { code: SpanStatusCode.ERROR, message: "SUTRA.RUNTIME.UNEXPECTED" },
};

Deno.test("OTLP/JSON traces: ids in hex, times as nanosecond strings, typed attribute values", () => {
  const [head, tail] = tracesEnvelope({ "service.name": "sutra" }, {
    name: "sutra-engine",
    version: "1",
  });
  const spans = [span, {
    ...span,
    parentSpanId: undefined,
    links: [],
    events: [],
    status: { code: SpanStatusCode.UNSET },
    attributes: {},
  }];
  const body = JSON.parse(head + spans.map(spanJson).join(",") + tail);
  const [rs] = body.resourceSpans;
  assert.deepEqual(rs.resource.attributes, [{
    key: "service.name",
    value: { stringValue: "sutra" },
  }]);
  assert.deepEqual(rs.scopeSpans[0].scope, { name: "sutra-engine", version: "1" });
  const [full, bare] = rs.scopeSpans[0].spans;
  assert.deepEqual(full, {
    traceId: span.traceId,
    spanId: span.spanId,
    parentSpanId: "1111111111111111",
    name: 'sutra."commit"',
    kind: 5,
    startTimeUnixNano: "1764636000000500000",
    endTimeUnixNano: "1764636000002250000",
    attributes: [
      { key: "s", value: { stringValue: "a\nb" } },
      { key: "i", value: { intValue: "3" } },
      { key: "d", value: { doubleValue: 0.5 } },
      { key: "b", value: { boolValue: true } },
      {
        key: "list",
        value: { arrayValue: { values: [{ stringValue: "x" }, { stringValue: "y" }] } },
      },
    ],
    events: [{
      name: "exception",
      timeUnixNano: "1764636000001000000",
      attributes: [{ key: "exception.message", value: { stringValue: "x" } }],
    }],
    links: [{
      traceId: "a".repeat(32),
      spanId: "b".repeat(16),
      attributes: [{ key: "sutra.link", value: { stringValue: "resumes" } }],
    }],
    status: { code: 2, message: "SUTRA.RUNTIME.UNEXPECTED" },
  });
  assert.deepEqual(Object.keys(bare), [
    "traceId",
    "spanId",
    "name",
    "kind",
    "startTimeUnixNano",
    "endTimeUnixNano",
    "attributes",
  ]);
  assert.equal(nanos(1), "1000000");
});

Deno.test("OTLP/JSON metrics: counters as monotonic cumulative sums, gauges, histograms", () => {
  const body = metricsRequest({}, { name: "s", version: "1" }, [
    {
      name: "c",
      description: "d",
      labels: [],
      kind: "counter",
      points: [{ labels: {}, value: 2 }],
    },
    {
      name: "g",
      description: "d",
      labels: [],
      kind: "gauge",
      points: [{ labels: {}, value: 0.5 }],
    },
    {
      name: "h",
      description: "d",
      unit: "ms",
      labels: ["scheme"],
      kind: "histogram",
      bounds: [1],
      points: [{ labels: { scheme: "http" }, count: 2, sum: 3, buckets: [1, 1] }],
    },
  ], { startMs: 1, nowMs: 2 }) as { resourceMetrics: { scopeMetrics: { metrics: unknown[] }[] }[] };
  const [c, g, h] = body.resourceMetrics[0].scopeMetrics[0].metrics;
  assert.deepEqual(c, {
    name: "c",
    description: "d",
    unit: "1",
    sum: {
      aggregationTemporality: 2,
      isMonotonic: true,
      dataPoints: [{
        attributes: [],
        startTimeUnixNano: "1000000",
        timeUnixNano: "2000000",
        asInt: "2",
      }],
    },
  });
  assert.deepEqual(g, {
    name: "g",
    description: "d",
    unit: "1",
    gauge: { dataPoints: [{ attributes: [], timeUnixNano: "2000000", asDouble: 0.5 }] },
  });
  assert.deepEqual((h as { histogram: { dataPoints: unknown[] } }).histogram.dataPoints, [{
    attributes: [{ key: "scheme", value: { stringValue: "http" } }],
    startTimeUnixNano: "1000000",
    timeUnixNano: "2000000",
    count: "2",
    sum: 3,
    bucketCounts: ["1", "1"],
    explicitBounds: [1],
  }]);
});

Deno.test("OTLP/JSON metrics: delta temporality marks sums and histograms, not gauges", () => {
  const body = metricsRequest({}, { name: "s", version: "1" }, [
    { name: "c", description: "d", labels: [], kind: "counter", points: [] },
    { name: "g", description: "d", labels: [], kind: "gauge", points: [] },
    { name: "h", description: "d", labels: [], kind: "histogram", bounds: [1], points: [] },
  ], { startMs: 1, nowMs: 2, temporality: "delta" }) as {
    resourceMetrics: {
      scopeMetrics: { metrics: Record<string, { aggregationTemporality?: number }>[] }[];
    }[];
  };
  const [c, g, h] = body.resourceMetrics[0].scopeMetrics[0].metrics;
  assert.equal(c.sum.aggregationTemporality, 1);
  assert.equal(g.gauge.aggregationTemporality, undefined);
  assert.equal(h.histogram.aggregationTemporality, 1);
});
