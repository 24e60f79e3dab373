/**
 * Compact JWS verification for OIDC access tokens, on Web Crypto alone.
 *
 * The algorithm is decided by the key, not by the token: a header `alg` is
 * only accepted when it is one of the asymmetric algorithms below and the
 * JWK it selects allows it (its own `alg`, or what its key type and curve
 * can do). `none` and every HMAC algorithm are refused before any key is
 * looked at, which closes the HS/RS confusion where an RSA public key is
 * misused as an HMAC secret. The signature is checked before any claim is
 * read, so a claim-level failure is only reported for a genuinely signed token.
 *
 * @module
 */
import type { Clock } from "../../core/mod.ts";

/** The signature algorithms a token may use. */
export const TOKEN_ALGORITHMS = [
  "RS256",
  "RS384",
  "RS512",
  "PS256",
  "PS384",
  "PS512",
  "ES256",
  "ES384",
  "EdDSA",
] as const;

/** One of {@link TOKEN_ALGORITHMS}. */
export type TokenAlgorithm = typeof TOKEN_ALGORITHMS[number];

/** Why a token was refused; the category is all a caller is told. */
export type TokenFailure =
  | "malformed"
  | "algorithm"
  | "unknown key"
  | "signature"
  | "expired"
  | "not yet valid"
  | "issuer"
  | "audience"
  | "signing keys unavailable";

/** A refused token. */
export class TokenRejected extends Error {
  /** @param reason the category reported to the caller */
  constructor(readonly reason: TokenFailure) {
    super(`the bearer token is not valid (${reason})`);
    this.name = "TokenRejected";
  }
}

/** Finds the verification key for a token's `kid` and `alg`; throws {@link TokenRejected}. */
export type KeyLookup = (kid: string | undefined, alg: TokenAlgorithm) => Promise<CryptoKey>;

/** Options for {@link verifyJwt}. */
export interface VerifyOptions {
  readonly keys: KeyLookup;
  /** Exact `iss` the token must carry. */
  readonly issuer: string;
  /** A value the token's `aud` (string or array) must contain. */
  readonly audience: string;
  /** Tolerance, in milliseconds, on `exp`, `nbf` and `iat`. */
  readonly clockSkewMillis: number;
  readonly clock: Clock;
}

/** Longer tokens are refused unread: no honest access token is this large. */
const MAX_TOKEN_LENGTH = 16_384;
const SEGMENT = /^[A-Za-z0-9_-]+$/;
const decoder = new TextDecoder("utf-8", { fatal: true });
const encoder = new TextEncoder();

/** Verifies a compact JWS and returns its claims; throws {@link TokenRejected}. */
export async function verifyJwt(
  token: string,
  options: VerifyOptions,
): Promise<Record<string, unknown>> {
  if (token.length > MAX_TOKEN_LENGTH) throw new TokenRejected("malformed");
  const parts = token.split(".");
  if (parts.length !== 3) throw new TokenRejected("malformed");
  const [head, body, signature] = parts;
  if (!SEGMENT.test(head) || !SEGMENT.test(body)) throw new TokenRejected("malformed");
  const header = jsonObject(head);
  const alg = header.alg;
  if (typeof alg !== "string" || !(TOKEN_ALGORITHMS as readonly string[]).includes(alg)) {
    throw new TokenRejected("algorithm");
  }
  // Extensions we do not understand must not be ignored (RFC 7515 §4.1.11).
  if (header.crit !== undefined) throw new TokenRejected("malformed");
  if (header.kid !== undefined && typeof header.kid !== "string") {
    throw new TokenRejected("malformed");
  }
  if (!SEGMENT.test(signature)) throw new TokenRejected("signature");
  const key = await options.keys(header.kid, alg as TokenAlgorithm);
  const valid = await crypto.subtle.verify(
    verifyParams(alg as TokenAlgorithm),
    key,
    base64UrlBytes(signature),
    encoder.encode(`${head}.${body}`),
  ).catch(() => false);
  if (!valid) throw new TokenRejected("signature");
  const claims = jsonObject(body);
  checkClaims(claims, options);
  return claims;
}

function checkClaims(claims: Record<string, unknown>, options: VerifyOptions): void {
  const now = options.clock.now();
  const skew = options.clockSkewMillis;
  const exp = claims.exp;
  if (typeof exp !== "number" || !Number.isFinite(exp)) throw new TokenRejected("malformed");
  if (now >= exp * 1000 + skew) throw new TokenRejected("expired");
  for (const name of ["nbf", "iat"] as const) {
    const at = claims[name];
    if (at === undefined) continue;
    if (typeof at !== "number" || !Number.isFinite(at)) throw new TokenRejected("malformed");
    if (at * 1000 > now + skew) throw new TokenRejected("not yet valid");
  }
  if (claims.iss !== options.issuer) throw new TokenRejected("issuer");
  const aud = claims.aud;
  const audiences = Array.isArray(aud) ? aud : [aud];
  if (!audiences.includes(options.audience)) throw new TokenRejected("audience");
}

function jsonObject(segment: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(decoder.decode(base64UrlBytes(segment)));
  } catch {
    throw new TokenRejected("malformed");
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new TokenRejected("malformed");
  }
  return value as Record<string, unknown>;
}

/** Decodes unpadded base64url (the caller has checked the alphabet). */
export function base64UrlBytes(text: string): Uint8Array<ArrayBuffer> {
  const base64 = text.replace(/-/g, "+").replace(/_/g, "/");
  const binary = atob(base64 + "=".repeat((4 - base64.length % 4) % 4));
  return Uint8Array.from(binary, (c) => c.charCodeAt(0));
}

const HASH: Record<string, string> = { "256": "SHA-256", "384": "SHA-384", "512": "SHA-512" };
const CURVE: Record<string, string> = { ES256: "P-256", ES384: "P-384" };

/** The Web Crypto import parameters for a JWK used with `alg`. */
export function importParams(alg: TokenAlgorithm): RsaHashedImportParams | EcKeyImportParams | {
  name: string;
} {
  const hash = HASH[alg.slice(2)];
  if (alg.startsWith("RS")) return { name: "RSASSA-PKCS1-v1_5", hash };
  if (alg.startsWith("PS")) return { name: "RSA-PSS", hash };
  if (alg.startsWith("ES")) return { name: "ECDSA", namedCurve: CURVE[alg] };
  return { name: "Ed25519" };
}

function verifyParams(alg: TokenAlgorithm): AlgorithmIdentifier | RsaPssParams | EcdsaParams {
  const bits = alg.slice(2);
  if (alg.startsWith("RS")) return { name: "RSASSA-PKCS1-v1_5" };
  if (alg.startsWith("PS")) return { name: "RSA-PSS", saltLength: Number(bits) / 8 };
  if (alg.startsWith("ES")) return { name: "ECDSA", hash: HASH[bits] };
  return { name: "Ed25519" };
}

/**
 * The algorithms a published JWK may verify: exactly its `alg` when it names
 * one, otherwise what its key type and curve allow. Symmetric (`oct`) keys,
 * encryption keys and unknown types allow nothing.
 */
export function jwkAlgorithms(jwk: Record<string, unknown>): readonly TokenAlgorithm[] {
  if (jwk.use !== undefined && jwk.use !== "sig") return [];
  let byType: readonly TokenAlgorithm[] = [];
  if (jwk.kty === "RSA" && typeof jwk.n === "string" && typeof jwk.e === "string") {
    // Keys under 2048 bits are too weak to trust an admin surface to.
    if (SEGMENT.test(jwk.n)) {
      const bytes = base64UrlBytes(jwk.n);
      const bits = (bytes.length - (bytes[0] === 0 ? 1 : 0)) * 8;
      if (bits >= 2048) byType = ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512"];
    }
  } else if (jwk.kty === "EC" && jwk.crv === "P-256") byType = ["ES256"];
  else if (jwk.kty === "EC" && jwk.crv === "P-384") byType = ["ES384"];
  else if (jwk.kty === "OKP" && jwk.crv === "Ed25519") byType = ["EdDSA"];
  if (jwk.alg === undefined) return byType;
  return byType.filter((a) => a === jwk.alg);
}

/** Imports the public part of a JWK for verifying `alg` signatures. */
export async function importJwk(
  jwk: Record<string, unknown>,
  alg: TokenAlgorithm,
): Promise<CryptoKey> {
  const members = jwk.kty === "RSA" ? ["kty", "n", "e"] : ["kty", "crv", "x", "y"];
  const publicPart: JsonWebKey = {};
  for (const m of members) {
    if (jwk[m] !== undefined) (publicPart as Record<string, unknown>)[m] = jwk[m];
  }
  return await crypto.subtle.importKey("jwk", publicPart, importParams(alg), false, ["verify"]);
}
