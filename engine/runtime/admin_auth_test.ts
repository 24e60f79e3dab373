import assert from "node:assert/strict";
import "../../io/secrets/mod.ts";
import { configKeys, createLogger, DiagnosticError, loadConfig } from "../core/mod.ts";
import { type AdminRole, createAdminGate } from "./admin_auth.ts";
import { generateSigningKey, signJwt } from "../../tests/support/jwks.ts";

const ok = () => new Response("ok");

async function gate(env: Record<string, string>, resolveEnv: Record<string, string> = {}) {
  const lines: string[] = [];
  const config = await loadConfig({ env, cwd: "/nonexistent-sutra-dir", registry: configKeys });
  const logger = createLogger("admin", { write: (l) => lines.push(l) });
  const admin = await createAdminGate({ config, logger, env: resolveEnv });
  return { admin, logs: () => lines.map((l) => JSON.parse(l)) };
}

async function call(
  admin: Awaited<ReturnType<typeof gate>>["admin"],
  headers: Record<string, string> = {},
  role?: AdminRole,
): Promise<{ status: number; code?: string }> {
  const response = await admin.requireAdmin(ok, role)(
    new Request("http://engine/admin/x", { headers }),
    {},
  );
  const body = response.status === 200 ? undefined : await response.json();
  if (body === undefined) await response.body?.cancel();
  return { status: response.status, code: body?.diagnostics?.[0]?.code };
}

Deno.test("an unconfigured admin surface answers 503", async () => {
  const { admin } = await gate({});
  assert.equal(admin.posture, "unconfigured");
  assert.deepEqual(await call(admin, { "x-api-key": "anything" }), {
    status: 503,
    code: "SUTRA.ADMIN.AUTH.UNCONFIGURED",
  });
});

Deno.test("the api key gate answers 401 for a missing or wrong key and 200 for the right one", async () => {
  const { admin } = await gate({ SUTRA_ADMIN_AUTH_API_KEY: "env:ADMIN_KEY" }, {
    ADMIN_KEY: "s3cret",
  });
  assert.equal(admin.posture, "api-key");
  assert.deepEqual(await call(admin), { status: 401, code: "SUTRA.ADMIN.AUTH.MISSING" });
  assert.deepEqual(await call(admin, { "x-api-key": "s3cret!" }), {
    status: 401,
    code: "SUTRA.ADMIN.AUTH.INVALID",
  });
  assert.deepEqual(await call(admin, { "x-api-key": "s3cret" }), { status: 200, code: undefined });
});

Deno.test("a key without the route's role answers 403; admin satisfies every role", async () => {
  const env = { SUTRA_ADMIN_AUTH_API_KEY: "env:K", SUTRA_ADMIN_AUTH_HEADER: "x-admin" };
  const operate = await gate({ ...env, SUTRA_ADMIN_AUTH_ROLES: "operate" }, { K: "k" });
  assert.deepEqual(await call(operate.admin, { "x-admin": "k" }, "deploy"), {
    status: 403,
    code: "SUTRA.ADMIN.AUTH.FORBIDDEN",
  });
  assert.equal((await call(operate.admin, { "x-admin": "k" }, "operate")).status, 200);
  const full = await gate(env, { K: "k" });
  assert.equal((await call(full.admin, { "x-admin": "k" }, "deploy")).status, 200);
  assert.equal((await call(full.admin, { "x-api-key": "k" }, "deploy")).status, 401);
});

Deno.test("dev-disabled opens the surface and says so at WARN", async () => {
  const { admin, logs } = await gate({ SUTRA_ADMIN_OIDC_DEV_DISABLED: "true" });
  assert.equal(admin.posture, "dev-disabled");
  assert.equal((await call(admin)).status, 200);
  const warn = logs().find((l) => l.level === "WARN" || l.level === "warn");
  assert.ok(warn, "a warning is logged");
  assert.match(String(warn.message), /ADMIN SURFACE OPEN/);
});

Deno.test("a configured key wins over dev-disabled", async () => {
  const { admin } = await gate({
    SUTRA_ADMIN_AUTH_API_KEY: "env:K",
    SUTRA_ADMIN_OIDC_DEV_DISABLED: "true",
  }, { K: "k" });
  assert.equal(admin.posture, "api-key");
  assert.equal((await call(admin)).status, 401);
});

Deno.test("a literal or unresolvable key stops the boot", async () => {
  for (const [value, env] of [["plain-key", {}], ["env:ABSENT", {}]] as const) {
    await assert.rejects(
      () => gate({ SUTRA_ADMIN_AUTH_API_KEY: value }, env),
      (e: unknown) => e instanceof DiagnosticError,
    );
  }
});

Deno.test("a JWKS file turns on bearer tokens, with roles read through the role map", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const key = await generateSigningKey("EdDSA", "ed");
    await Deno.writeTextFile(`${dir}/jwks.json`, JSON.stringify({ keys: [key.jwk] }));
    const { admin } = await gate({
      SUTRA_ADMIN_OIDC_JWKS_FILE: `${dir}/jwks.json`,
      SUTRA_ADMIN_OIDC_ISSUER: "https://idp",
      SUTRA_ADMIN_OIDC_AUDIENCE: "sutra",
      SUTRA_ADMIN_OIDC_ROLE_MAP: "ops=operate",
      SUTRA_ADMIN_OIDC_DEV_DISABLED: "true",
    });
    assert.equal(admin.posture, "oidc");
    const now = Math.floor(Date.now() / 1000);
    const token = await signJwt(key, {
      iss: "https://idp",
      aud: "sutra",
      exp: now + 60,
      roles: "ops",
    });
    const bearer = { authorization: `Bearer ${token}` };
    assert.deepEqual(await call(admin, bearer, "operate"), { status: 200, code: undefined });
    assert.deepEqual(await call(admin, bearer, "deploy"), {
      status: 403,
      code: "SUTRA.ADMIN.AUTH.FORBIDDEN",
    });
    assert.deepEqual(await call(admin), { status: 401, code: "SUTRA.ADMIN.AUTH.MISSING" });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
