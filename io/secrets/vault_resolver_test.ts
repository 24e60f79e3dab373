import assert from "node:assert/strict";
import { DiagnosticError } from "../../engine/core/diagnostic.ts";
import { type ResolveContext, resolveReference } from "../../engine/core/secrets.ts";
import { startVaultDouble } from "../../tests/support/vault.ts";
import "./mod.ts";

/** A fresh context: resolver state (tokens, cached values) is kept per environment. */
function context(env: Record<string, string>, secretsDir = "/nonexistent"): ResolveContext {
  return { env: { ...env }, secretsDir };
}

async function failure(promise: Promise<unknown>): Promise<DiagnosticError> {
  const error = await promise.then(() => undefined, (e) => e);
  assert.ok(error instanceof DiagnosticError, `expected a DiagnosticError, got ${error}`);
  return error;
}

Deno.test("vault: reads a KV v2 field with a token taken from a reference", async () => {
  const vault = startVaultDouble();
  const dir = await Deno.makeTempDir();
  try {
    vault.addToken("s.root");
    vault.put("secret", "apps/orders", { password: "hunter2", port: 5432 });
    await Deno.writeTextFile(`${dir}/vault-token`, "s.root\n");
    const ctx = context({
      SUTRA_SECRETS_VAULT_ADDRESS: vault.address,
      SUTRA_SECRETS_VAULT_TOKEN: "secret:vault-token",
    }, dir);
    assert.equal(await resolveReference("vault:secret/apps/orders#password", ctx), "hunter2");
    assert.equal(await resolveReference("vault:secret/apps/orders#port", ctx), "5432");
    const missing = await failure(resolveReference("vault:secret/apps/none#password", ctx));
    assert.equal(missing.diagnostics[0].code, "SUTRA.SECRET.UNRESOLVED");
    assert.match(missing.diagnostics[0].message, /no secret at secret\/apps\/none/);
    const field = await failure(resolveReference("vault:secret/apps/orders#user", ctx));
    assert.match(field.diagnostics[0].message, /no field 'user'/);
    for (const bad of ["vault:secret", "vault:secret/apps/orders", "vault:secret/../x#p"]) {
      const e = await failure(resolveReference(bad, ctx));
      assert.equal(e.diagnostics[0].code, "SUTRA.SECRET.REFERENCE_INVALID", bad);
    }
  } finally {
    await vault.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("vault: a refused token is reported without its value", async () => {
  const vault = startVaultDouble();
  try {
    vault.put("secret", "db", { password: "x" });
    const e = await failure(resolveReference(
      "vault:secret/db#password",
      context({
        SUTRA_SECRETS_VAULT_ADDRESS: vault.address,
        SUTRA_SECRETS_VAULT_TOKEN: "env:TOKEN",
        TOKEN: "s.wrong",
      }),
    ));
    assert.match(e.diagnostics[0].message, /Vault answered 403 \(permission denied\)/);
    assert.doesNotMatch(e.diagnostics[0].message, /s\.wrong/);
    const unset = await failure(resolveReference("vault:secret/db#password", context({})));
    assert.match(unset.diagnostics[0].message, /sutra\.secrets\.vault\.address is not set/);
  } finally {
    await vault.close();
  }
});

Deno.test("vault: AppRole logs in, logs in again once its token is refused, and sees a rotation after the TTL", async () => {
  const vault = startVaultDouble({ approle: { roleId: "role-1", secretId: "sid-1" } });
  try {
    vault.put("kv", "broker", { password: "one" });
    const ctx = context({
      SUTRA_SECRETS_VAULT_ADDRESS: vault.address,
      SUTRA_SECRETS_VAULT_ROLE_ID: "env:ROLE",
      SUTRA_SECRETS_VAULT_SECRET_ID: "env:SID",
      SUTRA_SECRETS_CACHE_TTL: "PT0.2S",
      ROLE: "role-1",
      SID: "sid-1",
    });
    assert.equal(await resolveReference("vault:kv/broker#password", ctx), "one");
    // Within the TTL the cached value is served: Vault is not asked again.
    vault.put("kv", "broker", { password: "two" });
    assert.equal(await resolveReference("vault:kv/broker#password", ctx), "one");
    assert.deepEqual(vault.requests, ["POST /v1/auth/approle/login", "GET /v1/kv/data/broker"]);
    // Once it expires the rotated value is read, after a fresh login for the revoked token.
    vault.revokeTokens();
    let value = "one";
    while (value === "one") {
      await new Promise((r) => setTimeout(r, 50));
      value = await resolveReference("vault:kv/broker#password", ctx);
    }
    assert.equal(value, "two");
    assert.deepEqual(vault.requests.slice(2), [
      "GET /v1/kv/data/broker",
      "POST /v1/auth/approle/login",
      "GET /v1/kv/data/broker",
    ]);
    const refused = await failure(resolveReference(
      "vault:kv/broker#password",
      context({
        SUTRA_SECRETS_VAULT_ADDRESS: vault.address,
        SUTRA_SECRETS_VAULT_ROLE_ID: "env:ROLE",
        SUTRA_SECRETS_VAULT_SECRET_ID: "env:SID",
        ROLE: "role-1",
        SID: "wrong",
      }),
    ));
    assert.match(refused.diagnostics[0].message, /AppRole login was refused \(400\)/);
  } finally {
    await vault.close();
  }
});
