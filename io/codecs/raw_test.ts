import assert from "node:assert/strict";
import { rawBytesCodec } from "./raw_bytes.ts";
import { rawTextCodec } from "./raw_text.ts";

Deno.test("raw-text: the payload is the text, in the declared charset", async () => {
  const latin1 = new Uint8Array([0x63, 0x61, 0x66, 0xe9]);
  const r = await rawTextCodec.decode(latin1, "text/plain; charset=iso-8859-1");
  assert.deepEqual(r, { outcome: "OK", payload: "café", issues: [] });
  const bad = await rawTextCodec.decode(latin1);
  assert.equal(bad.outcome, "FATAL");
  assert.equal(bad.issues[0].code, "SUTRA.PARSE.TEXT.ENCODING");
  const back = await rawTextCodec.encode("café");
  assert.ok(back.ok);
  assert.deepEqual([...back.bytes], [0x63, 0x61, 0x66, 0xc3, 0xa9]);
  assert.ok(!(await rawTextCodec.encode(5)).ok);
});

Deno.test("raw-bytes: any bytes decode, as base64 text, and encode back", async () => {
  const bytes = new Uint8Array([0, 255, 128, 10]);
  const r = await rawBytesCodec.decode(bytes, "image/png");
  assert.deepEqual(r, { outcome: "OK", payload: "AP+ACg==", issues: [] });
  const back = await rawBytesCodec.encode(r.payload);
  assert.ok(back.ok);
  assert.deepEqual([...back.bytes], [...bytes]);
  assert.ok(!(await rawBytesCodec.encode("not base64!")).ok);
});
