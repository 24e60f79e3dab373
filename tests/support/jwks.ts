/**
 * A stand-in OIDC identity provider for tests: generated signing keys, a
 * JWKS document served over real HTTP on 127.0.0.1 (its key set can be
 * replaced while it runs, as a provider rotating keys does), and compact JWS
 * tokens signed with Web Crypto.
 *
 * @module
 */

/** Signature algorithms the test provider can sign with. */
export type TestAlgorithm = "RS256" | "PS256" | "ES256" | "ES384" | "EdDSA";

/** A provider key: the private half signs, the public JWK is published. */
export interface SigningKey {
  readonly kid: string;
  readonly alg: TestAlgorithm;
  readonly privateKey: CryptoKey;
  readonly publicKey: CryptoKey;
  /** The public JWK as the JWKS publishes it (`kid`, `alg`, `use` set). */
  readonly jwk: JsonWebKey & { kid: string };
}

const GENERATE: Record<TestAlgorithm, RsaHashedKeyGenParams | EcKeyGenParams | Algorithm> = {
  RS256: {
    name: "RSASSA-PKCS1-v1_5",
    modulusLength: 2048,
    publicExponent: new Uint8Array([1, 0, 1]),
    hash: "SHA-256",
  },
  PS256: {
    name: "RSA-PSS",
    modulusLength: 2048,
    publicExponent: new Uint8Array([1, 0, 1]),
    hash: "SHA-256",
  },
  ES256: { name: "ECDSA", namedCurve: "P-256" },
  ES384: { name: "ECDSA", namedCurve: "P-384" },
  EdDSA: { name: "Ed25519" },
};

const SIGN: Record<TestAlgorithm, AlgorithmIdentifier | RsaPssParams | EcdsaParams> = {
  RS256: { name: "RSASSA-PKCS1-v1_5" },
  PS256: { name: "RSA-PSS", saltLength: 32 },
  ES256: { name: "ECDSA", hash: "SHA-256" },
  ES384: { name: "ECDSA", hash: "SHA-384" },
  EdDSA: { name: "Ed25519" },
};

/** Generates a key pair for `alg` published under `kid`. */
export async function generateSigningKey(alg: TestAlgorithm, kid: string): Promise<SigningKey> {
  const pair = await crypto.subtle.generateKey(GENERATE[alg], true, [
    "sign",
    "verify",
  ]) as CryptoKeyPair;
  const exported = await crypto.subtle.exportKey("jwk", pair.publicKey);
  const { key_ops: _ops, ext: _ext, ...jwk } = exported;
  return {
    kid,
    alg,
    privateKey: pair.privateKey,
    publicKey: pair.publicKey,
    jwk: { ...jwk, kid, alg, use: "sig" },
  };
}

const encoder = new TextEncoder();

/** Unpadded base64url of bytes or of a string's UTF-8. */
export function base64Url(data: Uint8Array | string): string {
  const bytes = typeof data === "string" ? encoder.encode(data) : data;
  return btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_")
    .replace(/=+$/, "");
}

/** Signs `claims` as a compact JWS with `key`; `header` adds to or overrides the header. */
export async function signJwt(
  key: SigningKey,
  claims: Record<string, unknown>,
  header: Record<string, unknown> = {},
): Promise<string> {
  const input = `${
    base64Url(JSON.stringify({ alg: key.alg, typ: "JWT", kid: key.kid, ...header }))
  }.${base64Url(JSON.stringify(claims))}`;
  const signature = await crypto.subtle.sign(SIGN[key.alg], key.privateKey, encoder.encode(input));
  return `${input}.${base64Url(new Uint8Array(signature))}`;
}

/**
 * The HS/RS confusion attack: an HS256 token whose HMAC secret is the RSA
 * public key's SPKI bytes, which anyone can download from the JWKS.
 */
export async function signWithPublicKeyAsHmac(
  key: SigningKey,
  claims: Record<string, unknown>,
): Promise<string> {
  const secret = new Uint8Array(await crypto.subtle.exportKey("spki", key.publicKey));
  const hmac = await crypto.subtle.importKey(
    "raw",
    secret,
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  const input = `${base64Url(JSON.stringify({ alg: "HS256", typ: "JWT", kid: key.kid }))}.${
    base64Url(JSON.stringify(claims))
  }`;
  const mac = await crypto.subtle.sign("HMAC", hmac, encoder.encode(input));
  return `${input}.${base64Url(new Uint8Array(mac))}`;
}

/** An unsigned (`alg: none`) token. */
export function unsignedJwt(claims: Record<string, unknown>, kid?: string): string {
  return `${base64Url(JSON.stringify({ alg: "none", typ: "JWT", kid }))}.${
    base64Url(JSON.stringify(claims))
  }.`;
}

/** A running JWKS endpoint. */
export interface JwksServer {
  /** The JWKS document's URL. */
  readonly url: string;
  /** How many times the document has been read. */
  readonly reads: number;
  /** Replaces the published key set (rotation). */
  publish(keys: readonly SigningKey[]): void;
  close(): Promise<void>;
}

/** Serves `keys` as a JWKS at `http://127.0.0.1:<port>/jwks.json`. */
export function startJwksServer(keys: readonly SigningKey[]): JwksServer {
  let published = keys;
  let reads = 0;
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (request) => {
    if (new URL(request.url).pathname !== "/jwks.json") return new Response(null, { status: 404 });
    reads++;
    return Response.json({ keys: published.map((k) => k.jwk) });
  });
  return {
    url: `http://127.0.0.1:${server.addr.port}/jwks.json`,
    get reads() {
      return reads;
    },
    publish(next) {
      published = next;
    },
    close: () => server.shutdown(),
  };
}

/** A URL on 127.0.0.1 where nothing listens (a port just bound and released). */
export function closedJwksUrl(): string {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return `http://127.0.0.1:${port}/jwks.json`;
}
