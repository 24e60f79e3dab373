import assert from "node:assert/strict";
import { DiagnosticError } from "../../engine/core/diagnostic.ts";
import type { ResolveContext } from "../../engine/core/secrets.ts";
import { decodeSnapshot, encodeSnapshotText } from "../../engine/executor/mod.ts";
import {
  decodeAtRest,
  encodeAtRest,
  loadKeyring,
  maskSealed,
  openSnapshot,
  provisionDataKey,
  readKeyringFile,
  rewrapDataKeys,
  sealSnapshot,
} from "../../engine/runtime/crypto/mod.ts";
import { observedVariables } from "../../engine/runtime/audit/observed.ts";
import "../../io/secrets/mod.ts";
import { CARD, parkedPayment, paymentPlan, SECRET } from "./protection_support.ts";

const KEK_A = new Uint8Array(32).fill(7).toBase64();
const KEK_B = "ab".repeat(32);
const resolve: ResolveContext = { env: { KEK_A, KEK_B }, secretsDir: "/nonexistent" };
const now = new Date(Date.UTC(2026, 11, 2));

async function keyringWith(...keys: [string, string, string][]): Promise<string> {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/keyring.json`;
  for (const [tenant, keyId, kek] of keys) {
    await provisionDataKey(path, { tenant, keyId, kek, resolve, now });
  }
  return path;
}

function codeOf(e: unknown): string {
  assert.ok(e instanceof DiagnosticError, String(e));
  return e.diagnostics[0].code;
}

Deno.test("sealed snapshot bytes hold no plaintext of a protected value, and open to the same state", async () => {
  const plan = await paymentPlan();
  const { state } = await parkedPayment(plan);
  const keyring = await loadKeyring(await keyringWith(["acme", "k1", "env:KEK_A"]), resolve);
  const plain = encodeSnapshotText(plan, state);
  assert.ok(plain.includes(CARD) && plain.includes(SECRET), "the fixture holds both in clear");

  const sealed = await encodeAtRest(plan, state, { tenant: "acme", keyring });
  const bytes = new TextEncoder().encode(sealed);
  for (const needle of [CARD, SECRET, "open-sesame", "4111"]) {
    assert.equal(sealed.includes(needle), false, `'${needle}' leaked into ${sealed}`);
  }
  assert.match(sealed, /^sutra\.enc\.var\.payload=v1:k1:/m);
  assert.match(sealed, /^sutra\.enc\.var\.secret=v1:k1:/m);
  assert.match(sealed, /^sutra\.var\.amount=n\|25$/m, "an unprotected variable stays as it was");
  assert.match(sealed, /^sutra\.generation=4$/m, "typed and encrypted is simply 4");

  const opened = await decodeAtRest(plan, bytes, { tenant: "acme", keyring });
  assert.ok(opened.state, JSON.stringify(opened.diagnostics));
  assert.equal(encodeSnapshotText(plan, opened.state), plain, "opening restores the exact entries");
  const vars = [...opened.state.scopes.values()][0].vars;
  assert.equal(typeof vars.get("secret"), "string");
  assert.equal(await openSnapshot(sealed, { tenant: "acme", keyring }), plain);
});

Deno.test("a string-only snapshot seals at generation 3 and opens back to its generation-2 bytes", async () => {
  const keyring = await loadKeyring(await keyringWith(["t", "k1", "env:KEK_A"]), resolve);
  const plain = "sutra.generation=2\nsutra.instance=i-9\nsutra.process=p\nsutra.var.pin=1234\n";
  const sealed = await sealSnapshot(plain, { tenant: "t", keyring, protect: new Set(["pin"]) });
  assert.match(sealed, /^sutra\.generation=3$/m);
  assert.equal(sealed.includes("1234"), false);
  assert.equal(await openSnapshot(sealed, { tenant: "t", keyring }), plain);
  assert.equal(
    await sealSnapshot(plain, { tenant: "t", keyring, protect: new Set(["other"]) }),
    plain,
    "nothing to protect leaves the bytes untouched",
  );
});

Deno.test("a wrong key, tenant, instance or variable fails closed with a SUTRA.CRYPTO diagnostic", async () => {
  const plan = await paymentPlan();
  const { state } = await parkedPayment(plan);
  const right = await loadKeyring(await keyringWith(["acme", "k1", "env:KEK_A"]), resolve);
  // The same key id, but a different random data key: authentication must fail.
  const wrong = await loadKeyring(await keyringWith(["acme", "k1", "env:KEK_A"]), resolve);
  const sealed = await encodeAtRest(plan, state, { tenant: "acme", keyring: right });

  const withWrongKey = await decodeAtRest(plan, sealed, { tenant: "acme", keyring: wrong });
  assert.equal(withWrongKey.state, undefined);
  assert.equal(withWrongKey.diagnostics?.[0].code, "SUTRA.CRYPTO.DECRYPT_FAILED");
  assert.equal(withWrongKey.diagnostics?.[0].attributes?.keyId, "k1");

  const otherTenant = await decodeAtRest(plan, sealed, { tenant: "other", keyring: right });
  assert.equal(otherTenant.diagnostics?.[0].code, "SUTRA.CRYPTO.KEY_UNKNOWN");
  const noKeyring = await decodeAtRest(plan, sealed, { tenant: "acme" });
  assert.equal(noKeyring.diagnostics?.[0].code, "SUTRA.CRYPTO.KEY_UNKNOWN");

  // A ciphertext moved to another instance or another variable does not authenticate.
  const moved = sealed.replace("sutra.instance=i-1", "sutra.instance=i-2");
  assert.equal(
    (await decodeAtRest(plan, moved, { tenant: "acme", keyring: right })).diagnostics?.[0].code,
    "SUTRA.CRYPTO.DECRYPT_FAILED",
  );
  const secretLine = /^sutra\.enc\.var\.secret=(.*)$/m.exec(sealed)![1];
  const swapped = sealed.replace(
    /^sutra\.enc\.var\.payload=.*$/m,
    `sutra.enc.var.payload=${secretLine}`,
  );
  await assert.rejects(
    openSnapshot(swapped, { tenant: "acme", keyring: right }),
    (e) => codeOf(e) === "SUTRA.CRYPTO.DECRYPT_FAILED",
  );
  // The deployment is not bound: the sealed entries never mention it, and the opened state
  // decodes against any plan of the process (a migration changes only the pin).
  assert.equal(sealed.includes("deployment"), false);
});

Deno.test("a tenant without a data key refuses to write a protected value in clear", async () => {
  const plan = await paymentPlan();
  const { state } = await parkedPayment(plan);
  const keyring = await loadKeyring(await keyringWith(["acme", "k1", "env:KEK_A"]), resolve);
  await assert.rejects(
    encodeAtRest(plan, state, { tenant: "globex", keyring }),
    (e) => codeOf(e) === "SUTRA.CRYPTO.KEY_MISSING",
  );
});

Deno.test("rotation: a new key seals from then on and values sealed under the old one still open", async () => {
  const plan = await paymentPlan();
  const { state } = await parkedPayment(plan);
  const path = await keyringWith(["acme", "k1", "env:KEK_A"]);
  const before = await loadKeyring(path, resolve);
  const old = await encodeAtRest(plan, state, { tenant: "acme", keyring: before });

  // Rotate the data key and the key-encryption key at once: k2 is wrapped by KEK_B.
  await provisionDataKey(path, { tenant: "acme", keyId: "k2", kek: "env:KEK_B", resolve, now });
  const after = await loadKeyring(path, resolve);
  assert.equal(after.active("acme")?.keyId, "k2");
  const fresh = await encodeAtRest(plan, state, { tenant: "acme", keyring: after });
  assert.match(fresh, /=v1:k2:/);
  assert.doesNotMatch(fresh, /=v1:k1:/);
  const plain = encodeSnapshotText(plan, state);
  assert.equal(await openSnapshot(old, { tenant: "acme", keyring: after }), plain);
  assert.equal(await openSnapshot(fresh, { tenant: "acme", keyring: after }), plain);
  const entries = await readKeyringFile(path);
  assert.deepEqual(entries.map((e) => [e.keyId, e.kek]), [["k1", "env:KEK_A"], [
    "k2",
    "env:KEK_B",
  ]]);
});

Deno.test("a keyring whose KEK changed or is missing refuses to load", async () => {
  const path = await keyringWith(["acme", "k1", "env:KEK_A"]);
  const changed: ResolveContext = { env: { KEK_A: KEK_B }, secretsDir: "/nonexistent" };
  await assert.rejects(loadKeyring(path, changed), (e) => codeOf(e) === "SUTRA.CRYPTO.KEK_INVALID");
  await assert.rejects(
    loadKeyring(path, { env: {}, secretsDir: "/nonexistent" }),
    (e) => codeOf(e) === "SUTRA.CRYPTO.KEK_INVALID",
  );
  const short: ResolveContext = { env: { KEK_A: "c2hvcnQ=" }, secretsDir: "/nonexistent" };
  await assert.rejects(loadKeyring(path, short), (e) => codeOf(e) === "SUTRA.CRYPTO.KEK_INVALID");
  await Deno.writeTextFile(path, "{}");
  await assert.rejects(
    loadKeyring(path, resolve),
    (e) => codeOf(e) === "SUTRA.CRYPTO.KEYRING_INVALID",
  );
});

Deno.test("the admin view of a sealed snapshot masks the sealed values without any key", async () => {
  const plan = await paymentPlan();
  const { state } = await parkedPayment(plan);
  const keyring = await loadKeyring(await keyringWith(["acme", "k1", "env:KEK_A"]), resolve);
  const sealed = await encodeAtRest(plan, state, { tenant: "acme", keyring });
  const decoded = await decodeAtRest(plan, maskSealed(sealed), { tenant: "acme" });
  assert.ok(decoded.state, JSON.stringify(decoded.diagnostics));
  const view = observedVariables(plan, decoded.state);
  assert.deepEqual(view.variables, { amount: "25", payload: "***", secret: "***" });
  assert.deepEqual(view.redacted, { payload: "pci", secret: "sensitive" });
});

Deno.test("a sealed snapshot that was not opened is refused, never read without its sealed variables", async () => {
  const plan = await paymentPlan();
  const { state } = await parkedPayment(plan);
  const keyring = await loadKeyring(await keyringWith(["acme", "k1", "env:KEK_A"]), resolve);
  const sealed = await encodeAtRest(plan, state, { tenant: "acme", keyring });
  const decoded = decodeSnapshot(plan, sealed);
  assert.equal(decoded.state, undefined);
  assert.equal(decoded.diagnostics?.[0].code, "SUTRA.RUNTIME.SNAPSHOT.INVALID");
  assert.match(decoded.diagnostics![0].message, /sutra\.enc\.var\.payload' is encrypted/);
});

Deno.test("rewrapping under a new KEK retires the old one; values sealed before still open", async () => {
  const plan = await paymentPlan();
  const { state } = await parkedPayment(plan);
  const path = await keyringWith(["acme", "k1", "env:KEK_A"], ["globex", "g1", "env:KEK_A"]);
  const sealed = await encodeAtRest(plan, state, {
    tenant: "acme",
    keyring: await loadKeyring(path, resolve),
  });
  const changed = await rewrapDataKeys(path, {
    kek: "env:KEK_B",
    from: "env:KEK_A",
    tenant: "acme",
    resolve,
  });
  assert.deepEqual(changed.map((e) => e.keyId), ["k1"]);
  assert.deepEqual((await readKeyringFile(path)).map((e) => e.kek), ["env:KEK_B", "env:KEK_A"]);
  await rewrapDataKeys(path, { kek: "env:KEK_B", resolve });
  // The old KEK is gone from the environment: the keyring still loads and opens the old value.
  const onlyB: ResolveContext = { env: { KEK_B }, secretsDir: "/nonexistent" };
  const keyring = await loadKeyring(path, onlyB);
  assert.equal(
    await openSnapshot(sealed, { tenant: "acme", keyring }),
    encodeSnapshotText(plan, state),
  );

  const before = await Deno.readTextFile(path);
  await assert.rejects(
    rewrapDataKeys(path, { kek: "env:KEK_A", resolve: onlyB }),
    (e) => codeOf(e) === "SUTRA.CRYPTO.KEK_INVALID",
  );
  assert.equal(await Deno.readTextFile(path), before, "a failed rewrap changes nothing");
});
