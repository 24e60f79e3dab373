/**
 * Configuration of the admin surface's OIDC bearer-token scheme. Setting
 * `jwks-url` or `jwks-file` turns the scheme on; issuer and audience are then
 * required. The role mapping lives with the roles, in `admin_auth.ts`.
 *
 * @module
 */
import { defineKey } from "../../core/mod.ts";

const LOOPBACK = new Set(["127.0.0.1", "[::1]", "localhost"]);

/** The issuer (`iss`) every admin token must carry. */
export const OIDC_ISSUER = defineKey({
  key: "sutra.admin.oidc.issuer",
  type: "string",
  description:
    "Issuer (iss) an admin bearer token must carry, compared exactly; required when a JWKS is configured.",
});

/** The audience (`aud`) every admin token must contain. */
export const OIDC_AUDIENCE = defineKey({
  key: "sutra.admin.oidc.audience",
  type: "string",
  description:
    "Audience an admin bearer token's aud (string or array) must contain; required when a JWKS is configured.",
});

/** Where the provider publishes its signing keys. */
export const OIDC_JWKS_URL = defineKey({
  key: "sutra.admin.oidc.jwks-url",
  type: "string",
  description:
    "https:// URL of the identity provider's JWKS (http:// only for a loopback host); turns admin OIDC on.",
  validate(value) {
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      return "must be an absolute URL";
    }
    if (url.protocol === "https:") return undefined;
    if (url.protocol === "http:" && LOOPBACK.has(url.hostname)) return undefined;
    return "must be https:// (http:// only for a loopback host)";
  },
});

/** A JWKS document on disk, e.g. a mounted ConfigMap. */
export const OIDC_JWKS_FILE = defineKey({
  key: "sutra.admin.oidc.jwks-file",
  type: "string",
  description:
    "Path of a JWKS document on disk (re-read when a token names an unknown key); turns admin OIDC on. Exclusive with jwks-url.",
});

/** The claim holding the caller's role names. */
export const OIDC_ROLES_CLAIM = defineKey({
  key: "sutra.admin.oidc.roles-claim",
  type: "string",
  default: "roles",
  description:
    "Dotted path of the claim holding the caller's role names (e.g. realm_access.roles); an array or a space/comma-separated string.",
  validate: (v) =>
    v.split(".").every((s) => s.trim() !== "") ? undefined : "must be a dotted claim path",
});

/** Tolerated clock difference with the provider. */
export const OIDC_CLOCK_SKEW = defineKey({
  key: "sutra.admin.oidc.clock-skew",
  type: "duration",
  default: 60_000,
  min: 0,
  max: 300_000,
  description: "Clock difference tolerated on a token's exp, nbf and iat (at most PT5M).",
});

/** Least time between two reads of the JWKS. */
export const OIDC_JWKS_REFETCH_INTERVAL = defineKey({
  key: "sutra.admin.oidc.jwks-refetch-interval",
  type: "duration",
  default: 30_000,
  min: 1_000,
  max: 3_600_000,
  description:
    "Least time between two reads of the JWKS; a token naming an unknown key triggers a read at most this often.",
});
