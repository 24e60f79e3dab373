/**
 * Helpers for the intake tests: inline codecs, sources and packages.
 *
 * @module
 */
import type { QValidator } from "../bpmn/q_model.ts";
import { type Codec, codecUrn, decoded, type DecodeResult } from "../core/codec.ts";
import { type Expression } from "../bpmn/model.ts";

/** A codec whose decode is `decode`, for driving the pipeline. */
export function stubCodec(decode: (bytes: Uint8Array) => DecodeResult): Codec {
  return {
    name: codecUrn("stub"),
    contentTypes: [],
    decode: (bytes) => Promise.resolve(decode(bytes)),
    messageTypes: () => [],
    shapeOf: () => undefined,
    encode: () => Promise.resolve({ ok: true, bytes: new Uint8Array(), contentType: "x/y" }),
  };
}

/** A codec decoding JSON without a schema. */
export const jsonStub: Codec = stubCodec((b) => decoded(JSON.parse(new TextDecoder().decode(b))));

/** Package files from inline text. */
export function packageFiles(files: Record<string, string>): Map<string, Uint8Array> {
  return new Map(Object.entries(files).map(([k, v]) => [k, new TextEncoder().encode(v)]));
}

function expression(text: string, line: number): Expression {
  return { text, line, column: 40, rawStart: 0, rawEnd: text.length, lead: 0 };
}

/** `q:complexValidator source=…` written on `line`. */
export function complex(source: string, line = 1): QValidator {
  return { kind: "complex", source, line, column: 5 };
}

/** `q:simpleValidator ref=… path=…` written on `line`. */
export function simple(ref: string, path: string, line = 1): QValidator {
  return { kind: "simple", ref, path: expression(path, line), line, column: 5 };
}
