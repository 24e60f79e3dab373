import assert from "node:assert/strict";
import { createCryptoCommand, cryptoCommand } from "./crypto.ts";
import { UsageError } from "./command.ts";
import { DiagnosticError } from "../engine/core/diagnostic.ts";
import { loadKeyring, readKeyringFile } from "../engine/runtime/crypto/mod.ts";
import "../io/secrets/mod.ts";

const KEK = new Uint8Array(32).fill(3).toBase64();

function cliIo(env: Record<string, string>) {
  const out: string[] = [];
  const err: string[] = [];
  return {
    out,
    err,
    io: {
      stdout: (t: string) => out.push(t),
      stderr: (t: string) => err.push(t),
      env: (n: string) => env[n],
    },
  };
}

Deno.test("provision-dek appends a wrapped key per run and prints no key material", async () => {
  const dir = await Deno.makeTempDir();
  const keyring = `${dir}/keyring.json`;
  const { out, err, io } = cliIo({ KEK, SUTRA_CRYPTO_KEYRING: keyring });
  const command = createCryptoCommand({ now: () => new Date(Date.UTC(2026, 11, 2)) });
  assert.equal(
    await command.run(
      ["provision-dek", "--key-id", "k1", "--kek", "env:KEK", "--tenant", "acme"],
      io,
    ),
    0,
    err.join(""),
  );
  assert.equal(
    await command.run([
      "provision-dek",
      "--key-id",
      "k2",
      "--kek",
      "env:KEK",
      "--tenant",
      "acme",
      "--format",
      "json",
    ], io),
    0,
    err.join(""),
  );
  assert.match(out[0], /provisioned data key 'k1' for tenant 'acme'/);
  assert.deepEqual(JSON.parse(out[1]), {
    keyring,
    tenant: "acme",
    keyId: "k2",
    kek: "env:KEK",
    createdAt: "2026-12-02T00:00:00.000Z",
  });
  const entries = await readKeyringFile(keyring);
  assert.deepEqual(entries.map((e) => e.keyId), ["k1", "k2"]);
  for (const e of entries) assert.equal(out.join("").includes(e.wrapped), false);
  assert.equal(out.join("").includes(KEK), false);
  assert.equal((await Deno.stat(keyring)).mode! & 0o777, 0o600);
  const loaded = await loadKeyring(keyring, { env: { KEK }, secretsDir: "/nonexistent" });
  assert.equal(loaded.active("acme")?.keyId, "k2");
});

Deno.test("provision-dek refuses a duplicate id, a bad KEK and missing flags, changing nothing", async () => {
  const dir = await Deno.makeTempDir();
  const keyring = `${dir}/keyring.json`;
  const { err, io } = cliIo({ KEK, SHORT: "c2hvcnQ=" });
  const run = (...args: string[]) => cryptoCommand.run(["provision-dek", ...args], io);
  const with1 = ["--keyring", keyring, "--key-id", "k1"];
  const with2 = ["--keyring", keyring, "--key-id", "k2"];
  assert.equal(await run(...with1, "--kek", "env:KEK"), 0, err.join(""));
  const before = await Deno.readTextFile(keyring);

  const refused = (code: string, pattern = /./) => (e: unknown) =>
    e instanceof DiagnosticError && e.diagnostics[0].code === code &&
    pattern.test(e.diagnostics[0].message);
  await assert.rejects(
    run(...with1, "--kek", "env:KEK"),
    refused("SUTRA.CRYPTO.KEYRING_INVALID", /already holds key 'k1'/),
  );
  await assert.rejects(run(...with2, "--kek", "env:SHORT"), refused("SUTRA.CRYPTO.KEK_INVALID"));
  await assert.rejects(run(...with2, "--kek", "env:UNSET"), refused("SUTRA.CRYPTO.KEK_INVALID"));
  await assert.rejects(run(...with2, "--kek", "literal-key"), refused("SUTRA.CRYPTO.KEK_INVALID"));
  await assert.rejects(
    run("--keyring", keyring, "--key-id", "bad id!", "--kek", "env:KEK"),
    refused("SUTRA.CRYPTO.KEYRING_INVALID"),
  );
  await assert.rejects(run("--key-id", "k3", "--kek", "env:KEK"), {
    name: "UsageError",
    message: /--keyring PATH/,
  });
  await assert.rejects(cryptoCommand.run(["rotate", "--keyring", keyring], io), UsageError);
  assert.equal(await Deno.readTextFile(keyring), before);
});

Deno.test("rewrap moves every data key under another KEK and reports them", async () => {
  const dir = await Deno.makeTempDir();
  const keyring = `${dir}/keyring.json`;
  const NEW_KEK = "cd".repeat(32);
  const { out, err, io } = cliIo({ KEK, NEW_KEK, SUTRA_CRYPTO_KEYRING: keyring });
  assert.equal(
    await cryptoCommand.run(["provision-dek", "--key-id", "k1", "--kek", "env:KEK"], io),
    0,
    err.join(""),
  );
  out.length = 0;
  assert.equal(
    await cryptoCommand.run(["rewrap", "--kek", "env:NEW_KEK", "--format", "json"], io),
    0,
    err.join(""),
  );
  assert.deepEqual(JSON.parse(out[0]), {
    keyring,
    kek: "env:NEW_KEK",
    rewrapped: [{ tenant: "default", keyId: "k1" }],
  });
  assert.equal(out.join("").includes(NEW_KEK), false);
  const loaded = await loadKeyring(keyring, { env: { NEW_KEK }, secretsDir: "/nonexistent" });
  assert.equal(loaded.active("default")?.keyId, "k1");
  await assert.rejects(
    cryptoCommand.run(["rewrap", "--kek", "env:NEW_KEK", "--key-id", "k2"], io),
    UsageError,
  );
});
