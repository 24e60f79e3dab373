/**
 * `urn:sutra:codec:xml`: well-formed XML, the payload being the root
 * element's view (see `_xml_view.ts`: elements to contexts, repeated
 * elements to lists, attributes and text as keys, namespaces left out of
 * keys). Without a schema every value is text. A DOCTYPE is refused, so no
 * entity is ever expanded.
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
import {
  decodeText,
  mediaMatches,
  parseMediaType,
  type TextResult,
  unsupportedMediaType,
  utf8,
} from "./_text.ts";
import { parseXmlTree } from "./_xml_tree.ts";
import { viewXml } from "./_xml_view.ts";
import { writeXml } from "./_xml_write.ts";

/** Content types the XML format is recognised by. */
export const XML_TYPES: readonly string[] = ["application/xml", "text/xml", "+xml"];

const DECLARED_ENCODING = /^<\?xml[^>]*?encoding\s*=\s*["']([A-Za-z0-9._-]+)["']/;

/**
 * Decodes XML bytes: the content type's charset wins, then the byte-order
 * mark, then the XML declaration's `encoding`, then UTF-8.
 */
export function decodeXmlText(bytes: Uint8Array, charset?: string): TextResult {
  if (charset !== undefined) return decodeText(bytes, charset);
  if ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff)) {
    return decodeText(bytes);
  }
  // Only a document opening with an XML declaration can name its encoding; most do not.
  const start = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  if (bytes[start] !== 0x3c || bytes[start + 1] !== 0x3f) return decodeText(bytes);
  const head = latin1.decode(bytes.subarray(start, start + 120));
  const declared = DECLARED_ENCODING.exec(head)?.[1];
  return decodeText(bytes, declared?.toLowerCase());
}

// One byte, one character: the declaration is ASCII whatever encoding it names.
const latin1 = new TextDecoder("latin1");

/** The XML declaration of `text` rewritten to UTF-8 (what the text is handed on as). */
export function asUtf8Document(text: string): string {
  return text.replace(/^(<\?xml[^>]*?encoding\s*=\s*["'])[A-Za-z0-9._-]+(["'])/, "$1UTF-8$2");
}

/** The built-in XML codec. */
export const xmlCodec: Codec = {
  name: codecUrn("xml"),
  contentTypes: XML_TYPES,
  decode(bytes: Uint8Array, contentType?: string) {
    const media = parseMediaType(contentType);
    if (media && !mediaMatches(media, XML_TYPES)) {
      return Promise.resolve(fatal(unsupportedMediaType(xmlCodec.name, contentType!, XML_TYPES)));
    }
    const text = decodeXmlText(bytes, media?.charset);
    if (text.issue) return Promise.resolve(fatal(text.issue));
    const tree = parseXmlTree(text.text);
    if (tree.issue) return Promise.resolve(fatal(tree.issue));
    return Promise.resolve(decoded(viewXml(tree.root).payload));
  },
  messageTypes: () => [],
  shapeOf: () => undefined,
  encode(value: unknown, options = {}): Promise<EncodeResult> {
    const root = options.messageType;
    if (root === undefined) {
      return Promise.resolve({
        ok: false,
        issues: [
          issue(
            "SUTRA.ENCODE.MESSAGE_TYPE_MISSING",
            "an XML reply needs a message type to name its root element",
          ),
        ],
      });
    }
    const written = writeXml(root, value, { code: "SUTRA.ENCODE.UNWRITABLE" });
    if ("refused" in written) return Promise.resolve({ ok: false, issues: [written.refused] });
    if (written.issues.length > 0) return Promise.resolve({ ok: false, issues: written.issues });
    return Promise.resolve({
      ok: true,
      bytes: utf8(`<?xml version="1.0" encoding="UTF-8"?>\n${written.text}`),
      contentType: "application/xml",
    });
  },
};
