/**
 * `sutra.coverage.path_covered` as scraped at `GET /sutra/metrics`: one
 * count per route flipping to covered, so walking a covered route again
 * (even concurrently) adds nothing, and a reset lets the next walk count
 * again. Its series carry the deployment and the process, never an
 * instance or a route.
 */
import assert from "node:assert/strict";
import "../../io/datastores/mod.ts";
import { METRIC_LABELS } from "../../engine/runtime/telemetry/metrics.ts";
import { parsePrometheusText } from "../support/prometheus_text.ts";
import { bootEngine, post, sealDir } from "../runtime/support.ts";

Deno.test("coverage metric: each route counts once per flip to covered", async () => {
  const engine = await bootEngine({
    env: { COVERAGE_DB_URL: "pglite:memory://", SUTRA_TELEMETRY_METRICS_PROMETHEUS: "true" },
  });
  try {
    await engine.deployments.deploy(await sealDir("tests/coverage/fixtures/gate"));
    const { deploymentId, slot } = engine.deployments.registry.list()[0];
    const covered = async () => {
      const response = await fetch(`${engine.url}/sutra/metrics`);
      assert.equal(response.status, 200);
      const family = parsePrometheusText(await response.text())
        .get("sutra_coverage_path_covered_total");
      const samples = family?.samples ?? [];
      for (const s of samples) {
        assert.ok(
          Object.keys(s.labels).every((l) => (METRIC_LABELS as readonly string[]).includes(l)),
        );
      }
      return samples.filter((s) => s.labels.deployment === deploymentId)
        .map((s) => [s.labels.process, s.value]);
    };

    await Promise.all(
      Array.from({ length: 4 }, () => post(engine, "/channels/cov-decide", { ok: true })),
    );
    assert.deepEqual(await covered(), [["decide", 1]]);
    assert.equal((await post(engine, "/channels/cov-decide", { ok: false })).status, 200);
    assert.deepEqual(await covered(), [["decide", 2]]);

    assert.equal((await post(engine, `/admin/coverage/${slot}/reset`, "")).status, 200);
    assert.equal((await post(engine, "/channels/cov-decide", { ok: true })).status, 200);
    assert.deepEqual(await covered(), [["decide", 3]]);
  } finally {
    await engine.stop();
  }
});
