/**
 * Settings of the vendor secret resolvers (`vault:`, `aws-secrets:`), read
 * like every engine setting (environment over `SUTRA_CONFIG` file over
 * default) from the environment a resolution runs with. Credential-shaped
 * settings are themselves references (`env:`, `secret:`, `${…}`), resolved
 * through the built-in resolvers.
 *
 * @module
 */
import { ConfigRegistry, defineKey, loadConfig } from "../../engine/core/config.ts";
import type { Config } from "../../engine/core/config.ts";
import type { ResolveContext } from "../../engine/core/secrets.ts";

/** How long a resolved vendor secret is reused before it is fetched again. */
export const SECRETS_CACHE_TTL = defineKey({
  key: "sutra.secrets.cache-ttl",
  type: "duration",
  default: 30_000,
  description:
    "How long a value resolved from vault: or aws-secrets: is reused before it is fetched again (a rotated secret is seen within this window; PT0S fetches on every use).",
});

/** The Vault server. */
export const VAULT_ADDRESS = defineKey({
  key: "sutra.secrets.vault.address",
  type: "string",
  description: "Base URL of the HashiCorp Vault server vault: references are read from.",
  validate: (v) => /^https?:\/\/[^/]+\/?$/.test(v) ? undefined : "must be http(s)://host[:port]",
});

/** A Vault token. */
export const VAULT_TOKEN = defineKey({
  key: "sutra.secrets.vault.token",
  type: "string",
  secret: true,
  description: "Vault token as a reference (env:, secret:, ${…}); unset logs in with AppRole.",
});

/** AppRole role id. */
export const VAULT_ROLE_ID = defineKey({
  key: "sutra.secrets.vault.role-id",
  type: "string",
  secret: true,
  description: "AppRole role_id as a reference, used when no Vault token is set.",
});

/** AppRole secret id. */
export const VAULT_SECRET_ID = defineKey({
  key: "sutra.secrets.vault.secret-id",
  type: "string",
  secret: true,
  description: "AppRole secret_id as a reference, used when no Vault token is set.",
});

/** Where the AppRole auth method is mounted. */
export const VAULT_APPROLE_MOUNT = defineKey({
  key: "sutra.secrets.vault.approle-mount",
  type: "string",
  default: "approle",
  description: "Mount path of Vault's AppRole auth method.",
  validate: (v) => /^[A-Za-z0-9._-]+(\/[A-Za-z0-9._-]+)*$/.test(v) ? undefined : "must be a path",
});

/** Vault Enterprise namespace. */
export const VAULT_NAMESPACE = defineKey({
  key: "sutra.secrets.vault.namespace",
  type: "string",
  description: "Vault Enterprise namespace sent as X-Vault-Namespace (unset sends none).",
});

/** AWS region of Secrets Manager. */
export const AWS_SECRETS_REGION = defineKey({
  key: "sutra.secrets.aws.region",
  type: "string",
  description: "AWS region aws-secrets: references are read from.",
});

/** Secrets Manager endpoint override. */
export const AWS_SECRETS_ENDPOINT = defineKey({
  key: "sutra.secrets.aws.endpoint",
  type: "string",
  description: "Secrets Manager endpoint URL (unset uses the region's).",
});

/** Access key id. */
export const AWS_SECRETS_ACCESS_KEY_ID = defineKey({
  key: "sutra.secrets.aws.access-key-id",
  type: "string",
  secret: true,
  description: "AWS access key id as a reference; required with secret-access-key.",
});

/** Secret access key. */
export const AWS_SECRETS_SECRET_ACCESS_KEY = defineKey({
  key: "sutra.secrets.aws.secret-access-key",
  type: "string",
  secret: true,
  description: "AWS secret access key as a reference; required with access-key-id.",
});

/** Session token. */
export const AWS_SECRETS_SESSION_TOKEN = defineKey({
  key: "sutra.secrets.aws.session-token",
  type: "string",
  secret: true,
  description: "AWS session token as a reference, for temporary credentials.",
});

const KEYS = new ConfigRegistry();
KEYS.define(SECRETS_CACHE_TTL);
for (
  const key of [
    VAULT_ADDRESS,
    VAULT_TOKEN,
    VAULT_ROLE_ID,
    VAULT_SECRET_ID,
    VAULT_APPROLE_MOUNT,
    VAULT_NAMESPACE,
    AWS_SECRETS_REGION,
    AWS_SECRETS_ENDPOINT,
    AWS_SECRETS_ACCESS_KEY_ID,
    AWS_SECRETS_SECRET_ACCESS_KEY,
    AWS_SECRETS_SESSION_TOKEN,
  ]
) KEYS.define(key);

const loaded = new WeakMap<object, Promise<Config>>();

/** These settings as the context's environment (and its config file) set them; loaded once per environment. */
export function secretSettings(context: ResolveContext): Promise<Config> {
  let config = loaded.get(context.env);
  if (!config) {
    config = loadConfig({ env: context.env, registry: KEYS });
    // A failed load is not kept: a corrected environment is read again.
    config.catch(() => loaded.delete(context.env));
    loaded.set(context.env, config);
  }
  return config;
}

/**
 * Per-environment state a resolver keeps between resolutions (tokens,
 * cached values), dropped with the environment object it belongs to.
 */
export function stateFor<T extends object>(
  states: WeakMap<object, T>,
  context: ResolveContext,
  create: () => T,
): T {
  let state = states.get(context.env);
  if (!state) states.set(context.env, state = create());
  return state;
}

/** Values reused for a time-to-live (0 keeps nothing). */
export class TtlCache {
  readonly #values = new Map<string, { value: string; until: number }>();

  /** The value cached under `key`, or what `fetch` yields (then cached for `ttlMs`). */
  async get(key: string, ttlMs: number, fetch: () => Promise<string>): Promise<string> {
    const hit = this.#values.get(key);
    if (hit && hit.until > Date.now()) return hit.value;
    const value = await fetch();
    if (ttlMs > 0) this.#values.set(key, { value, until: Date.now() + ttlMs });
    else this.#values.delete(key);
    return value;
  }
}
