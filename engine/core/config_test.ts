import assert from "node:assert/strict";
import { ConfigRegistry, envName, loadConfig } from "./config.ts";
import { DiagnosticError } from "./diagnostic.ts";

function registry() {
  const r = new ConfigRegistry();
  const keys = {
    port: r.define({
      key: "sutra.http.port",
      type: "integer",
      default: 8080,
      min: 0,
      max: 65535,
      description: "port",
    }),
    retries: r.define({
      key: "sutra.outbox.retry.max-attempts",
      type: "integer",
      min: 1,
      description: "ceiling",
    }),
    grace: r.define({
      key: "sutra.shutdown.grace-period",
      type: "duration",
      default: 10_000,
      description: "grace",
    }),
    dev: r.define({
      key: "sutra.admin.oidc.dev-disabled",
      type: "boolean",
      default: false,
      description: "dev",
    }),
    mode: r.define({
      key: "sutra.ack.mode",
      type: "enum",
      values: ["on-persist", "on-complete"],
      default: "on-persist",
      description: "mode",
    }),
    url: r.define({ key: "sutra.datasource.url", type: "string", description: "url" }),
  };
  return { r, keys };
}

async function withFile(text: string, fn: (path: string) => Promise<void>) {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/sutra.properties`;
  await Deno.writeTextFile(path, text);
  try {
    await fn(path);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("every canonical key has one SUTRA_* mirror", () => {
  assert.equal(envName("sutra.outbox.retry.max-attempts"), "SUTRA_OUTBOX_RETRY_MAX_ATTEMPTS");
  assert.equal(envName("sutra.http.port"), "SUTRA_HTTP_PORT");
});

Deno.test("defaults apply when neither env nor file sets a key", async () => {
  const { r, keys } = registry();
  const config = await loadConfig({ env: {}, registry: r, cwd: "/nonexistent-dir" });
  assert.equal(config.get(keys.port), 8080);
  assert.equal(config.source(keys.port), "default");
  assert.equal(config.get(keys.retries), undefined);
  assert.equal(config.source(keys.retries), "unset");
  assert.equal(config.get(keys.grace), 10_000);
});

Deno.test("precedence is env over file over default", async () => {
  const { r, keys } = registry();
  await withFile("sutra.http.port=9000\nsutra.shutdown.grace-period = PT3S\n", async (path) => {
    const config = await loadConfig({
      env: { SUTRA_CONFIG: path, SUTRA_HTTP_PORT: "9100" },
      registry: r,
    });
    assert.equal(config.get(keys.port), 9100);
    assert.equal(config.source(keys.port), "env");
    assert.equal(config.get(keys.grace), 3000);
    assert.equal(config.source(keys.grace), "file");
    assert.equal(config.file, path);
  });
});

Deno.test("sutra.properties in the working directory is read only when present", async () => {
  const { r, keys } = registry();
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(`${dir}/sutra.properties`, "sutra.http.port: 7000\n");
    const config = await loadConfig({ env: {}, registry: r, cwd: dir });
    assert.equal(config.get(keys.port), 7000);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("file values go through the reference expander", async () => {
  const { r, keys } = registry();
  await withFile("sutra.datasource.url=${DB_URL}\nsutra.http.port=env:PORT\n", async (path) => {
    const seen: string[] = [];
    const config = await loadConfig({
      env: { SUTRA_CONFIG: path },
      registry: r,
      expand: (v) => {
        seen.push(v);
        return Promise.resolve(v === "${DB_URL}" ? "postgres://h/db" : v === "env:PORT" ? "81" : v);
      },
    });
    assert.equal(config.get(keys.url), "postgres://h/db");
    assert.equal(config.get(keys.port), 81);
    assert.deepEqual(seen.sort(), ["${DB_URL}", "env:PORT"]);
  });
});

Deno.test("every invalid value is reported at once as SUTRA.CONFIG.PROPERTY.INVALID", async () => {
  const { r } = registry();
  await withFile("sutra.shutdown.grace-period=P1M\nsutra.ack.mode=sometimes\n", async (path) => {
    const error = await loadConfig({
      env: {
        SUTRA_CONFIG: path,
        SUTRA_HTTP_PORT: "eighty",
        SUTRA_OUTBOX_RETRY_MAX_ATTEMPTS: "0",
        SUTRA_ADMIN_OIDC_DEV_DISABLED: "yes",
      },
      registry: r,
    }).catch((e) => e);
    assert.ok(error instanceof DiagnosticError);
    const byKey = new Map(error.diagnostics.map((d) => [d.attributes?.key, d]));
    assert.equal(error.diagnostics.length, 5);
    for (const d of error.diagnostics) assert.equal(d.code, "SUTRA.CONFIG.PROPERTY.INVALID");
    assert.match(
      byKey.get("sutra.http.port")!.message,
      /'eighty' \(from environment variable SUTRA_HTTP_PORT\).*integer/,
    );
    assert.match(byKey.get("sutra.outbox.retry.max-attempts")!.message, /at least 1/);
    assert.match(byKey.get("sutra.shutdown.grace-period")!.message, /sutra\.properties:1\)/);
    assert.match(byKey.get("sutra.ack.mode")!.message, /on-persist, on-complete/);
    assert.match(byKey.get("sutra.admin.oidc.dev-disabled")!.message, /true or false/);
  });
});

Deno.test("an unresolvable file reference is an invalid property naming the key", async () => {
  const { r } = registry();
  await withFile("sutra.datasource.url=env:MISSING\n", async (path) => {
    const error = await loadConfig({
      env: { SUTRA_CONFIG: path },
      registry: r,
      expand: () => Promise.reject(new Error("environment variable MISSING is not set")),
    }).catch((e) => e);
    assert.ok(error instanceof DiagnosticError);
    assert.equal(error.diagnostics[0].code, "SUTRA.CONFIG.PROPERTY.INVALID");
    assert.match(error.diagnostics[0].message, /sutra\.datasource\.url.*MISSING is not set/);
  });
});

Deno.test("a missing explicit SUTRA_CONFIG file fails; unknown sutra.* keys warn", async () => {
  const { r } = registry();
  const error = await loadConfig({
    env: { SUTRA_CONFIG: "/nonexistent/x.properties" },
    registry: r,
  })
    .catch((e) => e);
  assert.ok(error instanceof DiagnosticError);
  assert.equal(error.diagnostics[0].code, "SUTRA.CONFIG.FILE.UNREADABLE");

  await withFile("sutra.htp.port=1\nother.key=2\n", async (path) => {
    const config = await loadConfig({ env: { SUTRA_CONFIG: path }, registry: r });
    assert.deepEqual(config.warnings.map((w) => [w.code, w.source?.line]), [
      ["SUTRA.CONFIG.PROPERTY.UNKNOWN", 1],
    ]);
  });
});

Deno.test("secret keys never echo their value in a diagnostic", async () => {
  const r = new ConfigRegistry();
  r.define({
    key: "sutra.datasource.password",
    type: "string",
    secret: true,
    validate: (v) => v.length < 4 ? "too short" : undefined,
    description: "pw",
  });
  const error = await loadConfig({ env: { SUTRA_DATASOURCE_PASSWORD: "abc" }, registry: r })
    .catch((e) => e);
  assert.ok(error instanceof DiagnosticError);
  assert.doesNotMatch(error.diagnostics[0].message, /abc/);
});

Deno.test("keys must be canonical and unique", () => {
  const r = new ConfigRegistry();
  assert.throws(() => r.define({ key: "http.port", type: "integer", description: "x" }));
  assert.throws(() => r.define({ key: "sutra.Http", type: "integer", description: "x" }));
  r.define({ key: "sutra.a", type: "integer", description: "x" });
  assert.throws(() => r.define({ key: "sutra.a", type: "integer", description: "x" }));
});
