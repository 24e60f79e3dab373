/**
 * The gate in front of every `/admin/*` route. It fails closed: with no
 * credential configured the surface answers 503, a missing or wrong
 * credential 401, and a credential without the route's role 403. Two schemes
 * can be on together: the static API key (which takes precedence when its
 * header is present) and OIDC bearer tokens verified against the identity
 * provider's JWKS, with roles read from a claim and mapped onto the engine's.
 * Only the explicit `sutra.admin.oidc.dev-disabled=true` escape opens the
 * surface, and boot says so at WARN so an open admin surface is never a quiet
 * accident.
 *
 * @module
 */
import {
  type Clock,
  type Config,
  defaultResolveContext,
  defineKey,
  diagnostic,
  DiagnosticError,
  isSecretReference,
  type Logger,
  resolveReference,
  systemClock,
} from "../core/mod.ts";
import { diagnosticResponse, type RouteHandler } from "./http_router.ts";
import {
  claimStrings,
  JwksCache,
  OIDC_AUDIENCE,
  OIDC_CLOCK_SKEW,
  OIDC_ISSUER,
  OIDC_JWKS_FILE,
  OIDC_JWKS_REFETCH_INTERVAL,
  OIDC_JWKS_URL,
  OIDC_ROLES_CLAIM,
  TokenRejected,
  verifyJwt,
} from "./oidc/mod.ts";

/** The admin API key, as a secret reference. */
export const ADMIN_API_KEY = defineKey({
  key: "sutra.admin.auth.api-key",
  type: "string",
  secret: true,
  description:
    "Admin API key as a secret reference (env:, secret:, ${…}); with neither it nor an OIDC JWKS set, /admin/* answers 503.",
});

/** Request header carrying the admin API key. */
export const ADMIN_AUTH_HEADER = defineKey({
  key: "sutra.admin.auth.header",
  type: "string",
  default: "x-api-key",
  description: "Request header that carries the admin API key.",
  validate: (v) => /^[A-Za-z0-9-]+$/.test(v) ? undefined : "must be an HTTP header name",
});

/** Roles the admin API key carries. */
export const ADMIN_AUTH_ROLES = defineKey({
  key: "sutra.admin.auth.roles",
  type: "string",
  default: "admin",
  description:
    "Comma-separated roles the admin API key grants (admin, deploy, operate); admin grants every role.",
  validate: (v) => parseRoles(v) === undefined ? "must list admin, deploy or operate" : undefined,
});

/** Opens the admin surface without credentials, for local development only. */
export const ADMIN_DEV_DISABLED = defineKey({
  key: "sutra.admin.oidc.dev-disabled",
  type: "boolean",
  default: false,
  description:
    "Development escape: with no admin credential (API key or OIDC) configured, serve /admin/* without authentication (logged at WARN).",
});

/** What a route may require. `admin` satisfies every requirement. */
export type AdminRole = "admin" | "deploy" | "operate";

const ROLES: readonly AdminRole[] = ["admin", "deploy", "operate"];

function parseRoles(text: string): ReadonlySet<AdminRole> | undefined {
  const names = text.split(",").map((r) => r.trim()).filter((r) => r !== "");
  if (names.length === 0 || names.some((n) => !ROLES.includes(n as AdminRole))) return undefined;
  return new Set(names as AdminRole[]);
}

/** How OIDC role names map onto the engine's roles. */
export const ADMIN_OIDC_ROLE_MAP = defineKey({
  key: "sutra.admin.oidc.role-map",
  type: "string",
  default: "admin=admin,deploy=deploy,operate=operate",
  description:
    "Comma-separated token-role=engine-role pairs (engine roles: admin, deploy, operate); a token role may appear in several pairs.",
  validate: (v) =>
    parseRoleMap(v) === undefined ? "must be token-role=admin|deploy|operate pairs" : undefined,
});

function parseRoleMap(text: string): ReadonlyMap<string, ReadonlySet<AdminRole>> | undefined {
  const map = new Map<string, Set<AdminRole>>();
  for (const pair of text.split(",").map((p) => p.trim()).filter((p) => p !== "")) {
    const at = pair.lastIndexOf("=");
    const from = pair.slice(0, at).trim();
    const to = pair.slice(at + 1).trim() as AdminRole;
    if (at < 1 || from === "" || !ROLES.includes(to)) return undefined;
    map.set(from, (map.get(from) ?? new Set()).add(to));
  }
  return map.size === 0 ? undefined : map;
}

/** How the gate decides. */
export type AdminPosture = "api-key" | "oidc" | "api-key+oidc" | "unconfigured" | "dev-disabled";

/** The gate every `/admin/*` handler is wrapped in. */
export interface AdminGate {
  readonly posture: AdminPosture;
  /** Wraps a handler so it only runs for a caller holding `role` (default `admin`). */
  requireAdmin(handler: RouteHandler, role?: AdminRole): RouteHandler;
}

/** Options for {@link createAdminGate}. */
export interface AdminGateOptions {
  readonly config: Config;
  readonly logger: Logger;
  /** Environment for resolving the key reference (default: the process environment). */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Time for token validity and JWKS re-reads (default: the wall clock). */
  readonly clock?: Clock;
}

/**
 * One way of proving who the caller is: `offered` says whether the request
 * carries this scheme's credential at all; `authenticate` answers the roles
 * it grants or the 401 refusing it.
 */
interface Scheme {
  readonly challenge: string;
  /** What a caller sends to present it, for the message of a request that presented nothing. */
  readonly presented: string;
  offered(request: Request): boolean;
  authenticate(request: Request): Promise<ReadonlySet<AdminRole> | Response>;
}

/**
 * Builds the gate from configuration, resolving the key reference and
 * reading the JWKS once. Throws a DiagnosticError when the configuration is
 * half there (a literal or unresolvable key, a JWKS without issuer or
 * audience): a half-configured gate must stop the boot, not fall open or
 * silently shut. An unreachable JWKS does not stop the boot; it is logged and
 * tokens are refused until the keys can be read.
 */
export async function createAdminGate(options: AdminGateOptions): Promise<AdminGate> {
  const { config, logger } = options;
  const schemes: Scheme[] = [];
  const apiKey = await apiKeyScheme(options);
  if (apiKey) schemes.push(apiKey);
  const oidc = await oidcScheme(options);
  if (oidc) schemes.push(oidc);
  if (schemes.length > 0) {
    if (config.require(ADMIN_DEV_DISABLED)) {
      logger.warn(
        `${ADMIN_DEV_DISABLED.key}=true is ignored: an admin credential is configured and takes precedence`,
      );
    }
    const posture = apiKey && oidc ? "api-key+oidc" : apiKey ? "api-key" : "oidc";
    return { posture, requireAdmin: (handler, role) => gated(schemes, handler, role) };
  }
  if (config.require(ADMIN_DEV_DISABLED)) {
    logger.warn(
      `ADMIN SURFACE OPEN: ${ADMIN_DEV_DISABLED.key}=true serves /admin/* without authentication; never use this outside local development`,
      { code: "SUTRA.ADMIN.AUTH.DISABLED" },
    );
    return { posture: "dev-disabled", requireAdmin: (handler) => handler };
  }
  logger.info(
    `admin surface closed: neither ${ADMIN_API_KEY.key} nor ${OIDC_JWKS_URL.key}/${OIDC_JWKS_FILE.key} is set, so /admin/* answers 503`,
  );
  return {
    posture: "unconfigured",
    requireAdmin: () => () =>
      diagnosticResponse(503, [diagnostic(
        "SUTRA.ADMIN.AUTH.UNCONFIGURED",
        `the admin surface has no credential configured (${ADMIN_API_KEY.key} or ${OIDC_JWKS_URL.key})`,
      )]),
  };
}

function gated(schemes: readonly Scheme[], handler: RouteHandler, role: AdminRole = "admin") {
  return async (request: Request, params: Parameters<RouteHandler>[1]) => {
    const scheme = schemes.find((s) => s.offered(request));
    if (scheme === undefined) {
      return unauthorized(
        "SUTRA.ADMIN.AUTH.MISSING",
        `no admin credential was presented: send ${schemes.map((s) => s.presented).join(" or ")}`,
        schemes,
      );
    }
    const granted = await scheme.authenticate(request);
    if (granted instanceof Response) return granted;
    if (!granted.has("admin") && !granted.has(role)) {
      return diagnosticResponse(403, [diagnostic(
        "SUTRA.ADMIN.AUTH.FORBIDDEN",
        `this credential lacks the '${role}' role this route requires`,
        { attributes: { role } },
      )]);
    }
    return await handler(request, params);
  };
}

function invalidConfig(key: string, message: string): DiagnosticError {
  return new DiagnosticError(diagnostic(
    "SUTRA.CONFIG.PROPERTY.INVALID",
    message,
    { attributes: { key } },
  ));
}

async function apiKeyScheme(options: AdminGateOptions): Promise<Scheme | undefined> {
  const { config } = options;
  const reference = config.get(ADMIN_API_KEY)?.trim();
  if (!reference) return undefined;
  const header = config.require(ADMIN_AUTH_HEADER).toLowerCase();
  const granted = parseRoles(config.require(ADMIN_AUTH_ROLES))!;
  if (!isSecretReference(reference)) {
    throw invalidConfig(
      ADMIN_API_KEY.key,
      `${ADMIN_API_KEY.key} must be a secret reference (env:NAME, secret:KEY, \${NAME}), not a literal key`,
    );
  }
  const key = await resolveReference(reference, defaultResolveContext(options.env));
  if (key === "") {
    throw invalidConfig(ADMIN_API_KEY.key, `${ADMIN_API_KEY.key} resolves to an empty key`);
  }
  const expected = await digest(key);
  const scheme: Scheme = {
    challenge: "ApiKey",
    presented: "an x-api-key header",
    offered: (request) => (request.headers.get(header) ?? "") !== "",
    async authenticate(request) {
      if (!constantTimeEqual(await digest(request.headers.get(header)!), expected)) {
        return unauthorized("SUTRA.ADMIN.AUTH.INVALID", `the ${header} credential is not valid`, [
          scheme,
        ]);
      }
      return granted;
    },
  };
  return scheme;
}

async function oidcScheme(options: AdminGateOptions): Promise<Scheme | undefined> {
  const { config } = options;
  const url = config.get(OIDC_JWKS_URL)?.trim();
  const file = config.get(OIDC_JWKS_FILE)?.trim();
  if (!url && !file) return undefined;
  if (url && file) {
    throw invalidConfig(
      OIDC_JWKS_FILE.key,
      `set ${OIDC_JWKS_URL.key} or ${OIDC_JWKS_FILE.key}, not both`,
    );
  }
  const issuer = config.get(OIDC_ISSUER)?.trim();
  const audience = config.get(OIDC_AUDIENCE)?.trim();
  for (const [key, value] of [[OIDC_ISSUER.key, issuer], [OIDC_AUDIENCE.key, audience]]) {
    if (!value) {
      throw invalidConfig(key!, `${key} is required when admin OIDC is on (a JWKS is configured)`);
    }
  }
  if (
    config.get(ADMIN_API_KEY) && config.require(ADMIN_AUTH_HEADER).toLowerCase() === "authorization"
  ) {
    throw invalidConfig(
      ADMIN_AUTH_HEADER.key,
      `${ADMIN_AUTH_HEADER.key} cannot be 'authorization' while admin OIDC bearer tokens are on`,
    );
  }
  const clock = options.clock ?? systemClock;
  const rolesClaim = config.require(OIDC_ROLES_CLAIM);
  const roleMap = parseRoleMap(config.require(ADMIN_OIDC_ROLE_MAP))!;
  const keys = new JwksCache({
    source: url ? { url } : { file: file! },
    minRefetchMillis: config.require(OIDC_JWKS_REFETCH_INTERVAL),
    clock,
    logger: options.logger,
  });
  await keys.refresh();
  const verify = {
    keys: keys.lookup,
    issuer: issuer!,
    audience: audience!,
    clockSkewMillis: config.require(OIDC_CLOCK_SKEW),
    clock,
  };
  const scheme: Scheme = {
    challenge: 'Bearer realm="sutra-admin"',
    presented: "an Authorization: Bearer token",
    offered: (request) => BEARER.test(request.headers.get("authorization") ?? ""),
    async authenticate(request) {
      const token = BEARER.exec(request.headers.get("authorization")!)![1].trim();
      let claims: Record<string, unknown>;
      try {
        claims = await verifyJwt(token, verify);
      } catch (e) {
        if (!(e instanceof TokenRejected)) throw e;
        const response = unauthorized("SUTRA.ADMIN.AUTH.INVALID", e.message, []);
        response.headers.set("www-authenticate", `${scheme.challenge}, error="invalid_token"`);
        return response;
      }
      const granted = new Set<AdminRole>();
      for (const name of claimStrings(claims, rolesClaim)) {
        for (const role of roleMap.get(name) ?? []) granted.add(role);
      }
      return granted;
    },
  };
  return scheme;
}

const BEARER = /^Bearer[ ]+(\S.*)$/i;

function unauthorized(code: string, message: string, schemes: readonly Scheme[]): Response {
  const response = diagnosticResponse(401, [diagnostic(code, message)]);
  for (const s of schemes) response.headers.append("www-authenticate", s.challenge);
  return response;
}

const encoder = new TextEncoder();

/** Hashing first makes the comparison independent of the presented length. */
async function digest(text: string): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest("SHA-256", encoder.encode(text)));
}

function constantTimeEqual(a: Uint8Array, b: Uint8Array): boolean {
  let diff = a.length ^ b.length;
  for (let i = 0; i < a.length && i < b.length; i++) diff |= a[i] ^ b[i];
  return diff === 0;
}
