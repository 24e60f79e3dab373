import assert from "node:assert/strict";
import { isCredentialKey } from "./secrets.ts";

Deno.test("credential-shaped option names are recognised in every spelling", () => {
  for (
    const key of [
      "password",
      "sasl-password",
      "secretAccessKey",
      "api_key",
      "apiKey",
      "token",
      "auth-token",
      "url-ref",
      "usernameRef",
      "client-secret",
      "private-key",
      "username",
      "credentials",
    ]
  ) {
    assert.equal(isCredentialKey(key), true, key);
  }
  for (
    const key of [
      "queue",
      "topic",
      "key",
      "routing-key",
      "keyspace",
      "passthrough",
      "tokens-per-second",
      "reference",
    ]
  ) {
    assert.equal(isCredentialKey(key), false, key);
  }
});
