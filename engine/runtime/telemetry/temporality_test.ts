import assert from "node:assert/strict";
import { MetricRegistry } from "./metrics.ts";
import { DeltaBaseline } from "./temporality.ts";

function meters() {
  const registry = new MetricRegistry();
  const count = registry.counter({ name: "c", description: "d", labels: ["process"] });
  const lag = registry.histogram({ name: "h", description: "d", labels: [] }, [10]);
  let depth = 1;
  registry.gauge({ name: "g", description: "d", labels: [] }, () => [{ labels: {}, value: depth }]);
  return { registry, count, lag, setDepth: (n: number) => depth = n };
}

/** The points of each meter, by name. */
function byName(metrics: Awaited<ReturnType<MetricRegistry["collect"]>>) {
  return Object.fromEntries(metrics.map((m) => [m.name, m.points]));
}

Deno.test("delta: counters and histograms count from the last export taken; gauges pass", async () => {
  const { registry, count, lag, setDepth } = meters();
  const baseline = new DeltaBaseline();
  count.add(3, { process: "a" });
  lag.record(4);
  lag.record(40);
  const first = baseline.since(await registry.collect());
  assert.deepEqual(byName(first.metrics), {
    c: [{ labels: { process: "a" }, value: 3 }],
    h: [{ labels: {}, count: 2, sum: 44, buckets: [1, 1] }],
    g: [{ labels: {}, value: 1 }],
  });
  first.taken();

  count.add(2, { process: "a" });
  count.add(5, { process: "b" });
  lag.record(50);
  setDepth(4);
  const second = baseline.since(await registry.collect());
  assert.deepEqual(byName(second.metrics), {
    c: [{ labels: { process: "a" }, value: 2 }, { labels: { process: "b" }, value: 5 }],
    h: [{ labels: {}, count: 1, sum: 50, buckets: [0, 1] }],
    g: [{ labels: {}, value: 4 }],
  });
  second.taken();

  // Nothing changed: only the gauge is left.
  assert.deepEqual(byName(baseline.since(await registry.collect()).metrics), {
    g: [{ labels: {}, value: 4 }],
  });
});

Deno.test("delta: an export the collector did not take moves nothing on", async () => {
  const { registry, count } = meters();
  const baseline = new DeltaBaseline();
  count.add(3, { process: "a" });
  baseline.since(await registry.collect()); // never taken
  count.add(1, { process: "a" });
  const retried = baseline.since(await registry.collect());
  assert.deepEqual(byName(retried.metrics).c, [{ labels: { process: "a" }, value: 4 }]);
});

Deno.test("delta: a total that went down was reset, and all of it is new", () => {
  const baseline = new DeltaBaseline();
  const observed = (value: number) => [{
    name: "lane.dispatches",
    description: "d",
    labels: [],
    kind: "counter" as const,
    points: [{ labels: {}, value }],
  }];
  baseline.since(observed(10)).taken();
  assert.deepEqual(baseline.since(observed(4)).metrics[0].points, [{ labels: {}, value: 4 }]);
});
