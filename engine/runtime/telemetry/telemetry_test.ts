import assert from "node:assert/strict";
import { configKeys, createLogger, loadConfig } from "../../core/mod.ts";
import { withMemoryDatabase } from "../../../tests/support/test_database.ts";
import { Router } from "../http_router.ts";
import "../settings.ts";
import { type LaneMeters, startTelemetry, telemetryOf } from "./telemetry.ts";
import { LogExport } from "./log_context.ts";
import { startOtlpReceiver } from "../../../tests/support/otlp_receiver.ts";

const lanes: LaneMeters = { count: 1, depth: () => 0, dispatched: () => 0, laneOf: () => 0 };

async function started(
  env: Record<string, string>,
  run: (s: {
    posture: string;
    warnings: string[];
    telemetry: boolean;
    logs: LogExport;
    router: Router;
  }) => Promise<void>,
): Promise<void> {
  await withMemoryDatabase(async (db) => {
    const warnings: string[] = [];
    const logger = createLogger("engine", {
      write: (line) => {
        const r = JSON.parse(line);
        if (r.level === "WARN") warnings.push(r.message);
      },
    });
    const config = await loadConfig({ env, cwd: "/nonexistent-sutra-dir", registry: configKeys });
    const router = new Router(logger);
    const logs = new LogExport();
    const s = startTelemetry({ config, env, logger, db, lanes, router, replicaId: "r-1", logs });
    try {
      await run({
        posture: s.posture,
        warnings,
        telemetry: telemetryOf(db) !== undefined,
        logs,
        router,
      });
    } finally {
      await s.stop();
    }
    assert.equal(telemetryOf(db), undefined, "stopped telemetry is detached");
    assert.equal(logs.sink, undefined);
  });
}

Deno.test("telemetry: nothing configured starts nothing and says so", () =>
  started({}, async ({ posture, telemetry, logs, router }) => {
    assert.equal(
      posture,
      "telemetry export off (no OTLP endpoint configured) — JSON stdout logs only",
    );
    assert.equal(telemetry, false);
    assert.equal(logs.sink, undefined);
    const response = await router.handle(new Request("http://engine/sutra/metrics"));
    await response.body?.cancel();
    assert.equal(response.status, 404);
  }));

Deno.test("telemetry: an endpoint that is not an http(s) URL is reported and export stays off", () =>
  started(
    { SUTRA_TELEMETRY_OTLP_ENDPOINT: "collector:4318" },
    ({ posture, warnings, telemetry }) => {
      assert.match(posture, /^telemetry export off/);
      assert.equal(telemetry, false);
      assert.deepEqual(warnings, [
        "telemetry export off: the OTLP endpoint 'collector:4318' is not an http(s) URL",
      ]);
      return Promise.resolve();
    },
  ));

Deno.test("telemetry: OTEL_EXPORTER_OTLP_ENDPOINT is honoured; the setting wins over it", async () => {
  await started({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:9" }, ({ posture, logs }) => {
    assert.equal(
      posture,
      "telemetry exported over OTLP/HTTP to http://127.0.0.1:9 (traces, meters and logs)",
    );
    assert.ok(logs.sink, "log records are exported too");
    return Promise.resolve();
  });
  await started({
    OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:9",
    SUTRA_TELEMETRY_OTLP_ENDPOINT: "http://127.0.0.1:10",
    SUTRA_TELEMETRY_METRICS_PROMETHEUS: "true",
  }, async ({ posture, router }) => {
    assert.match(posture, /to http:\/\/127\.0\.0\.1:10 .*; meters served at GET \/sutra\/metrics$/);
    const response = await router.handle(new Request("http://engine/sutra/metrics"));
    assert.equal(response.status, 200);
    assert.match(await response.text(), /^# HELP sutra_instance_started_total /);
  });
});

Deno.test("telemetry: meters without an endpoint: /sutra/metrics only, no exporter", () =>
  started({ SUTRA_TELEMETRY_METRICS_PROMETHEUS: "true" }, ({ posture, telemetry, logs }) => {
    assert.equal(
      posture,
      "telemetry export off (no OTLP endpoint configured); meters served at GET /sutra/metrics",
    );
    assert.equal(telemetry, true);
    assert.equal(logs.sink, undefined);
    return Promise.resolve();
  }));

Deno.test("telemetry: sutra.telemetry.metrics.temporality=delta exports what changed since the last export", async () => {
  await using receiver = startOtlpReceiver();
  await withMemoryDatabase(async (db) => {
    const env = {
      SUTRA_TELEMETRY_OTLP_ENDPOINT: receiver.url,
      SUTRA_TELEMETRY_METRICS_TEMPORALITY: "delta",
      SUTRA_TELEMETRY_EXPORT_INTERVAL: "PT1H",
    };
    const config = await loadConfig({ env, cwd: "/nonexistent-sutra-dir", registry: configKeys });
    const logger = createLogger("engine", { filter: "error", write: () => {} });
    const router = new Router(logger);
    const s = startTelemetry({ config, env, logger, db, lanes, router, replicaId: "r-1" });
    try {
      const telemetry = s.telemetry!;
      const startedCounts = () =>
        receiver.latestPoints().filter((p) => p.name === "sutra.instance.started")
          .map((p) => p.value);
      const step = { tenant: "t", instanceId: "i", processId: "p", status: "COMPLETED" } as const;
      telemetry.committed(step);
      telemetry.committed(step);
      await telemetry.exporter!.flush();
      assert.deepEqual(startedCounts(), [2]);
      telemetry.committed(step);
      await telemetry.exporter!.flush();
      assert.deepEqual(startedCounts(), [1]);
      await telemetry.exporter!.flush();
      assert.deepEqual(startedCounts(), []);
    } finally {
      await s.stop();
    }
  });
});
