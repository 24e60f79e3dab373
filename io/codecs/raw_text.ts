/**
 * `urn:sutra:codec:raw-text`: the payload is the text itself, whatever the
 * content type, decoded in its charset (UTF-8 by default).
 *
 * @module
 */
import {
  type Codec,
  codecUrn,
  decoded,
  type EncodeResult,
  fatal,
  issue,
} from "../../engine/core/codec.ts";
import { decodeText, parseMediaType, utf8 } from "./_text.ts";

/** The built-in raw-text codec. */
export const rawTextCodec: Codec = {
  name: codecUrn("raw-text"),
  contentTypes: ["*/*"],
  decode(bytes: Uint8Array, contentType?: string) {
    const text = decodeText(bytes, parseMediaType(contentType)?.charset);
    return Promise.resolve(text.issue ? fatal(text.issue) : decoded(text.text));
  },
  messageTypes: () => [],
  shapeOf: () => ({ kind: "scalar", type: "string" }),
  encode(value: unknown): Promise<EncodeResult> {
    if (typeof value !== "string") {
      return Promise.resolve({
        ok: false,
        issues: [
          issue(
            "SUTRA.ENCODE.UNWRITABLE",
            `raw text is written from a string, not a ${typeof value}`,
          ),
        ],
      });
    }
    return Promise.resolve({
      ok: true,
      bytes: utf8(value),
      contentType: "text/plain; charset=utf-8",
    });
  },
};
