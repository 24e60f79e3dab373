import assert from "node:assert/strict";
import "../../io/secrets/mod.ts";
import {
  configKeys,
  createLogger,
  DiagnosticError,
  loadConfig,
  ManualClock,
} from "../../engine/core/mod.ts";
import { type AdminRole, createAdminGate } from "../../engine/runtime/admin_auth.ts";
import {
  base64Url,
  closedJwksUrl,
  generateSigningKey,
  type JwksServer,
  type SigningKey,
  signJwt,
  signWithPublicKeyAsHmac,
  startJwksServer,
  unsignedJwt,
} from "../support/jwks.ts";
import { bootEngine } from "./support.ts";

const ISS = "https://idp.example/realms/ops";
const AUD = "sutra-admin";

/** Keycloak-shaped claims valid around `nowMillis`, with realm roles. */
function claims(nowMillis: number, roles: string[], extra: Record<string, unknown> = {}) {
  const now = Math.floor(nowMillis / 1000);
  return {
    iss: ISS,
    aud: ["account", AUD],
    iat: now,
    exp: now + 300,
    realm_access: { roles },
    ...extra,
  };
}

const OIDC_ENV = (jwksUrl: string) => ({
  SUTRA_ADMIN_OIDC_JWKS_URL: jwksUrl,
  SUTRA_ADMIN_OIDC_ISSUER: ISS,
  SUTRA_ADMIN_OIDC_AUDIENCE: AUD,
  SUTRA_ADMIN_OIDC_ROLES_CLAIM: "realm_access.roles",
  SUTRA_ADMIN_OIDC_ROLE_MAP: "sutra-admin=admin,sutra-operator=operate,sutra-release=deploy",
});

async function gateFor(env: Record<string, string>, clock: ManualClock, resolveEnv = {}) {
  const lines: string[] = [];
  const config = await loadConfig({ env, cwd: "/nonexistent-sutra-dir", registry: configKeys });
  const logger = createLogger("admin", { write: (l) => lines.push(l) });
  const admin = await createAdminGate({ config, logger, env: resolveEnv, clock });
  const call = async (headers: Record<string, string>, role?: AdminRole) => {
    const response = await admin.requireAdmin(() => new Response("ok"), role)(
      new Request("http://engine/admin/x", { headers }),
      {},
    );
    if (response.status === 200) {
      await response.body?.cancel();
      return { status: 200 };
    }
    const body = await response.json();
    return {
      status: response.status,
      code: body.diagnostics[0].code as string,
      message: body.diagnostics[0].message as string,
      challenge: response.headers.get("www-authenticate"),
    };
  };
  const bearer = (token: string, role?: AdminRole) =>
    call({ authorization: `Bearer ${token}` }, role);
  return { admin, call, bearer, logs: () => lines.map((l) => JSON.parse(l)) };
}

async function withProvider(
  run: (p: { server: JwksServer; rsa: SigningKey; ec: SigningKey; clock: ManualClock }) => Promise<
    void
  >,
): Promise<void> {
  const rsa = await generateSigningKey("RS256", "rsa-1");
  const ec = await generateSigningKey("ES256", "ec-1");
  const server = startJwksServer([rsa, ec]);
  try {
    await run({ server, rsa, ec, clock: new ManualClock(Date.parse("2026-06-01T12:00:00Z")) });
  } finally {
    await server.close();
  }
}

Deno.test("bearer tokens from the JWKS pass; each kind of bad token is a 401 naming only its category", async () => {
  await withProvider(async ({ server, rsa, ec, clock }) => {
    const { admin, bearer, call } = await gateFor(OIDC_ENV(server.url), clock);
    assert.equal(admin.posture, "oidc");
    const now = clock.now();
    const ok = claims(now, ["sutra-admin"]);
    assert.deepEqual(await bearer(await signJwt(rsa, ok)), { status: 200 });
    assert.deepEqual(await bearer(await signJwt(ec, ok)), { status: 200 });

    const wrongKey = await generateSigningKey("RS256", "rsa-1");
    const [head, , signature] = (await signJwt(rsa, ok)).split(".");
    const refused: [string, string][] = [
      [await signJwt(rsa, claims(now - 3_600_000, ["sutra-admin"])), "expired"],
      [await signJwt(rsa, { ...ok, nbf: Math.floor(now / 1000) + 600 }), "not yet valid"],
      [await signJwt(rsa, { ...ok, iss: "https://evil.example" }), "issuer"],
      [await signJwt(ec, { ...ok, aud: "account" }), "audience"],
      [await signJwt(wrongKey, ok), "signature"],
      [unsignedJwt(ok, "rsa-1"), "algorithm"],
      [await signWithPublicKeyAsHmac(rsa, ok), "algorithm"],
      [
        `${head}.${base64Url(JSON.stringify({ ...ok, exp: 9_999_999_999 }))}.${signature}`,
        "signature",
      ],
    ];
    for (const [token, reason] of refused) {
      const answer = await bearer(token);
      assert.equal(answer.status, 401, reason);
      assert.equal(answer.code, "SUTRA.ADMIN.AUTH.INVALID", reason);
      assert.equal(answer.message, `the bearer token is not valid (${reason})`);
      assert.match(answer.challenge!, /^Bearer realm="sutra-admin", error="invalid_token"$/);
    }
    const missing = await call({});
    assert.equal(missing.code, "SUTRA.ADMIN.AUTH.MISSING");
    assert.equal(missing.challenge, 'Bearer realm="sutra-admin"');
    assert.equal((await call({ authorization: "Basic YTpi" })).code, "SUTRA.ADMIN.AUTH.MISSING");
  });
});

Deno.test("roles come from the configured claim through the role map; a valid token without the role is 403", async () => {
  await withProvider(async ({ server, rsa, clock }) => {
    const { bearer } = await gateFor(OIDC_ENV(server.url), clock);
    const token = (roles: string[]) => signJwt(rsa, claims(clock.now(), roles));
    const operator = await token(["offline_access", "sutra-operator"]);
    assert.deepEqual(await bearer(operator, "operate"), { status: 200 });
    const forbidden = await bearer(operator, "deploy");
    assert.equal(forbidden.status, 403);
    assert.equal(forbidden.code, "SUTRA.ADMIN.AUTH.FORBIDDEN");
    assert.equal((await bearer(await token(["sutra-release"]), "deploy")).status, 200);
    assert.equal((await bearer(await token(["sutra-admin"]), "deploy")).status, 200);
    // A role name the map does not know grants nothing, even an engine role's own name.
    assert.equal((await bearer(await token(["admin", "operate"]), "operate")).status, 403);
    assert.equal(
      (await bearer(
        await signJwt(rsa, { ...claims(clock.now(), []), realm_access: undefined }),
        "operate",
      )).status,
      403,
    );
  });
});

Deno.test("a rotated key is picked up from the JWKS without a restart, re-reads rate limited", async () => {
  await withProvider(async ({ server, rsa, clock }) => {
    const { bearer } = await gateFor(
      { ...OIDC_ENV(server.url), SUTRA_ADMIN_OIDC_JWKS_REFETCH_INTERVAL: "PT30S" },
      clock,
    );
    assert.equal(server.reads, 1, "the key set is read once at boot");
    assert.equal(
      (await bearer(await signJwt(rsa, claims(clock.now(), ["sutra-admin"])))).status,
      200,
    );
    assert.equal(server.reads, 1, "and then served from memory");

    const rotated = await generateSigningKey("PS256", "rsa-2");
    server.publish([rotated]);
    const fresh = await signJwt(rotated, claims(clock.now(), ["sutra-admin"]));
    // Within the interval after the boot read, an unknown kid does not reach the provider.
    assert.equal((await bearer(fresh)).message, "the bearer token is not valid (unknown key)");
    assert.equal(server.reads, 1);
    clock.advance(30_000);
    assert.equal((await bearer(fresh)).status, 200);
    assert.equal(server.reads, 2);
    // Invented kids cannot make the engine hammer the provider.
    for (let i = 0; i < 5; i++) {
      const invented = await signJwt(rotated, claims(clock.now(), ["sutra-admin"]), {
        kid: `x${i}`,
      });
      assert.equal((await bearer(invented)).status, 401);
    }
    assert.equal(server.reads, 2);
  });
});

Deno.test("an unreachable JWKS fails closed with a clear log line, and recovers once it answers", async () => {
  const key = await generateSigningKey("ES256", "ec-1");
  const url = closedJwksUrl();
  const clock = new ManualClock(Date.parse("2026-06-01T12:00:00Z"));
  const { bearer, logs } = await gateFor(OIDC_ENV(url), clock);
  const token = await signJwt(key, claims(clock.now(), ["sutra-admin"]));
  const answer = await bearer(token);
  assert.equal(answer.status, 401);
  assert.equal(answer.code, "SUTRA.ADMIN.AUTH.INVALID");
  assert.equal(answer.message, "the bearer token is not valid (signing keys unavailable)");
  const error = logs().find((l) => String(l.level).toLowerCase() === "error");
  assert.ok(error, "the failed read is logged");
  assert.match(
    String(error.message),
    /could not be read from http:\/\/127\.0\.0\.1:\d+\/jwks\.json: .*every bearer token is refused/,
  );
  const port = Number(new URL(url).port);
  const server = Deno.serve(
    { hostname: "127.0.0.1", port, onListen() {} },
    () => Response.json({ keys: [key.jwk] }),
  );
  try {
    clock.advance(30_000);
    assert.equal((await bearer(token)).status, 200);
  } finally {
    await server.shutdown();
  }
});

Deno.test("the api key and OIDC work side by side; the api key header takes precedence", async () => {
  await withProvider(async ({ server, rsa, clock }) => {
    const { admin, call, bearer } = await gateFor(
      {
        ...OIDC_ENV(server.url),
        SUTRA_ADMIN_AUTH_API_KEY: "env:K",
        SUTRA_ADMIN_AUTH_ROLES: "operate",
      },
      clock,
      { K: "k" },
    );
    assert.equal(admin.posture, "api-key+oidc");
    const token = await signJwt(rsa, claims(clock.now(), ["sutra-release"]));
    assert.equal((await bearer(token, "deploy")).status, 200);
    assert.equal((await call({ "x-api-key": "k" }, "operate")).status, 200);
    assert.equal(
      (await call({ "x-api-key": "k", authorization: `Bearer ${token}` }, "deploy")).status,
      403,
    );
    assert.equal(
      (await call({ "x-api-key": "nope", authorization: `Bearer ${token}` }, "deploy")).code,
      "SUTRA.ADMIN.AUTH.INVALID",
    );
    const missing = await call({});
    assert.equal(missing.code, "SUTRA.ADMIN.AUTH.MISSING");
    assert.equal(missing.challenge, 'ApiKey, Bearer realm="sutra-admin"');
  });
});

Deno.test("a half-configured OIDC setup stops the boot", async () => {
  const clock = new ManualClock(0);
  const url = "http://127.0.0.1:9/jwks.json";
  const cases: Record<string, string>[] = [
    { SUTRA_ADMIN_OIDC_JWKS_URL: url, SUTRA_ADMIN_OIDC_AUDIENCE: AUD },
    { SUTRA_ADMIN_OIDC_JWKS_URL: url, SUTRA_ADMIN_OIDC_ISSUER: ISS },
    { ...OIDC_ENV(url), SUTRA_ADMIN_OIDC_JWKS_FILE: "/etc/jwks.json" },
    {
      ...OIDC_ENV(url),
      SUTRA_ADMIN_AUTH_API_KEY: "env:K",
      SUTRA_ADMIN_AUTH_HEADER: "Authorization",
    },
    { ...OIDC_ENV("http://idp.example/jwks.json") },
    { ...OIDC_ENV(url), SUTRA_ADMIN_OIDC_ROLE_MAP: "sutra-admin=root" },
    { ...OIDC_ENV(url), SUTRA_ADMIN_OIDC_CLOCK_SKEW: "PT10M" },
  ];
  for (const env of cases) {
    await assert.rejects(
      () => gateFor(env, clock, { K: "k" }),
      (e: unknown) => e instanceof DiagnosticError,
      JSON.stringify(env),
    );
  }
});

Deno.test("a booted engine's admin routes take OIDC bearer tokens end to end", async () => {
  const key = await generateSigningKey("RS256", "rsa-1");
  const server = startJwksServer([key]);
  const engine = await bootEngine({ env: OIDC_ENV(server.url) });
  try {
    const status = async (path: string, token?: string, init: RequestInit = {}) => {
      const response = await fetch(`${engine.url}${path}`, {
        ...init,
        headers: token ? { authorization: `Bearer ${token}` } : {},
      });
      const body = response.status === 200 ? undefined : await response.json();
      if (body === undefined) await response.body?.cancel();
      return [response.status, body?.diagnostics?.[0]?.code];
    };
    const operator = await signJwt(key, claims(Date.now(), ["sutra-operator"]));
    assert.deepEqual(await status("/admin/instances", operator), [200, undefined]);
    assert.deepEqual(await status("/admin/instances"), [401, "SUTRA.ADMIN.AUTH.MISSING"]);
    assert.deepEqual(
      await status(
        "/admin/instances",
        await signJwt(key, claims(Date.now() - 3_600_000, ["sutra-operator"])),
      ),
      [401, "SUTRA.ADMIN.AUTH.INVALID"],
    );
    assert.deepEqual(
      await status("/admin/instances/migrate", operator, { method: "POST", body: "{}" }),
      [403, "SUTRA.ADMIN.AUTH.FORBIDDEN"],
    );
    const release = await signJwt(key, claims(Date.now(), ["sutra-release"]));
    const undeploy = { method: "DELETE" };
    assert.deepEqual(await status("/admin/deployments/none", operator, undeploy), [
      403,
      "SUTRA.ADMIN.AUTH.FORBIDDEN",
    ]);
    // Past the gate: the deployment itself is unknown.
    assert.deepEqual(await status("/admin/deployments/none", release, undeploy), [
      404,
      "SUTRA.DEPLOY.UNKNOWN",
    ]);
  } finally {
    await engine.stop();
    await server.close();
  }
});
