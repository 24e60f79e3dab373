import assert from "node:assert/strict";
import type { ChannelAuthSpec } from "../core/transport.ts";
import { authenticate } from "./channel_auth.ts";

// Literal references resolve to themselves here; resolution has its own tests.
const literal = { resolveSecret: (reference: string) => Promise.resolve(reference) };

function basicHeader(user: string, password: string): Headers {
  const token = new TextEncoder().encode(`${user}:${password}`).toBase64();
  return new Headers({ authorization: `Basic ${token}` });
}

Deno.test("basic credentials with non-ASCII characters match (base64 of their UTF-8 bytes)", async () => {
  const auth: ChannelAuthSpec = {
    scheme: "basic",
    basic: { username: "jörg", password: "pässwört-€-🔑" },
  };
  assert.equal(await authenticate(auth, basicHeader("jörg", "pässwört-€-🔑"), literal), undefined);
  const wrong = await authenticate(auth, basicHeader("jörg", "passwort-€-🔑"), literal);
  assert.equal(wrong?.code, "SUTRA.INBOUND.AUTH.INVALID");
});

Deno.test("basic credentials that are not base64 or not UTF-8 are refused, not thrown", async () => {
  const auth: ChannelAuthSpec = { scheme: "basic", basic: { username: "u", password: "p" } };
  for (const token of ["%%%", new Uint8Array([0x75, 0x3a, 0xff]).toBase64()]) {
    const answer = await authenticate(
      auth,
      new Headers({ authorization: `Basic ${token}` }),
      literal,
    );
    assert.equal(answer?.code, "SUTRA.INBOUND.AUTH.INVALID", token);
  }
});
