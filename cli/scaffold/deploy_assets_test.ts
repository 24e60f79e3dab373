import assert from "node:assert/strict";
import { parse, parseAllDocuments } from "yaml";
import "../../main.ts";
import { configKeys, envName, loadConfig } from "../../engine/core/config.ts";
import type { DiagnosticError } from "../../engine/core/diagnostic.ts";
import { deployAssets } from "./deploy_assets.ts";
import { packageFacts } from "./package.ts";

const facts = packageFacts({ module: "shop", validation: "fatal" });
const [compose, kubernetes] = deployAssets("shop", facts).map((f) => f.text);
const engineVariables = new Set(configKeys.list().map((k) => envName(k.key)));

/** The engine settings among `env`: every SUTRA_* name but the admin key the settings refer to. */
function settingsOf(env: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(env).filter(([k]) => k.startsWith("SUTRA_") && k !== "SUTRA_ADMIN_API_KEY"),
  );
}

/** The engine accepts `env` as its configuration: every name is a key, every value valid. */
async function assertEngineAccepts(env: Record<string, string>): Promise<void> {
  for (const name of Object.keys(settingsOf(env))) {
    assert.ok(engineVariables.has(name), `${name} is not an engine setting`);
  }
  await loadConfig({ env, cwd: "/nonexistent-sutra-dir", registry: configKeys });
}

Deno.test("the compose file runs the engine image on a healthy PostgreSQL with valid settings", async () => {
  const doc = parse(compose);
  assert.deepEqual(Object.keys(doc.services), ["postgres", "engine"]);
  const { engine, postgres } = doc.services;
  assert.equal(engine.image, "sutra-engine:latest");
  assert.deepEqual(engine.depends_on, { postgres: { condition: "service_healthy" } });
  assert.deepEqual(engine.ports, ["8080:8080"]);
  assert.equal(postgres.image, "postgres:15");
  assert.equal(postgres.healthcheck.test[1], "pg_isready");
  const url = new URL(engine.environment.SUTRA_DATASOURCE_URL);
  assert.equal(url.hostname, "postgres");
  assert.equal(url.username, postgres.environment.POSTGRES_USER);
  assert.equal(url.password, postgres.environment.POSTGRES_PASSWORD);
  assert.equal(url.pathname, `/${postgres.environment.POSTGRES_DB}`);
  assert.match(engine.environment[facts.apiKeyEnv], /^\$\{SHOP_API_KEY:\?/);
  await assertEngineAccepts({ ...engine.environment, SUTRA_ADMIN_API_KEY: "k" });
});

Deno.test("the Kubernetes manifest is a Secret, a Deployment probed on the health routes converging to a ConfigMap of archives, and a Service", async () => {
  const docs = parseAllDocuments(kubernetes).map((d) => d.toJS());
  assert.deepEqual(docs.map((d) => d.kind), ["Secret", "Deployment", "Service"]);
  const [secret, deployment, service] = docs;
  const name = "shop-engine";
  assert.deepEqual([secret, deployment, service].map((d) => d.metadata.name), [name, name, name]);
  const pod = deployment.spec.template;
  assert.deepEqual(deployment.spec.selector.matchLabels, pod.metadata.labels);
  assert.deepEqual(service.spec.selector, pod.metadata.labels);
  const [container] = pod.spec.containers;
  assert.equal(container.image, "sutra-engine:latest");
  assert.deepEqual(container.ports, [{ name: "http", containerPort: 8080 }]);
  assert.deepEqual(container.readinessProbe.httpGet, { path: "/sutra/health/ready", port: "http" });
  assert.deepEqual(container.livenessProbe.httpGet, { path: "/sutra/health/live", port: "http" });
  assert.deepEqual(container.envFrom, [{ secretRef: { name } }]);
  assert.deepEqual(service.spec.ports, [{ name: "http", port: 8080, targetPort: "http" }]);
  assert.deepEqual(container.volumeMounts, [
    { name: "data", mountPath: "/data" },
    { name: "packages", mountPath: "/etc/sutra/packages", readOnly: true },
  ]);
  // The archives come from a ConfigMap the dir deployment source converges to.
  assert.deepEqual(pod.spec.volumes[1], { name: "packages", configMap: { name: "shop-packages" } });
  const env = {
    ...secret.stringData,
    ...Object.fromEntries(
      container.env.map((e: { name: string; value: string }) => [e.name, e.value]),
    ),
  };
  assert.ok(facts.apiKeyEnv in env);
  assert.equal(env.SUTRA_DEPLOYMENTS_SOURCE, "dir");
  assert.equal(env.SUTRA_DEPLOYMENTS_DIR, "/etc/sutra/packages");
  await assertEngineAccepts(env);
});

Deno.test("an invalid setting would be refused: the check is the engine's own", async () => {
  await assert.rejects(
    () =>
      loadConfig({
        env: { SUTRA_DATASOURCE_URL: "postgres://x/y", SUTRA_HTTP_PORT: "eighty" },
        cwd: "/nonexistent-sutra-dir",
        registry: configKeys,
      }),
    (e: DiagnosticError) =>
      e.diagnostics.map((d) => [d.code, d.attributes?.key]).join() ===
        "SUTRA.CONFIG.PROPERTY.INVALID,sutra.http.port",
  );
});
