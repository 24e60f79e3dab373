/**
 * `vault:MOUNT/PATH#FIELD` — one field of a HashiCorp Vault KV version 2
 * secret (`GET /v1/MOUNT/data/PATH`), from the server at
 * `sutra.secrets.vault.address`. The resolver authenticates with
 * `sutra.secrets.vault.token`, or else logs in with AppRole
 * (`role-id` / `secret-id`) and logs in again when the token expires or is
 * refused. Values are reused for `sutra.secrets.cache-ttl`, so a rotated
 * secret is picked up within that window without a redeploy.
 *
 * @module
 */
import { diagnostic, DiagnosticError } from "../../engine/core/diagnostic.ts";
import {
  type ResolveContext,
  resolveReference,
  type SecretResolver,
} from "../../engine/core/secrets.ts";
import { errorMessage } from "../../engine/core/errors.ts";
import {
  SECRETS_CACHE_TTL,
  secretSettings,
  stateFor,
  TtlCache,
  VAULT_ADDRESS,
  VAULT_APPROLE_MOUNT,
  VAULT_NAMESPACE,
  VAULT_ROLE_ID,
  VAULT_SECRET_ID,
  VAULT_TOKEN,
} from "./settings.ts";

const SEGMENT = "[A-Za-z0-9._-]+";
const REFERENCE = new RegExp(`^(${SEGMENT})/(${SEGMENT}(?:/${SEGMENT})*)#(${SEGMENT})$`);

interface VaultState {
  readonly cache: TtlCache;
  /** The AppRole login's token and when to log in again (epoch ms). */
  login?: Promise<{ token: string; until: number }>;
}

const states = new WeakMap<object, VaultState>();

function unresolved(reference: string, why: string): DiagnosticError {
  return new DiagnosticError(
    diagnostic("SUTRA.SECRET.UNRESOLVED", `vault:${reference}: ${why}`, {
      attributes: { reference: `vault:${reference}` },
    }),
  );
}

/** Resolves `vault:MOUNT/PATH#FIELD` against Vault's KV v2 HTTP API. */
export const vaultResolver: SecretResolver = {
  name: "vault",
  async resolve(reference: string, context: ResolveContext): Promise<string> {
    const m = REFERENCE.exec(reference);
    if (!m || reference.split(/[/#]/).some((s) => s === "." || s === "..")) {
      throw new DiagnosticError(
        diagnostic(
          "SUTRA.SECRET.REFERENCE_INVALID",
          `'vault:${reference}' is not vault:MOUNT/PATH#FIELD`,
        ),
      );
    }
    const [, mount, path, field] = m;
    const settings = await secretSettings(context);
    const address = settings.get(VAULT_ADDRESS)?.replace(/\/$/, "");
    if (address === undefined) {
      throw unresolved(reference, "sutra.secrets.vault.address is not set");
    }
    const state = stateFor(states, context, (): VaultState => ({ cache: new TtlCache() }));
    const ttl = settings.require(SECRETS_CACHE_TTL);
    const data = await state.cache.get(`${mount}/${path}`, ttl, async () => {
      const url = `${address}/v1/${mount}/data/${path}`;
      const namespace = settings.get(VAULT_NAMESPACE);
      const read = async (token: string) =>
        await call(reference, url, {
          headers: {
            "x-vault-token": token,
            ...(namespace === undefined ? {} : { "x-vault-namespace": namespace }),
          },
        });
      const given = settings.get(VAULT_TOKEN);
      let response: Response;
      if (given !== undefined) {
        response = await read(await resolveReference(given, context));
      } else {
        response = await read(await loginToken(reference, state, context, address));
        if (response.status === 403) {
          // The token may have expired or been revoked: one fresh login.
          await response.body?.cancel();
          state.login = undefined;
          response = await read(await loginToken(reference, state, context, address));
        }
      }
      if (response.status === 404) {
        await response.body?.cancel();
        throw unresolved(reference, `no secret at ${mount}/${path}`);
      }
      if (!response.ok) {
        throw unresolved(reference, `Vault answered ${response.status}${await errorsOf(response)}`);
      }
      const body = await response.json() as { data?: { data?: unknown } };
      if (typeof body.data?.data !== "object" || body.data.data === null) {
        throw unresolved(reference, "the answer is not a KV version 2 secret");
      }
      return JSON.stringify(body.data.data);
    });
    const value = (JSON.parse(data) as Record<string, unknown>)[field];
    if (value === undefined) throw unresolved(reference, `the secret has no field '${field}'`);
    return typeof value === "string" ? value : JSON.stringify(value);
  },
};

async function call(reference: string, url: string, init: RequestInit): Promise<Response> {
  try {
    return await fetch(url, { ...init, signal: AbortSignal.timeout(10_000) });
  } catch (error) {
    throw unresolved(reference, `Vault cannot be reached: ${errorMessage(error)}`);
  }
}

async function errorsOf(response: Response): Promise<string> {
  const text = await response.text();
  try {
    const errors = (JSON.parse(text) as { errors?: unknown[] }).errors;
    return Array.isArray(errors) && errors.length > 0 ? ` (${errors.join("; ")})` : "";
  } catch {
    return "";
  }
}

/** The AppRole token, logging in when there is none or it is near its lease's end. */
async function loginToken(
  reference: string,
  state: VaultState,
  context: ResolveContext,
  address: string,
): Promise<string> {
  const current = state.login && await state.login.catch(() => undefined);
  if (current && current.until > Date.now()) return current.token;
  const login = logIn(reference, context, address);
  state.login = login;
  login.catch(() => {
    if (state.login === login) state.login = undefined;
  });
  return (await login).token;
}

async function logIn(
  reference: string,
  context: ResolveContext,
  address: string,
): Promise<{ token: string; until: number }> {
  const settings = await secretSettings(context);
  const roleId = settings.get(VAULT_ROLE_ID);
  const secretId = settings.get(VAULT_SECRET_ID);
  if (roleId === undefined || secretId === undefined) {
    throw unresolved(
      reference,
      "neither sutra.secrets.vault.token nor sutra.secrets.vault.role-id and secret-id are set",
    );
  }
  const namespace = settings.get(VAULT_NAMESPACE);
  const response = await call(
    reference,
    `${address}/v1/auth/${settings.require(VAULT_APPROLE_MOUNT)}/login`,
    {
      method: "POST",
      headers: {
        "content-type": "application/json",
        ...(namespace === undefined ? {} : { "x-vault-namespace": namespace }),
      },
      body: JSON.stringify({
        role_id: await resolveReference(roleId, context),
        secret_id: await resolveReference(secretId, context),
      }),
    },
  );
  if (!response.ok) {
    throw unresolved(
      reference,
      `the AppRole login was refused (${response.status})${await errorsOf(response)}`,
    );
  }
  const body = await response.json() as {
    auth?: { client_token?: unknown; lease_duration?: unknown };
  };
  const token = body.auth?.client_token;
  if (typeof token !== "string" || token === "") {
    throw unresolved(reference, "the AppRole login answered no client token");
  }
  const lease = typeof body.auth?.lease_duration === "number" ? body.auth.lease_duration : 0;
  // Renewed a little early; a lease of 0 (no expiry) is kept until refused.
  const until = lease > 0 ? Date.now() + lease * 800 : Number.POSITIVE_INFINITY;
  return { token, until };
}
