import assert from "node:assert/strict";
import { DiagnosticError } from "../../engine/core/diagnostic.ts";
import {
  isSecretReference,
  type ResolveContext,
  resolveReference,
  secretResolvers,
} from "../../engine/core/secrets.ts";
import "./mod.ts";

function context(env: Record<string, string>, secretsDir = "/nonexistent"): ResolveContext {
  return { env, secretsDir };
}

async function failure(promise: Promise<unknown>): Promise<DiagnosticError> {
  const error = await promise.then(() => undefined, (e) => e);
  assert.ok(error instanceof DiagnosticError, `expected a DiagnosticError, got ${error}`);
  return error;
}

Deno.test("importing the module registers the built-in and vendor resolvers", () => {
  assert.deepEqual(secretResolvers.names(), ["${}", "aws-secrets", "env", "secret", "vault"]);
});

Deno.test("env: reads a variable and refuses an unset one", async () => {
  assert.equal(await resolveReference("env:DB_PASS", context({ DB_PASS: "s3cret" })), "s3cret");
  const e = await failure(resolveReference("env:NOPE", context({})));
  assert.equal(e.diagnostics[0].code, "SUTRA.SECRET.UNRESOLVED");
  assert.match(e.diagnostics[0].message, /NOPE/);
  const bad = await failure(resolveReference("env:not-a-name", context({})));
  assert.equal(bad.diagnostics[0].code, "SUTRA.SECRET.REFERENCE_INVALID");
});

Deno.test("secret: reads a file under SUTRA_SECRETS_DIR and stays inside it", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(`${dir}/db-password`, "hunter2\n");
    await Deno.mkdir(`${dir}/broker`);
    await Deno.writeTextFile(`${dir}/broker/token`, "t0k");
    assert.equal(await resolveReference("secret:db-password", context({}, dir)), "hunter2");
    assert.equal(await resolveReference("secret:broker/token", context({}, dir)), "t0k");
    const missing = await failure(resolveReference("secret:absent", context({}, dir)));
    assert.equal(missing.diagnostics[0].code, "SUTRA.SECRET.UNRESOLVED");
    for (const escape of ["secret:../etc/passwd", "secret:/etc/passwd", "secret:a/../../x"]) {
      const e = await failure(resolveReference(escape, context({}, dir)));
      assert.equal(e.diagnostics[0].code, "SUTRA.SECRET.REFERENCE_INVALID", escape);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("${NAME} and ${NAME:default} expand anywhere in a value", async () => {
  const ctx = context({ HOST: "db.internal", USER: "sutra" });
  assert.equal(
    await resolveReference("postgres://${USER}@${HOST}:${PORT:5432}/engine", ctx),
    "postgres://sutra@db.internal:5432/engine",
  );
  assert.equal(await resolveReference("${EMPTY:}", ctx), "");
  assert.equal(await resolveReference("cost: $${NOT_A_REF}", ctx), "cost: ${NOT_A_REF}");
  const e = await failure(resolveReference("${A}-${B}", ctx));
  assert.deepEqual(e.diagnostics.map((d) => d.message), [
    "environment variable A is not set",
    "environment variable B is not set",
  ]);
});

Deno.test("literals pass through; only registered schemes count as references", async () => {
  assert.equal(await resolveReference("postgres://h/db", context({})), "postgres://h/db");
  assert.equal(await resolveReference("plain", context({})), "plain");
  assert.ok(isSecretReference("env:X"));
  assert.ok(isSecretReference("secret:x"));
  assert.ok(isSecretReference("pre-${X}"));
  assert.ok(!isSecretReference("hunter2"));
  assert.ok(isSecretReference("vault:kv/db#password"));
  assert.ok(!isSecretReference("azure-kv:db"));
  const e = await failure(resolveReference("env:", context({})));
  assert.equal(e.diagnostics[0].code, "SUTRA.SECRET.REFERENCE_INVALID");
});

Deno.test("a variable this process may not read is reported as a permission, not as unset", async () => {
  const resolver = new URL("./env_resolver.ts", import.meta.url).href;
  const script = await Deno.makeTempFile({ suffix: ".ts" });
  try {
    await Deno.writeTextFile(
      script,
      `import { envResolver } from "${resolver}";
for (const name of ["SUTRA_HIDDEN", "SUTRA_ABSENT"]) {
  try {
    await envResolver.resolve(name, { env: {} } as never);
  } catch (e) {
    console.log(e.diagnostics[0].code, e.diagnostics[0].attributes?.target ?? "-");
  }
}`,
    );
    const run = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-q", "--no-prompt", "--allow-env=SUTRA_ABSENT", script],
      env: { SUTRA_HIDDEN: "set, but not readable" },
    }).output();
    assert.equal(
      new TextDecoder().decode(run.stdout),
      "SUTRA.ENGINE.PERMISSION_DENIED SUTRA_HIDDEN\nSUTRA.SECRET.UNRESOLVED -\n",
      new TextDecoder().decode(run.stderr),
    );
  } finally {
    await Deno.remove(script);
  }
});
