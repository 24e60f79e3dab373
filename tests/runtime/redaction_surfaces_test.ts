/**
 * Sensitive data on every surface of a running engine: a payment carrying a
 * card number is taken over HTTP, parks and resumes; the log output, the
 * JSONL audit files, the admin view and the stored snapshot are then
 * searched for the card (and the value of a declared-sensitive variable): zero hits. The
 * snapshot opens only under the tenant's key.
 */
import "../../io/redactors/mod.ts";
import assert from "node:assert/strict";
import { configKeys, createLogger, loadConfig } from "../../engine/core/mod.ts";
import { type RunningEngine, startEngine } from "../../engine/runtime/mod.ts";
import { provisionDataKey } from "../../engine/runtime/crypto/mod.ts";
import { replayInstance } from "../../engine/runtime/audit/mod.ts";
import { get, post, sealDir, until } from "./support.ts";

const FIXTURE = "tests/fixtures/runtime/protected_payment";
const CARD = "4111111111111111";
/** The declared-sensitive `secret` the process derives (`<reference>-otp-5531`). */
const OTP = "otp-5531";
const KEK = new Uint8Array(32).fill(9).toBase64();

interface Booted {
  readonly engine: RunningEngine;
  readonly logs: string[];
}

async function boot(dir: string, keyring: string | undefined, database: string): Promise<Booted> {
  const env: Record<string, string> = {
    SUTRA_HTTP_PORT: "0",
    SUTRA_HTTP_HOST: "127.0.0.1",
    SUTRA_DATASOURCE_URL: database,
    SUTRA_ADMIN_OIDC_DEV_DISABLED: "true",
    SUTRA_SHUTDOWN_GRACE_PERIOD: "PT5S",
    SUTRA_AUDIT_SQL: "true",
    SUTRA_AUDIT_JSONL_DIR: `${dir}/audit`,
    ...(keyring ? { SUTRA_CRYPTO_KEYRING: keyring } : {}),
    TEST_KEK: KEK,
  };
  const config = await loadConfig({ env, cwd: "/nonexistent-sutra-dir", registry: configKeys });
  const logs: string[] = [];
  // Everything the engine logs, at the most verbose level.
  const logger = createLogger("engine", { filter: "trace", write: (line) => logs.push(line) });
  return { engine: await startEngine({ config, logger, env }), logs };
}

async function textUnder(dir: string): Promise<string> {
  let text = "";
  for await (const e of Deno.readDir(dir)) {
    const path = `${dir}/${e.name}`;
    text += e.isDirectory ? await textUnder(path) : await Deno.readTextFile(path);
  }
  return text;
}

Deno.test("a card number reaches no log line, audit file, admin view or stored snapshot", async () => {
  const dir = await Deno.makeTempDir();
  const keyring = `${dir}/keyring.json`;
  const resolve = { env: { TEST_KEK: KEK }, secretsDir: "/nonexistent" };
  await provisionDataKey(keyring, {
    tenant: "acme",
    keyId: "k1",
    kek: "env:TEST_KEK",
    resolve,
    now: new Date(),
  });
  const { engine, logs } = await boot(dir, keyring, "memory://");
  let adminView = "";
  let instanceId = "";
  try {
    await engine.deployments.deploy(await sealDir(FIXTURE));
    const started = await post(engine, "/channels/pay-start", {
      reference: "R-1",
      amount: 12.5,
      card: { number: CARD, cvv: "123", holder: "Ada" },
    });
    assert.ok(started.status < 300, JSON.stringify(started.body));
    const { rows } = await engine.database.query<{ instance_id: string; snapshot: Uint8Array }>(
      "select instance_id, snapshot from instances",
    );
    assert.equal(rows.length, 1);
    instanceId = rows[0].instance_id;
    const stored = new TextDecoder().decode(rows[0].snapshot);
    assert.equal(stored.includes(CARD), false, stored);
    assert.equal(stored.includes(OTP), false, stored);
    assert.match(stored, /^sutra\.enc\.var\.payload=v1:k1:/m);

    const view = await get(engine, `/admin/instances/${instanceId}`);
    assert.equal(view.status, 200);
    adminView = JSON.stringify(view.body);
    const variables = view.body.variables as Record<string, string>;
    assert.equal(variables.secret, "***");
    assert.equal(variables.payload, "***", "an encrypted payload is shown masked, without its key");

    // An administrative change reads the sealed variables with the key and seals them again.
    const patched = await fetch(`${engine.url}/admin/instances/${instanceId}/variables`, {
      method: "PATCH",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ variables: { amount: 30 } }),
    });
    assert.equal(patched.status, 200, await patched.text());
    const after = await engine.database.query<{ snapshot: Uint8Array }>(
      "select snapshot from instances",
    );
    const rewritten = new TextDecoder().decode(after.rows[0].snapshot);
    assert.match(rewritten, /^sutra\.enc\.var\.payload=v1:k1:/m);
    assert.match(rewritten, /^sutra\.enc\.var\.secret=v1:k1:/m);
    assert.match(rewritten, /^sutra\.var\.amount=n\|30$/m);
    assert.equal(rewritten.includes(CARD), false);

    const confirmed = await post(engine, "/channels/pay-confirm", { reference: "R-1" });
    assert.ok(confirmed.status < 300, JSON.stringify(confirmed.body));
    await until(async () => {
      const r = await engine.database.query<{ status: string }>("select status from instances");
      return r.rows.every((x) => x.status === "COMPLETED");
    });
  } finally {
    await engine.stop();
  }
  const audit = await textUnder(`${dir}/audit`);
  for (
    const [surface, text] of [["log", logs.join("\n")], ["audit", audit], ["admin view", adminView]]
  ) {
    assert.ok(text.length > 0, `${surface} is empty`);
    assert.equal(text.includes(CARD), false, `${surface} shows the card number`);
    assert.equal(text.includes(OTP), false, `${surface} shows the sensitive variable`);
  }
  const replay = await replayInstance(`${dir}/audit`, { instanceId, tenant: "acme" });
  assert.equal(replay.records[0].type, "instance.started");
  assert.equal(replay.records.at(-1)?.type, "instance.completed");
  assert.match(replay.records[0].variables!.payload, /number: "\*\*\*"/);
  assert.ok((await Deno.stat(`${dir}/audit/acme/payments`)).isDirectory);
});

Deno.test("an instance sealed under one key is refused, and kept, by an engine holding another", async () => {
  const dir = await Deno.makeTempDir();
  const resolve = { env: { TEST_KEK: KEK }, secretsDir: "/nonexistent" };
  const right = `${dir}/right.json`;
  const wrong = `${dir}/wrong.json`;
  for (const path of [right, wrong]) {
    await provisionDataKey(path, {
      tenant: "acme",
      keyId: "k1",
      kek: "env:TEST_KEK",
      resolve,
      now: new Date(),
    });
  }
  const database = `file://${dir}/db`;
  const first = await boot(dir, right, database);
  try {
    await first.engine.deployments.deploy(await sealDir(FIXTURE));
    const started = await post(first.engine, "/channels/pay-start", {
      reference: "R-2",
      amount: 1,
      card: { number: CARD },
    });
    assert.ok(started.status < 300, JSON.stringify(started.body));
  } finally {
    await first.engine.stop();
  }
  const second = await boot(dir, wrong, database);
  try {
    const refused = await post(second.engine, "/channels/pay-confirm", { reference: "R-2" });
    assert.ok(refused.status >= 400, JSON.stringify(refused.body));
    assert.match(
      JSON.stringify(refused.body) + second.logs.join("\n"),
      /SUTRA\.CRYPTO\.DECRYPT_FAILED/,
    );
    const { rows } = await second.engine.database.query<{ status: string }>(
      "select status from instances",
    );
    assert.deepEqual(rows.map((r) => r.status), ["RUNNING"], "the instance is left as it was");
  } finally {
    await second.engine.stop();
  }
});

Deno.test("without a keyring the admin view shows the payload with only the located spans masked", async () => {
  const dir = await Deno.makeTempDir();
  const { engine, logs } = await boot(dir, undefined, "memory://");
  try {
    await engine.deployments.deploy(await sealDir(FIXTURE));
    const started = await post(engine, "/channels/pay-start", {
      reference: "R-3",
      amount: 2,
      card: { number: CARD, cvv: "123", holder: "Ada" },
    });
    assert.ok(started.status < 300, JSON.stringify(started.body));
    const { rows } = await engine.database.query<{ instance_id: string }>(
      "select instance_id from instances",
    );
    const view = await get(engine, `/admin/instances/${rows[0].instance_id}`);
    const { validation: _, ...variables } = view.body.variables as Record<string, string>;
    assert.deepEqual(variables, {
      amount: "4",
      payload: '{reference: "R-3", amount: 2, card: {number: "***", cvv: "***", holder: "Ada"}}',
      secret: "***",
    });
    assert.deepEqual(view.body.redacted, { payload: "pci", secret: "sensitive" });
    assert.match(logs.join("\n"), /encryption at rest off/);
  } finally {
    await engine.stop();
  }
});
