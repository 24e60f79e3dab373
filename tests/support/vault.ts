/**
 * A test double of HashiCorp Vault — not Vault. It speaks the small part of
 * Vault's HTTP API the `vault:` resolver uses, over a real socket on
 * 127.0.0.1: KV version 2 reads (`GET /v1/<mount>/data/<path>`, answering
 * `{data: {data, metadata}}`, 404 for an unknown path) and the AppRole login
 * (`POST /v1/auth/approle/login`, answering `{auth: {client_token,
 * lease_duration}}`). A read without a valid `X-Vault-Token` answers 403
 * with `{errors: ["permission denied"]}`, as Vault does.
 *
 * @module
 */

/** A running double. */
export interface VaultDouble {
  /** `http://127.0.0.1:<port>`. */
  readonly address: string;
  /** Writes a new version of the secret at `mount/path`. */
  put(mount: string, path: string, data: Record<string, unknown>): void;
  /** Adds a token the server accepts. */
  addToken(token: string): void;
  /** Revokes every token (AppRole logins then yield fresh ones). */
  revokeTokens(): void;
  /** Requests served, by `METHOD path`. */
  readonly requests: string[];
  close(): Promise<void>;
}

/** Options for {@link startVaultDouble}. */
export interface VaultDoubleOptions {
  /** The AppRole credentials the login accepts. */
  readonly approle?: { readonly roleId: string; readonly secretId: string };
}

/** Starts a double on a free port of 127.0.0.1. */
export function startVaultDouble(options: VaultDoubleOptions = {}): VaultDouble {
  const secrets = new Map<string, { data: Record<string, unknown>; version: number }>();
  const tokens = new Set<string>();
  const requests: string[] = [];
  let issued = 0;
  const json = (status: number, body: unknown) =>
    new Response(JSON.stringify(body), {
      status,
      headers: { "content-type": "application/json" },
    });
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    const url = new URL(req.url);
    requests.push(`${req.method} ${url.pathname}`);
    if (req.method === "POST" && url.pathname === "/v1/auth/approle/login") {
      const body = await req.json() as { role_id?: string; secret_id?: string };
      const ok = options.approle && body.role_id === options.approle.roleId &&
        body.secret_id === options.approle.secretId;
      if (!ok) return json(400, { errors: ["invalid role or secret ID"] });
      const token = `hvs.double-${++issued}`;
      tokens.add(token);
      return json(200, { auth: { client_token: token, lease_duration: 3600, renewable: true } });
    }
    const m = /^\/v1\/([^/]+)\/data\/(.+)$/.exec(url.pathname);
    if (req.method !== "GET" || !m) return json(404, { errors: [] });
    if (!tokens.has(req.headers.get("x-vault-token") ?? "")) {
      return json(403, { errors: ["permission denied"] });
    }
    const found = secrets.get(`${m[1]}/${m[2]}`);
    if (!found) return json(404, { errors: [] });
    return json(200, {
      data: {
        data: found.data,
        metadata: { version: found.version, destroyed: false, deletion_time: "" },
      },
    });
  });
  return {
    address: `http://127.0.0.1:${server.addr.port}`,
    put(mount, path, data) {
      const key = `${mount}/${path}`;
      secrets.set(key, { data, version: (secrets.get(key)?.version ?? 0) + 1 });
    },
    addToken: (token) => void tokens.add(token),
    revokeTokens: () => tokens.clear(),
    requests,
    close: () => server.shutdown(),
  };
}
