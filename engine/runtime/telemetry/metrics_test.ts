import assert from "node:assert/strict";
import { MetricRegistry, parseLabelAllowlist } from "./metrics.ts";
import { renderPrometheus } from "./prometheus.ts";
import { parsePrometheusText } from "../../../tests/support/prometheus_text.ts";

Deno.test("meters: counters add per series, gauges are read at collection, histograms bucket", async () => {
  const registry = new MetricRegistry();
  const counter = registry.counter({
    name: "sutra.test.count",
    description: "d",
    labels: ["process"],
  });
  counter.add(1, { process: "a" });
  counter.add(2, { process: "a" });
  counter.add(1, { process: "b" });
  counter.add(-5, { process: "b" });
  let depth = 3;
  registry.gauge(
    { name: "sutra.test.depth", description: "d", labels: ["lane"] },
    () => [{ labels: { lane: "0" }, value: depth }],
  );
  const histogram = registry.histogram(
    { name: "sutra.test.lag", description: "d", unit: "ms", labels: [] },
    [10, 100],
  );
  for (const v of [5, 50, 500, 10]) histogram.record(v);
  depth = 4;
  const [count, gauge, hist] = await registry.collect();
  assert.deepEqual(count.points, [
    { labels: { process: "a" }, value: 3 },
    { labels: { process: "b" }, value: 1 },
  ]);
  assert.deepEqual(gauge.points, [{ labels: { lane: "0" }, value: 4 }]);
  assert.equal(hist.kind, "histogram");
  assert.deepEqual(hist.points, [{ labels: {}, count: 4, sum: 565, buckets: [2, 1, 1] }]);
});

Deno.test("meters: only allowlisted labels exist; an undeclarable label is refused", async () => {
  assert.throws(
    () =>
      new MetricRegistry().counter({
        name: "sutra.test.bad",
        description: "d",
        labels: ["instanceId" as "process"],
      }),
    /not allowed/,
  );
  assert.match(String(parseLabelAllowlist("process, businessKey")), /'businessKey' cannot be/);
  const allow = parseLabelAllowlist("process");
  assert.ok(allow instanceof Set);
  const registry = new MetricRegistry(allow);
  const counter = registry.counter({
    name: "sutra.test.merged",
    description: "d",
    labels: ["process", "node"],
  });
  counter.add(1, { process: "p", node: "a" });
  counter.add(1, { process: "p", node: "b" });
  const [metric] = await registry.collect();
  assert.deepEqual(metric.labels, ["process"]);
  assert.deepEqual(metric.points, [{ labels: { process: "p" }, value: 2 }]);
});

Deno.test("meters: a gauge whose reader fails is left out, the rest still collected", async () => {
  const registry = new MetricRegistry();
  registry.gauge({ name: "sutra.test.broken", description: "d", labels: [] }, () => {
    throw new Error("database down");
  });
  registry.counter({ name: "sutra.test.fine", description: "d", labels: [] }).add(1);
  assert.deepEqual((await registry.collect()).map((m) => m.name), ["sutra.test.fine"]);
});

Deno.test("prometheus: the exposition passes a strict parser, escapes included", async () => {
  const registry = new MetricRegistry();
  registry.counter({
    name: "sutra.instance.started",
    description: "Started\\n",
    labels: ["process"],
  })
    .add(2, { process: 'we"ird\\name\nx' });
  registry.gauge(
    { name: "sutra.engine.shard.queue-depth", description: "d", labels: ["lane"] },
    () => [
      { labels: { lane: "0" }, value: 0 },
      { labels: { lane: "1" }, value: 7 },
    ],
  );
  const h = registry.histogram({
    name: "sutra.outbox.delivery-lag",
    description: "d",
    labels: ["scheme"],
  }, [
    1,
    10,
  ]);
  h.record(0.5, { scheme: "http" });
  h.record(20, { scheme: "http" });
  const text = renderPrometheus(await registry.collect());
  const families = parsePrometheusText(text);
  const started = families.get("sutra_instance_started_total")!;
  assert.equal(started.type, "counter");
  assert.deepEqual(started.samples, [{
    name: "sutra_instance_started_total",
    labels: { process: 'we"ird\\name\nx' },
    value: 2,
  }]);
  assert.deepEqual(
    families.get("sutra_engine_shard_queue_depth")!.samples.map((s) => [s.labels.lane, s.value]),
    [["0", 0], ["1", 7]],
  );
  const lag = families.get("sutra_outbox_delivery_lag")!;
  assert.deepEqual(
    lag.samples.map((s) => [s.name, s.labels.le ?? "", s.value]),
    [
      ["sutra_outbox_delivery_lag_bucket", "1", 1],
      ["sutra_outbox_delivery_lag_bucket", "10", 1],
      ["sutra_outbox_delivery_lag_bucket", "+Inf", 2],
      ["sutra_outbox_delivery_lag_sum", "", 20.5],
      ["sutra_outbox_delivery_lag_count", "", 2],
    ],
  );
});

Deno.test("the strict parser refuses what the format forbids", () => {
  for (
    const bad of [
      "x 1\n",
      "# TYPE x counter\ny 1\n",
      '# TYPE x gauge\nx{a="1"} 1\nx{a="1"} 2\n',
      '# TYPE x gauge\nx{a="\\q"} 1\n',
      "# TYPE x gauge\nx one\n",
      "# TYPE x gauge\n# TYPE x gauge\n",
      '# TYPE x histogram\nx_bucket{le="+Inf"} 2\nx_count 3\n',
      "# TYPE x gauge\nx 1",
    ]
  ) {
    assert.throws(() => parsePrometheusText(bad), Error, bad);
  }
});

Deno.test("meters: a gauge's series that differ only in a dropped label add up", async () => {
  const allow = parseLabelAllowlist("process");
  assert.ok(allow instanceof Set);
  const registry = new MetricRegistry(allow);
  registry.gauge({ name: "sutra.test.depth", description: "d", labels: ["lane"] }, () => [
    { labels: { lane: "0" }, value: 2 },
    { labels: { lane: "1" }, value: 3 },
  ]);
  const [metric] = await registry.collect();
  assert.deepEqual(metric.points, [{ labels: {}, value: 5 }]);
});
