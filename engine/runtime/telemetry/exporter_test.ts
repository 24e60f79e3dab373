import assert from "node:assert/strict";
import { context, SpanKind, trace } from "@opentelemetry/api";
import { createLogger } from "../../core/mod.ts";
import { startOtlpReceiver } from "../../../tests/support/otlp_receiver.ts";
import { registerContextManager } from "./context.ts";
import { OtlpExporter } from "./exporter.ts";
import { MetricRegistry } from "./metrics.ts";
import { SutraTracer } from "./tracer.ts";

registerContextManager();
const scope = { name: "sutra-engine", version: "test" };

function logged() {
  const records: Record<string, unknown>[] = [];
  return {
    records,
    logger: createLogger("telemetry", { write: (line) => records.push(JSON.parse(line)) }),
  };
}

Deno.test("exporter: spans reach an OTLP/HTTP receiver with parent, kind, attributes and meters", async () => {
  await using receiver = startOtlpReceiver();
  const registry = new MetricRegistry();
  registry.counter({ name: "sutra.test.count", description: "d", labels: ["process"] })
    .add(3, { process: "p" });
  const exporter = new OtlpExporter({
    endpoint: receiver.url + "/",
    resource: { "service.name": "sutra-test" },
    scope,
    logger: logged().logger,
    metrics: registry,
    intervalMs: 3_600_000,
  });
  const tracer = new SutraTracer((s) => exporter.enqueue(s));
  await tracer.startActiveSpan("outer", { kind: SpanKind.SERVER }, async (outer) => {
    await Promise.resolve();
    const inner = tracer.startSpan("inner", { attributes: { "bpm.instance.id": "i-1", n: 2 } });
    inner.recordException(new TypeError("boom"));
    inner.end();
    outer.end();
  });
  exporter.enqueueLog({
    atMs: 1_764_636_000_000,
    level: "warn",
    loggerName: "engine/outbox",
    message: "poisoned",
    traceId: "4bf92f3577b34da6a3ce929d0e0e4736",
    spanId: "00f067aa0ba902b7",
    fields: { attempts: 3, detail: { code: "X" }, error: new Error("refused") },
  });
  await exporter.flush();
  assert.deepEqual(receiver.protocolErrors, []);
  assert.deepEqual(receiver.logs(), [{
    severityText: "WARN",
    severityNumber: 13,
    body: "poisoned",
    attributes: {
      loggerName: "engine/outbox",
      attempts: 3,
      detail: '{"code":"X"}',
      error: "refused",
    },
    traceId: "4bf92f3577b34da6a3ce929d0e0e4736",
    spanId: "00f067aa0ba902b7",
  }]);
  assert.equal(exporter.stats.exportedLogs, 1);
  const [inner, outer] = receiver.spans();
  assert.equal(outer.name, "outer");
  assert.equal(outer.kind, 2);
  assert.equal(outer.parentSpanId, undefined);
  assert.equal(inner.parentSpanId, outer.spanId);
  assert.equal(inner.traceId, outer.traceId);
  assert.deepEqual(inner.attributes, { "bpm.instance.id": "i-1", n: 2 });
  assert.ok(inner.endNs >= inner.startNs);
  assert.equal(outer.resource["service.name"], "sutra-test");
  assert.deepEqual(receiver.latestPoints(), [{
    name: "sutra.test.count",
    type: "sum",
    attributes: { process: "p" },
    value: 3,
  }]);
  assert.equal(exporter.stats.exportedSpans, 2);
});

Deno.test("exporter: a child of an unsampled remote parent is not recorded", () => {
  const ended: string[] = [];
  const tracer = new SutraTracer((s) => ended.push(s.name));
  const parent = trace.setSpanContext(context.active(), {
    traceId: "4bf92f3577b34da6a3ce929d0e0e4736",
    spanId: "00f067aa0ba902b7",
    traceFlags: 0,
    isRemote: true,
  });
  const span = tracer.startSpan("quiet", {}, parent);
  assert.equal(span.isRecording(), false);
  assert.equal(span.spanContext().traceId, "4bf92f3577b34da6a3ce929d0e0e4736");
  span.end();
  assert.deepEqual(ended, []);
});

Deno.test("exporter: a dead collector fails nothing, logs once, and a full queue drops", async () => {
  // A port that was just listening and is now closed: connections are refused.
  const probe = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (probe.addr as Deno.NetAddr).port;
  probe.close();
  const { logger, records } = logged();
  const exporter = new OtlpExporter({
    endpoint: `http://127.0.0.1:${port}`,
    resource: {},
    scope,
    logger,
    metrics: new MetricRegistry(),
    queueCapacity: 3,
    intervalMs: 3_600_000,
  });
  const tracer = new SutraTracer((s) => exporter.enqueue(s));
  for (let i = 0; i < 5; i++) tracer.startSpan(`s${i}`).end();
  assert.equal(exporter.stats.droppedSpans, 2);
  await exporter.flush();
  tracer.startSpan("again").end();
  await exporter.flush();
  await exporter.stop();
  assert.equal(exporter.stats.exportedSpans, 0);
  assert.ok(exporter.stats.failedRequests >= 2);
  const warnings = records.filter((r) => r.level === "WARN");
  assert.equal(warnings.length, 1, "the failure is logged once, not per request");
  assert.match(String(warnings[0].message), /telemetry export failed/);
});

Deno.test("exporter: a collector that never answers holds stop up for one deadline at most", async () => {
  // Accepts connections and reads nothing: every request hangs until aborted.
  const silent = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const held: Deno.Conn[] = [];
  const accepting = (async () => {
    for await (const conn of silent) held.push(conn);
  })();
  const exporter = new OtlpExporter({
    endpoint: `http://127.0.0.1:${(silent.addr as Deno.NetAddr).port}`,
    resource: {},
    scope,
    logger: logged().logger,
    timeoutMs: 200,
    intervalMs: 3_600_000,
  });
  exporter.start();
  new SutraTracer((s) => exporter.enqueue(s)).startSpan("hung").end();
  const sending = exporter.flush();
  await exporter.stop();
  await sending;
  assert.equal(exporter.stats.exportedSpans, 0);
  assert.ok(exporter.stats.failedRequests >= 1);
  silent.close();
  await accepting;
  for (const conn of held) conn.close();
});

Deno.test("exporter: with delta temporality each export carries what was added since the last one taken", async () => {
  await using receiver = startOtlpReceiver();
  const registry = new MetricRegistry();
  const count = registry.counter({ name: "sutra.test.count", description: "d", labels: [] });
  const lag = registry.histogram({ name: "sutra.test.lag", description: "d", labels: [] }, [10]);
  registry.gauge({ name: "sutra.test.depth", description: "d", labels: [] }, () => [
    { labels: {}, value: 7 },
  ]);
  const exporter = new OtlpExporter({
    endpoint: receiver.url,
    resource: {},
    scope,
    logger: logged().logger,
    metrics: registry,
    intervalMs: 3_600_000,
    temporality: "delta",
  });
  const sent = () =>
    Object.fromEntries(receiver.latestPoints().map((p) => [`${p.type} ${p.name}`, p.value]));
  count.add(3);
  lag.record(4);
  await exporter.flush();
  assert.deepEqual(sent(), {
    "sum sutra.test.count": 3,
    "histogram sutra.test.lag": 1,
    "gauge sutra.test.depth": 7,
  });
  count.add(2);
  await exporter.flush();
  // Only what changed is sent again, as the change; a gauge is a value and always sent.
  assert.deepEqual(sent(), { "sum sutra.test.count": 2, "gauge sutra.test.depth": 7 });
  await exporter.flush();
  assert.deepEqual(sent(), { "gauge sutra.test.depth": 7 });
  assert.deepEqual(receiver.protocolErrors, []);
});
