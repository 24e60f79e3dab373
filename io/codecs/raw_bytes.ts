/**
 * `urn:sutra:codec:raw-bytes`: any bytes at all. FEEL has no byte type, so
 * the payload is the bytes as base64 text; a reply is written from base64
 * text or a byte array.
 *
 * @module
 */
import {
  type Codec,
  codecUrn,
  decoded,
  type EncodeResult,
  issue,
} from "../../engine/core/codec.ts";

function toBase64(bytes: Uint8Array): string {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary);
}

function fromBase64(text: string): Uint8Array | undefined {
  try {
    return Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
  } catch {
    return undefined;
  }
}

/** The built-in raw-bytes codec. */
export const rawBytesCodec: Codec = {
  name: codecUrn("raw-bytes"),
  contentTypes: ["*/*"],
  decode: (bytes: Uint8Array) => Promise.resolve(decoded(toBase64(bytes))),
  messageTypes: () => [],
  shapeOf: () => ({ kind: "scalar", type: "string" }),
  encode(value: unknown): Promise<EncodeResult> {
    const bytes = value instanceof Uint8Array
      ? value
      : typeof value === "string"
      ? fromBase64(value)
      : undefined;
    if (bytes === undefined) {
      return Promise.resolve({
        ok: false,
        issues: [
          issue("SUTRA.ENCODE.UNWRITABLE", "raw bytes are written from base64 text or bytes"),
        ],
      });
    }
    return Promise.resolve({ ok: true, bytes, contentType: "application/octet-stream" });
  },
};
