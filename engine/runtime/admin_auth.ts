/**
 * The gate in front of every `/admin/*` route. It fails closed: with no
 * credential configured the surface answers 503, a missing or wrong key 401,
 * and a key without the route's role 403. Only the explicit
 * `sutra.admin.oidc.dev-disabled=true` escape opens it, and boot says so at
 * WARN so an open admin surface is never a quiet accident.
 *
 * @module
 */
import {
  type Config,
  defaultResolveContext,
  defineKey,
  diagnostic,
  DiagnosticError,
  isSecretReference,
  type Logger,
  resolveReference,
} from "../core/mod.ts";
import { diagnosticResponse, type RouteHandler } from "./http_router.ts";

/** The admin API key, as a secret reference. */
export const ADMIN_API_KEY = defineKey({
  key: "sutra.admin.auth.api-key",
  type: "string",
  secret: true,
  description:
    "Admin API key as a secret reference (env:, secret:, ${…}); unset leaves /admin/* answering 503.",
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
    "Development escape: with no admin API key configured, serve /admin/* without authentication (logged at WARN).",
});

/** What a route may require. `admin` satisfies every requirement. */
export type AdminRole = "admin" | "deploy" | "operate";

const ROLES: readonly AdminRole[] = ["admin", "deploy", "operate"];

function parseRoles(text: string): ReadonlySet<AdminRole> | undefined {
  const names = text.split(",").map((r) => r.trim()).filter((r) => r !== "");
  if (names.length === 0 || names.some((n) => !ROLES.includes(n as AdminRole))) return undefined;
  return new Set(names as AdminRole[]);
}

/** How the gate decides. */
export type AdminPosture = "api-key" | "unconfigured" | "dev-disabled";

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
}

/**
 * Builds the gate from configuration, resolving the key reference once.
 * Throws a DiagnosticError when the key is a literal or does not resolve:
 * a half-configured gate must stop the boot, not fall open or silently shut.
 */
export async function createAdminGate(options: AdminGateOptions): Promise<AdminGate> {
  const { config, logger } = options;
  const reference = config.get(ADMIN_API_KEY)?.trim();
  const header = config.require(ADMIN_AUTH_HEADER).toLowerCase();
  const roles = parseRoles(config.require(ADMIN_AUTH_ROLES))!;
  if (reference) {
    if (!isSecretReference(reference)) {
      throw new DiagnosticError(diagnostic(
        "SUTRA.CONFIG.PROPERTY.INVALID",
        `${ADMIN_API_KEY.key} must be a secret reference (env:NAME, secret:KEY, \${NAME}), not a literal key`,
        { attributes: { key: ADMIN_API_KEY.key } },
      ));
    }
    const key = await resolveReference(reference, defaultResolveContext(options.env));
    if (key === "") {
      throw new DiagnosticError(diagnostic(
        "SUTRA.CONFIG.PROPERTY.INVALID",
        `${ADMIN_API_KEY.key} resolves to an empty key`,
        { attributes: { key: ADMIN_API_KEY.key } },
      ));
    }
    if (config.require(ADMIN_DEV_DISABLED)) {
      logger.warn(
        `${ADMIN_DEV_DISABLED.key}=true is ignored: an admin API key is configured and takes precedence`,
      );
    }
    return apiKeyGate(await digest(key), header, roles);
  }
  if (config.require(ADMIN_DEV_DISABLED)) {
    logger.warn(
      `ADMIN SURFACE OPEN: ${ADMIN_DEV_DISABLED.key}=true serves /admin/* without authentication; never use this outside local development`,
      { code: "SUTRA.ADMIN.AUTH.DISABLED" },
    );
    return { posture: "dev-disabled", requireAdmin: (handler) => handler };
  }
  logger.info(
    `admin surface closed: ${ADMIN_API_KEY.key} is not set, so /admin/* answers 503`,
  );
  return {
    posture: "unconfigured",
    requireAdmin: () => () =>
      diagnosticResponse(503, [diagnostic(
        "SUTRA.ADMIN.AUTH.UNCONFIGURED",
        `the admin surface has no credential configured (${ADMIN_API_KEY.key})`,
      )]),
  };
}

function apiKeyGate(
  expected: Uint8Array,
  header: string,
  granted: ReadonlySet<AdminRole>,
): AdminGate {
  return {
    posture: "api-key",
    requireAdmin(handler, role = "admin") {
      return async (request, params) => {
        const presented = request.headers.get(header);
        if (presented === null || presented === "") {
          return unauthorized("SUTRA.ADMIN.AUTH.MISSING", `the ${header} header is missing`);
        }
        if (!constantTimeEqual(await digest(presented), expected)) {
          return unauthorized("SUTRA.ADMIN.AUTH.INVALID", `the ${header} credential is not valid`);
        }
        if (!granted.has("admin") && !granted.has(role)) {
          return diagnosticResponse(403, [diagnostic(
            "SUTRA.ADMIN.AUTH.FORBIDDEN",
            `this credential lacks the '${role}' role this route requires`,
            { attributes: { role } },
          )]);
        }
        return await handler(request, params);
      };
    },
  };
}

function unauthorized(code: string, message: string): Response {
  const response = diagnosticResponse(401, [diagnostic(code, message)]);
  response.headers.set("www-authenticate", "ApiKey");
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
