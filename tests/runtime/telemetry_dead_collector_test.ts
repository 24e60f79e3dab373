/**
 * A collector that is not there costs a flow nothing: every message is
 * answered as without telemetry, the outbox still delivers, and the engine
 * logs the failed export once as a warning, never as an error and never per
 * message. (Timing is not asserted: the machine is shared.)
 */
import assert from "node:assert/strict";
import { configKeys, createLogger, loadConfig } from "../../engine/core/mod.ts";
import { startEngine } from "../../engine/runtime/mod.ts";
import { post, until } from "./support.ts";
import { telemetryPackage } from "./telemetry_support.ts";

Deno.test("a dead collector: messages, replies and sends are unaffected; one warning", async () => {
  // A port that was just listening and is now closed: every export is refused.
  const probe = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const deadPort = (probe.addr as Deno.NetAddr).port;
  probe.close();
  const received: string[] = [];
  const out = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (r) => {
    received.push(await r.text());
    return new Response(null, { status: 204 });
  });
  const env = {
    SUTRA_HTTP_PORT: "0",
    SUTRA_DATASOURCE_URL: "memory://",
    SUTRA_ADMIN_OIDC_DEV_DISABLED: "true",
    SUTRA_OUTBOX_POLL_INTERVAL: "PT0.05S",
    SUTRA_TELEMETRY_EXPORT_INTERVAL: "PT0.02S",
    SUTRA_TELEMETRY_METRICS_PROMETHEUS: "true",
    OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${deadPort}`,
  };
  const records: Record<string, unknown>[] = [];
  const config = await loadConfig({ env, cwd: "/nonexistent-sutra-dir", registry: configKeys });
  const logger = createLogger("engine", {
    filter: "info",
    write: (line) => records.push(JSON.parse(line)),
  });
  const engine = await startEngine({ config, logger, env });
  try {
    const boot = records.find((r) => String(r.message).includes("started"));
    assert.match(
      String(boot?.message),
      new RegExp(`exported over OTLP/HTTP to http://127.0.0.1:${deadPort}`),
    );
    await engine.deployments.deploy(
      await telemetryPackage(`http://127.0.0.1:${out.addr.port}/orders`),
    );
    for (let i = 0; i < 5; i++) {
      const order = await post(engine, "/channels/tel-order", { orderId: `D-${i}` });
      assert.equal(order.status, 200, JSON.stringify(order.body));
      const confirm = await post(engine, "/channels/tel-confirm", { orderId: `D-${i}` });
      assert.equal(confirm.status, 200, JSON.stringify(confirm.body));
      assert.equal((confirm.body.instances as { status: string }[])[0].status, "COMPLETED");
    }
    await until(() => Promise.resolve(received.length === 5));
    // Exports have been tried (and refused) meanwhile.
    await until(() =>
      Promise.resolve(records.some((r) => String(r.message).includes("telemetry export failed")))
    );
  } finally {
    await engine.stop();
    await out.shutdown();
  }
  assert.deepEqual(records.filter((r) => r.level === "ERROR"), []);
  const warnings = records.filter((r) => String(r.message).includes("telemetry export failed"));
  assert.equal(warnings.length, 1);
  assert.equal(warnings[0].loggerName, "engine/telemetry");
});
