import assert from "node:assert/strict";
import { configKeys, createLogger, DiagnosticError, loadConfig } from "../../engine/core/mod.ts";
import { openProtection } from "../../engine/runtime/audit/mod.ts";
import { provisionDataKey } from "../../engine/runtime/crypto/mod.ts";
import "../../engine/runtime/settings.ts";
import "../../io/secrets/mod.ts";

const KEK = new Uint8Array(32).fill(4).toBase64();
const logger = createLogger("audit", { filter: "error", write: () => {} });

async function open(env: Record<string, string>) {
  const config = await loadConfig({ env, cwd: "/nonexistent-sutra-dir", registry: configKeys });
  return await openProtection(config, {
    logger,
    replicaId: "r1",
    resolve: { env: { KEK }, secretsDir: "/nonexistent" },
  });
}

function codeOf(e: unknown): string {
  assert.ok(e instanceof DiagnosticError, String(e));
  return e.diagnostics[0].code;
}

Deno.test("boot opens the configured sinks and keyring and says so in one clause", async () => {
  const off = await open({});
  assert.equal(off.posture, "audit off; encryption at rest off (no sutra.crypto.keyring)");
  assert.equal(off.keyring, undefined);
  assert.equal(off.audit.enabled, false);
  await off.close();

  const dir = await Deno.makeTempDir();
  const keyring = `${dir}/keyring.json`;
  await provisionDataKey(keyring, {
    tenant: "acme",
    keyId: "k1",
    kek: "env:KEK",
    resolve: { env: { KEK }, secretsDir: "/nonexistent" },
    now: new Date(),
  });
  const on = await open({
    SUTRA_AUDIT_SQL: "true",
    SUTRA_AUDIT_JSONL_DIR: `${dir}/audit/nested`,
    SUTRA_CRYPTO_KEYRING: keyring,
  });
  assert.equal(
    on.posture,
    `audit sql + jsonl ${dir}/audit/nested; encryption at rest on (1 data key)`,
  );
  assert.equal(on.keyring?.active("acme")?.keyId, "k1");
  assert.ok((await Deno.stat(`${dir}/audit/nested`)).isDirectory, "the directory exists at boot");
  await on.close();
});

Deno.test("a keyring that does not load or a JSONL directory that cannot exist stops the boot", async () => {
  const dir = await Deno.makeTempDir();
  await assert.rejects(
    open({ SUTRA_CRYPTO_KEYRING: `${dir}/missing.json` }),
    (e) => codeOf(e) === "SUTRA.CRYPTO.KEYRING_INVALID",
  );
  await Deno.writeTextFile(`${dir}/file`, "");
  await assert.rejects(
    open({ SUTRA_AUDIT_JSONL_DIR: `${dir}/file/audit` }),
    (e) => codeOf(e) === "SUTRA.AUDIT.SINK_FAILED",
  );
});
