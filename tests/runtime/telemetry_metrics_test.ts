/**
 * The meters after a known workload, read both ways: scraped at
 * `GET /sutra/metrics` (parsed by a strict Prometheus text parser) and as
 * exported to a local OTLP/HTTP receiver. Three orders park, two are
 * confirmed (each resumed, completed, sent out over HTTP and parked as a
 * pull task), one stray confirmation correlates with nothing.
 */
import assert from "node:assert/strict";
import { type Family, parsePrometheusText } from "../support/prometheus_text.ts";
import { startOtlpReceiver } from "../support/otlp_receiver.ts";
import { tier2Test, withServerDatabase } from "../support/test_database.ts";
import { METRIC_LABELS } from "../../engine/runtime/telemetry/metrics.ts";
import { bootEngine, post, until } from "./support.ts";
import { telemetryPackage, tracedEngine } from "./telemetry_support.ts";

const ALLOWED = new Set<string>(METRIC_LABELS);

function sum(family: Family | undefined, labels: Record<string, string> = {}): number {
  assert.ok(family, "the family is exposed");
  return family.samples
    .filter((s) => Object.entries(labels).every(([k, v]) => s.labels[k] === v))
    .reduce((total, s) => total + s.value, 0);
}

/** The workload and every assertion, on an engine with `database` settings added. */
async function knownWorkload(database: Record<string, string>): Promise<void> {
  await using receiver = startOtlpReceiver();
  const sent: (string | null)[] = [];
  const out = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (r) => {
    await r.body?.cancel();
    sent.push(r.headers.get("traceparent"));
    return new Response(null, { status: 204 });
  });
  const engine = await tracedEngine(receiver.url, {
    SUTRA_TELEMETRY_METRICS_PROMETHEUS: "true",
    SUTRA_ENGINE_SHARDS: "4",
    ...database,
  });
  try {
    await engine.deployments.deploy(
      await telemetryPackage(`http://127.0.0.1:${out.addr.port}/orders`),
    );
    const ids: string[] = [];
    for (const orderId of ["M-1", "M-2", "M-3"]) {
      const answer = await post(engine, "/channels/tel-order", { orderId });
      assert.equal(answer.status, 200);
      ids.push((answer.body.instances as { instanceId: string }[])[0].instanceId);
    }
    for (const orderId of ["M-1", "M-2"]) {
      assert.equal((await post(engine, "/channels/tel-confirm", { orderId })).status, 200);
    }
    assert.equal((await post(engine, "/channels/tel-confirm", { orderId: "M-404" })).status, 404);
    await until(async () => {
      const { rows } = await engine.database.query("select 1 from outbox");
      return rows.length === 0 && sent.length === 2;
    });
    assert.ok(sent.every((t) => t !== null && /^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/.test(t)));

    const response = await fetch(`${engine.url}/sutra/metrics`);
    assert.equal(response.status, 200);
    assert.match(response.headers.get("content-type")!, /^text\/plain; version=0\.0\.4/);
    const families = parsePrometheusText(await response.text());
    const order = { process: "order", tenant: "test" };
    assert.equal(sum(families.get("sutra_instance_started_total"), order), 3);
    assert.equal(sum(families.get("sutra_instance_suspended_total"), order), 3);
    assert.equal(sum(families.get("sutra_instance_resumed_total"), order), 2);
    assert.equal(sum(families.get("sutra_instance_completed_total"), order), 2);
    assert.equal(sum(families.get("sutra_instance_failed_total")), 0);
    const entered = families.get("sutra_token_entered_total");
    assert.equal(sum(entered, { process: "order", node: "OrderIn" }), 3);
    assert.equal(sum(entered, { process: "order", node: "Confirm" }), 3);
    assert.equal(sum(entered, { process: "order", node: "Ship" }), 2);
    assert.equal(sum(entered, { process: "order", node: "Done" }), 2);
    // Four lanes, each reported; the work spread over them adds up.
    const depth = families.get("sutra_engine_shard_queue_depth")!;
    assert.deepEqual(depth.samples.map((s) => [s.labels.lane, s.value]), [
      ["0", 0],
      ["1", 0],
      ["2", 0],
      ["3", 0],
    ]);
    assert.equal(sum(families.get("sutra_engine_shard_dispatches_total")), 5);
    assert.equal(sum(families.get("sutra_engine_shard_parks_total")), 3);
    assert.equal(sum(families.get("sutra_engine_shard_resumes_total")), 2);
    assert.equal(sum(families.get("sutra_engine_shard_handoffs_total")), 2);
    assert.equal(sum(families.get("sutra_engine_shard_claim_bounces_total")), 0);
    const attempts = families.get("sutra_outbox_attempts_total");
    assert.equal(sum(attempts, { scheme: "http", outcome: "delivered" }), 2);
    assert.equal(sum(attempts, { scheme: "pull", outcome: "delivered" }), 2);
    assert.equal(sum(families.get("sutra_outbox_pending")), 0);
    assert.equal(sum(families.get("sutra_outbox_lag")), 0);
    const lag = families.get("sutra_outbox_delivery_lag")!;
    assert.equal(
      lag.samples.find((s) => s.name.endsWith("_count") && s.labels.scheme === "http")?.value,
      2,
    );
    assert.equal(
      sum(families.get("sutra_task_queue_depth"), {
        destination: "pull://test/telemetry-flow/1.0.0/work",
      }),
      2,
    );
    assert.equal(sum(families.get("sutra_task_locked")), 0);
    // The allowlist: no label outside it, no instance id anywhere.
    for (const family of families.values()) {
      for (const sample of family.samples) {
        for (const [name, value] of Object.entries(sample.labels)) {
          if (name !== "le") assert.ok(ALLOWED.has(name), `${family.name} has label ${name}`);
          assert.ok(!ids.includes(value), `${family.name} carries an instance id`);
        }
      }
    }

    // The same meters reach the collector (an export may go out between a completion and the
    // outbox send that records the delivery lag, so wait for both).
    await until(() => {
      const points = receiver.latestPoints();
      const completed = points.find((p) =>
        p.name === "sutra.instance.completed" && p.attributes.process === "order"
      );
      const lag = points.some((p) => p.name === "sutra.outbox.delivery-lag");
      return Promise.resolve(completed?.value === 2 && lag);
    });
    const points = receiver.latestPoints();
    const started = points.find((p) => p.name === "sutra.instance.started");
    assert.deepEqual(started, {
      name: "sutra.instance.started",
      type: "sum",
      attributes: { process: "order", tenant: "test" },
      value: 3,
    });
    assert.equal(points.find((p) => p.name === "sutra.outbox.delivery-lag")?.type, "histogram");
    assert.deepEqual(receiver.protocolErrors, []);
  } finally {
    await engine.stop();
    await out.shutdown();
  }
}

Deno.test(
  "meters after a known workload: scraped as Prometheus text and exported over OTLP [pglite]",
  () => knownWorkload({}),
);

tier2Test(
  "meters after a known workload: scraped as Prometheus text and exported over OTLP [postgres]",
  () =>
    withServerDatabase((_, { url, schema }) =>
      knownWorkload({ SUTRA_DATASOURCE_URL: url, SUTRA_DATASOURCE_SCHEMA: schema })
    ),
);

Deno.test("/sutra/metrics is off by default; the label allowlist drops labels it leaves out", async () => {
  const plain = await bootEngine();
  try {
    const response = await fetch(`${plain.url}/sutra/metrics`);
    await response.body?.cancel();
    assert.equal(response.status, 404);
  } finally {
    await plain.stop();
  }
  const narrowed = await bootEngine({
    env: {
      SUTRA_TELEMETRY_METRICS_PROMETHEUS: "true",
      SUTRA_TELEMETRY_METRICS_LABELS: "process",
      SUTRA_ENGINE_SHARDS: "3",
    },
  });
  try {
    await narrowed.deployments.deploy(await telemetryPackage("http://127.0.0.1:9/unused"));
    await post(narrowed, "/channels/tel-order", { orderId: "N-1" });
    await post(narrowed, "/channels/tel-order", { orderId: "N-2" });
    const families = parsePrometheusText(
      await (await fetch(`${narrowed.url}/sutra/metrics`)).text(),
    );
    assert.deepEqual(families.get("sutra_token_entered_total")!.samples, [
      { name: "sutra_token_entered_total", labels: { process: "order" }, value: 4 },
    ]);
    assert.deepEqual(families.get("sutra_engine_shard_queue_depth")!.samples, [
      { name: "sutra_engine_shard_queue_depth", labels: {}, value: 0 },
    ]);
  } finally {
    await narrowed.stop();
  }
});
