/**
 * OIDC bearer tokens for the admin surface: JWS verification on Web Crypto,
 * the provider's cached key set, and reading roles from claims.
 *
 * @module
 */
export { claimStrings } from "./claims.ts";
export { JwksCache, type JwksCacheOptions, type JwksSource } from "./jwks.ts";
export {
  type KeyLookup,
  TOKEN_ALGORITHMS,
  type TokenAlgorithm,
  type TokenFailure,
  TokenRejected,
  verifyJwt,
  type VerifyOptions,
} from "./jwt.ts";
export {
  OIDC_AUDIENCE,
  OIDC_CLOCK_SKEW,
  OIDC_ISSUER,
  OIDC_JWKS_FILE,
  OIDC_JWKS_REFETCH_INTERVAL,
  OIDC_JWKS_URL,
  OIDC_ROLES_CLAIM,
} from "./settings.ts";
