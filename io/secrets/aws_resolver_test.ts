import assert from "node:assert/strict";
import { DiagnosticError } from "../../engine/core/diagnostic.ts";
import { type ResolveContext, resolveReference } from "../../engine/core/secrets.ts";
import { startAwsSecretsDouble } from "../../tests/support/aws_secrets.ts";
import "./mod.ts";

function context(env: Record<string, string>): ResolveContext {
  return { env: { ...env }, secretsDir: "/none" };
}

async function failure(promise: Promise<unknown>): Promise<DiagnosticError> {
  const error = await promise.then(() => undefined, (e) => e);
  assert.ok(error instanceof DiagnosticError, `expected a DiagnosticError, got ${error}`);
  return error;
}

const settings = (endpoint: string, ttl = "PT30S") => ({
  SUTRA_SECRETS_AWS_REGION: "us-east-1",
  SUTRA_SECRETS_AWS_ENDPOINT: endpoint,
  SUTRA_SECRETS_AWS_ACCESS_KEY_ID: "env:AKID",
  SUTRA_SECRETS_AWS_SECRET_ACCESS_KEY: "env:SAK",
  SUTRA_SECRETS_CACHE_TTL: ttl,
  AKID: "AKIDSUTRATEST",
  SAK: "not-a-real-key",
});

Deno.test("aws-secrets: the real SDK client reads a secret string and a JSON field", async () => {
  const aws = startAwsSecretsDouble("AKIDSUTRATEST");
  try {
    aws.put("prod/orders/db", JSON.stringify({ username: "orders", password: "hunter2" }));
    aws.put("prod/api-key", "k-123");
    const ctx = context(settings(aws.endpoint));
    assert.equal(await resolveReference("aws-secrets:prod/api-key", ctx), "k-123");
    assert.equal(await resolveReference("aws-secrets:prod/orders/db#password", ctx), "hunter2");
    const missing = await failure(resolveReference("aws-secrets:prod/none", ctx));
    assert.equal(missing.diagnostics[0].code, "SUTRA.SECRET.UNRESOLVED");
    assert.match(missing.diagnostics[0].message, /no secret 'prod\/none'/);
    const field = await failure(resolveReference("aws-secrets:prod/api-key#x", ctx));
    assert.match(field.diagnostics[0].message, /not a JSON object/);
  } finally {
    await aws.close();
  }
});

Deno.test("aws-secrets: explicit credentials only; a rotation is seen once the TTL passes", async () => {
  const aws = startAwsSecretsDouble("AKIDSUTRATEST");
  try {
    aws.put("rotating", "one");
    const unset = await failure(resolveReference(
      "aws-secrets:rotating",
      context({ SUTRA_SECRETS_AWS_REGION: "us-east-1", AWS_ACCESS_KEY_ID: "AKIDSUTRATEST" }),
    ));
    assert.match(
      unset.diagnostics[0].message,
      /access-key-id and secret-access-key must all be set/,
    );
    const wrong = await failure(resolveReference(
      "aws-secrets:rotating",
      context({ ...settings(aws.endpoint), AKID: "AKIDOTHER" }),
    ));
    assert.match(wrong.diagnostics[0].message, /UnrecognizedClientException/);
    const ctx = context(settings(aws.endpoint, "PT0.2S"));
    assert.equal(await resolveReference("aws-secrets:rotating", ctx), "one");
    aws.put("rotating", "two");
    assert.equal(await resolveReference("aws-secrets:rotating", ctx), "one");
    let value = "one";
    while (value === "one") {
      await new Promise((r) => setTimeout(r, 50));
      value = await resolveReference("aws-secrets:rotating", ctx);
    }
    assert.equal(value, "two");
  } finally {
    await aws.close();
  }
});
