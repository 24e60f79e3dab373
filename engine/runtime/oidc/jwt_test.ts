import assert from "node:assert/strict";
import { createLogger, ManualClock } from "../../core/mod.ts";
import {
  base64Url,
  generateSigningKey,
  type SigningKey,
  signJwt,
  signWithPublicKeyAsHmac,
  unsignedJwt,
} from "../../../tests/support/jwks.ts";
import { claimStrings } from "./claims.ts";
import { JwksCache } from "./jwks.ts";
import { TokenRejected, verifyJwt } from "./jwt.ts";

const NOW = Date.parse("2026-06-01T12:00:00Z");
const ISS = "https://idp.example/realms/ops";
const AUD = "sutra-admin";
const at = (offsetSeconds: number) => Math.floor(NOW / 1000) + offsetSeconds;
const claims = (extra: Record<string, unknown> = {}) => ({
  iss: ISS,
  aud: AUD,
  iat: at(0),
  exp: at(300),
  ...extra,
});

async function verifier(published: readonly (SigningKey | Record<string, unknown>)[]) {
  const dir = await Deno.makeTempDir();
  const file = `${dir}/jwks.json`;
  const write = (keys: readonly (SigningKey | Record<string, unknown>)[]) =>
    Deno.writeTextFile(file, JSON.stringify({ keys: keys.map((k) => "jwk" in k ? k.jwk : k) }));
  await write(published);
  const clock = new ManualClock(NOW);
  const cache = new JwksCache({
    source: { file },
    minRefetchMillis: 30_000,
    clock,
    logger: createLogger("oidc", { write: () => {} }),
  });
  const verify = (token: string) =>
    verifyJwt(token, {
      keys: cache.lookup,
      issuer: ISS,
      audience: AUD,
      clockSkewMillis: 60_000,
      clock,
    });
  const reason = (token: string) =>
    verify(token).then(
      () => "accepted",
      (e) => e instanceof TokenRejected ? e.reason : Promise.reject(e),
    );
  return { verify, reason, write, clock, cleanup: () => Deno.remove(dir, { recursive: true }) };
}

Deno.test("every supported asymmetric algorithm verifies a token from its published key", async () => {
  const keys = await Promise.all(
    (["RS256", "PS256", "ES256", "ES384", "EdDSA"] as const).map((alg) =>
      generateSigningKey(alg, `k-${alg}`)
    ),
  );
  const v = await verifier(keys);
  try {
    for (const key of keys) {
      assert.equal((await v.verify(await signJwt(key, claims({ sub: key.alg })))).sub, key.alg);
    }
  } finally {
    await v.cleanup();
  }
});

Deno.test("alg none, HMAC with the RSA public key and a header alg the JWK does not allow are refused", async () => {
  const rsa = await generateSigningKey("RS256", "rsa");
  const v = await verifier([rsa]);
  try {
    assert.equal(await v.reason(unsignedJwt(claims(), "rsa")), "algorithm");
    assert.equal(await v.reason(await signWithPublicKeyAsHmac(rsa, claims())), "algorithm");
    // The JWK says RS256: a PS256 header naming the same key is refused even
    // though an RSA key could verify PSS.
    const pss = await generateSigningKey("PS256", "rsa");
    assert.equal(await v.reason(await signJwt(pss, claims())), "unknown key");
  } finally {
    await v.cleanup();
  }
});

Deno.test("a tampered payload or a token from another key fails its signature", async () => {
  const ec = await generateSigningKey("ES256", "ec");
  const v = await verifier([ec]);
  try {
    const [head, , signature] = (await signJwt(ec, claims())).split(".");
    const forged = base64Url(JSON.stringify(claims({ roles: ["admin"] })));
    assert.equal(await v.reason(`${head}.${forged}.${signature}`), "signature");
    const impostor = await generateSigningKey("ES256", "ec");
    assert.equal(await v.reason(await signJwt(impostor, claims())), "signature");
    assert.equal(await v.reason(`${head}.${forged}`), "malformed");
    assert.equal(await v.reason("not a token"), "malformed");
  } finally {
    await v.cleanup();
  }
});

Deno.test("exp, nbf and iat hold within the clock skew and no further", async () => {
  const key = await generateSigningKey("RS256", "k");
  const v = await verifier([key]);
  try {
    const token = (extra: Record<string, unknown>) => signJwt(key, claims(extra));
    assert.equal(await v.reason(await token({ exp: at(-59) })), "accepted");
    assert.equal(await v.reason(await token({ exp: at(-60) })), "expired");
    assert.equal(await v.reason(await token({ nbf: at(60) })), "accepted");
    assert.equal(await v.reason(await token({ nbf: at(61) })), "not yet valid");
    assert.equal(await v.reason(await token({ iat: at(61) })), "not yet valid");
    assert.equal(await v.reason(await token({ exp: undefined })), "malformed");
    assert.equal(await v.reason(await token({ exp: "soon" })), "malformed");
  } finally {
    await v.cleanup();
  }
});

Deno.test("issuer is compared exactly and the audience may be one of several", async () => {
  const key = await generateSigningKey("ES384", "k");
  const v = await verifier([key]);
  try {
    const token = (extra: Record<string, unknown>) => signJwt(key, claims(extra));
    assert.equal(await v.reason(await token({ iss: `${ISS}/` })), "issuer");
    assert.equal(await v.reason(await token({ aud: "account" })), "audience");
    assert.equal(await v.reason(await token({ aud: ["account", AUD] })), "accepted");
    assert.equal(await v.reason(await token({ aud: undefined })), "audience");
  } finally {
    await v.cleanup();
  }
});

Deno.test("symmetric, encryption and short RSA keys in the JWKS are never used", async () => {
  const key = await generateSigningKey("RS256", "k");
  const weak = await crypto.subtle.generateKey(
    {
      name: "RSASSA-PKCS1-v1_5",
      modulusLength: 1024,
      publicExponent: new Uint8Array([1, 0, 1]),
      hash: "SHA-256",
    },
    true,
    ["sign", "verify"],
  );
  const weakJwk = await crypto.subtle.exportKey("jwk", weak.publicKey);
  const v = await verifier([
    { kty: "oct", kid: "hmac", k: "c2VjcmV0" },
    { ...key.jwk, kid: "enc", use: "enc" },
    { kty: "RSA", n: weakJwk.n, e: weakJwk.e, kid: "weak" },
  ]);
  try {
    for (const kid of ["hmac", "enc", "weak"]) {
      assert.equal(await v.reason(await signJwt(key, claims(), { kid })), "unknown key", kid);
    }
  } finally {
    await v.cleanup();
  }
});

Deno.test("an unknown kid re-reads the key set, at most once per refetch interval", async () => {
  const old = await generateSigningKey("RS256", "2026-05");
  const next = await generateSigningKey("ES256", "2026-06");
  const v = await verifier([old]);
  try {
    assert.equal(await v.reason(await signJwt(old, claims())), "accepted");
    await v.write([old, next]);
    v.clock.advance(30_000);
    assert.equal(await v.reason(await signJwt(next, claims())), "accepted");
    const later = await generateSigningKey("ES256", "2026-07");
    await v.write([next, later]);
    v.clock.advance(1_000);
    assert.equal(await v.reason(await signJwt(later, claims())), "unknown key");
    v.clock.advance(29_000);
    assert.equal(await v.reason(await signJwt(later, claims())), "accepted");
    // The rotated-out key is gone from the set now.
    assert.equal(await v.reason(await signJwt(old, claims())), "unknown key");
  } finally {
    await v.cleanup();
  }
});

Deno.test("without a kid, the token needs exactly one key that allows its algorithm", async () => {
  const a = await generateSigningKey("ES256", "a");
  const b = await generateSigningKey("ES256", "b");
  const one = await verifier([a]);
  const two = await verifier([a, b]);
  try {
    assert.equal(await one.reason(await signJwt(a, claims(), { kid: undefined })), "accepted");
    assert.equal(await two.reason(await signJwt(a, claims(), { kid: undefined })), "unknown key");
  } finally {
    await one.cleanup();
    await two.cleanup();
  }
});

Deno.test("an unreadable key set refuses every token as signing keys unavailable", async () => {
  const key = await generateSigningKey("RS256", "k");
  const v = await verifier([key]);
  await v.cleanup();
  assert.equal(await v.reason(await signJwt(key, claims())), "signing keys unavailable");
});

Deno.test("role names come from a dotted claim path, as an array or a spaced string", () => {
  const c = {
    realm_access: { roles: ["sutra-ops", 7, "offline_access"] },
    scope: "openid sutra:deploy,profile",
    groups: { admins: true },
  };
  assert.deepEqual(claimStrings(c, "realm_access.roles"), ["sutra-ops", "offline_access"]);
  assert.deepEqual(claimStrings(c, "scope"), ["openid", "sutra:deploy", "profile"]);
  assert.deepEqual(claimStrings(c, "groups"), []);
  assert.deepEqual(claimStrings(c, "realm_access.roles.x"), []);
  assert.deepEqual(claimStrings(c, "toString"), []);
});
