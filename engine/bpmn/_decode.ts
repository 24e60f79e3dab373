/**
 * Bytes → text for XML documents: byte-order mark first, then the encoding
 * named by the XML declaration, UTF-8 otherwise (the XML default).
 *
 * @module
 */

/** The decoded text, or the reason it could not be decoded. */
export type DecodeResult =
  | { readonly ok: true; readonly text: string }
  | { readonly ok: false; readonly encoding: string; readonly reason: string };

const DECLARED = /^<\?xml[^>]*?\bencoding\s*=\s*["']([A-Za-z][A-Za-z0-9._-]*)["']/;

/** Decodes an XML document's bytes; never throws. */
export function decodeXml(bytes: Uint8Array): DecodeResult {
  let encoding = "utf-8";
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) encoding = "utf-8";
  else if (bytes[0] === 0xff && bytes[1] === 0xfe) encoding = "utf-16le";
  else if (bytes[0] === 0xfe && bytes[1] === 0xff) encoding = "utf-16be";
  else {
    // The declaration is ASCII in every encoding an XML file may declare here.
    const head = String.fromCharCode(...bytes.subarray(0, 200));
    const declared = DECLARED.exec(head);
    if (declared) encoding = declared[1].toLowerCase();
  }
  try {
    // TextDecoder strips a matching BOM by default.
    const text = new TextDecoder(encoding, { fatal: true }).decode(bytes);
    return { ok: true, text };
  } catch (error) {
    const reason = error instanceof RangeError
      ? `the encoding '${encoding}' is not supported`
      : `the bytes are not valid ${encoding}`;
    return { ok: false, encoding, reason };
  }
}
