/**
 * The codec SPI: how inbound bytes become a payload a process can read, and
 * how a reply value becomes bytes again. A codec module registers itself on
 * import (`urn:sutra:codec:<name>`); the engine decodes through this
 * interface and never names a concrete format.
 *
 * Every decode lands on one of three outcomes: `OK` (a payload, no errors),
 * `SOFT_ERRORS` (a usable payload plus structural issues the process may
 * route on) or `FATAL` (no payload at all).
 *
 * Schema-backed codecs a deployment package brings (`schemas/<folder>/`) are
 * built by a {@link SchemaKind}, which registers the same way.
 *
 * @module
 */
import type { Shape } from "../bpmn/shape.ts";
import type { Diagnostic, Severity } from "./diagnostic.ts";
import { Registry } from "./registry.ts";
import { errorMessage } from "./errors.ts";

/** The three outcomes of a decode. */
export type DecodeOutcome = "OK" | "SOFT_ERRORS" | "FATAL";

/** A scalar an issue can carry as its `value`. */
export type IssueValue = string | number | boolean | null;

/**
 * One finding about a payload. Every issue has the same five slots, whoever
 * produced it (a codec, a schema, a validator).
 */
export interface Issue {
  /** `SUTRA.<LAYER>.<REASON>`; extension codecs and rules use their own middle segment. */
  readonly code: string;
  readonly severity: Severity;
  /** JSON-Pointer-shaped path into the payload (`/amount/currency`); `""` is the whole payload. */
  readonly path: string;
  readonly message: string;
  /** The offending value, or the reason code a validator wants surfaced. */
  readonly value?: IssueValue;
  /** 1-based line in the wire bytes, for structural issues that have one. */
  readonly line?: number;
  /** 1-based column in the wire bytes, when known. */
  readonly column?: number;
}

/** A decode that produced a payload. */
export interface Decoded {
  /** `OK` when no issue is an ERROR, else `SOFT_ERRORS`. */
  readonly outcome: "OK" | "SOFT_ERRORS";
  /** The message type the codec recognised (a schema codec's root element, …). */
  readonly messageType?: string;
  /** The payload view: JSON-like data (records, lists, strings, numbers, booleans, null). */
  readonly payload: unknown;
  /** Every issue found, in document order. */
  readonly issues: readonly Issue[];
}

/** A decode that produced nothing usable. */
export interface DecodeFailure {
  readonly outcome: "FATAL";
  readonly messageType?: string;
  readonly payload?: undefined;
  /** At least one ERROR saying what and where. */
  readonly issues: readonly Issue[];
}

/** What {@link Codec.decode} resolves to. */
export type DecodeResult = Decoded | DecodeFailure;

/** Options for {@link Codec.encode}. */
export interface EncodeOptions {
  /** The message type to write (an XML root element, …). */
  readonly messageType?: string;
  /** The wire format wanted, when the codec speaks several. */
  readonly contentType?: string;
}

/** What {@link Codec.encode} resolves to. */
export type EncodeResult =
  | {
    readonly ok: true;
    readonly bytes: Uint8Array;
    /** The content type of `bytes`, with its charset when textual. */
    readonly contentType: string;
  }
  | { readonly ok: false; readonly issues: readonly Issue[] };

/** A channel-facing decoder/encoder. */
export interface Codec {
  /** The registry key: `urn:sutra:codec:<name>`, or a package codec's folded URN. */
  readonly name: string;
  /** Content types it accepts (`application/json`, …); a decode without one is accepted too. */
  readonly contentTypes: readonly string[];
  /** Decodes bytes. Never throws and never rejects. */
  decode(bytes: Uint8Array, contentType?: string): Promise<DecodeResult>;
  /** The closed set of message types it yields; empty when the set is open. */
  messageTypes(): readonly string[];
  /** The payload structure of one message type (or of any payload), for static FEEL path checks. */
  shapeOf(messageType?: string): Shape | undefined;
  /** Encodes a reply value. Never throws. */
  encode(value: unknown, options?: EncodeOptions): Promise<EncodeResult>;
}

/** Every globally named codec linked into the process. */
export const codecs: Registry<Codec> = new Registry("codec");

/** The global URN of a codec name: `json` → `urn:sutra:codec:json`. */
export function codecUrn(name: string): string {
  return `urn:sutra:codec:${name}`;
}

/** The optional slots of {@link issue}. */
export type IssueSlots = Omit<Partial<Issue>, "code" | "message">;

/** An issue: severity ERROR and path `""` unless given. */
export function issue(code: string, message: string, slots: IssueSlots = {}): Issue {
  const out: { -readonly [K in keyof Issue]: Issue[K] } = {
    code,
    severity: slots.severity ?? "ERROR",
    path: slots.path ?? "",
    message,
  };
  if (slots.value !== undefined) out.value = slots.value;
  if (slots.line !== undefined) out.line = slots.line;
  if (slots.column !== undefined) out.column = slots.column;
  return out;
}

/** The outcome a payload with these issues has. */
export function outcomeOf(issues: readonly Issue[]): "OK" | "SOFT_ERRORS" {
  return issues.some((i) => i.severity === "ERROR") ? "SOFT_ERRORS" : "OK";
}

/** A decode that produced `payload`, its outcome derived from `issues`. */
export function decoded(
  payload: unknown,
  issues: readonly Issue[] = [],
  messageType?: string,
): Decoded {
  const outcome = outcomeOf(issues);
  return messageType === undefined
    ? { outcome, payload, issues }
    : { outcome, messageType, payload, issues };
}

/** A FATAL decode. */
export function fatal(issues: Issue | readonly Issue[], messageType?: string): DecodeFailure {
  const list = Array.isArray(issues) ? issues : [issues as Issue];
  return messageType === undefined
    ? { outcome: "FATAL", issues: list }
    : { outcome: "FATAL", messageType, issues: list };
}

/**
 * Decodes through `codec` and guarantees the SPI contract whatever the codec
 * does: a throw, a rejection or a result that breaks the three-outcome rules
 * becomes a FATAL `SUTRA.PARSE.CODEC.FAILED` naming the codec.
 */
export async function decodeSafely(
  codec: Codec,
  bytes: Uint8Array,
  contentType?: string,
): Promise<DecodeResult> {
  let result: DecodeResult;
  try {
    result = await codec.decode(bytes, contentType);
  } catch (e) {
    return fatal(codecFailure(codec, errorMessage(e)));
  }
  const broken = contractBreach(result);
  return broken === undefined ? result : fatal(codecFailure(codec, broken));
}

function codecFailure(codec: Codec, reason: string): Issue {
  return issue("SUTRA.PARSE.CODEC.FAILED", `codec ${codec.name} failed: ${reason}`);
}

function contractBreach(r: DecodeResult | undefined): string | undefined {
  if (r === null || typeof r !== "object" || !Array.isArray(r.issues)) {
    return "its result has no issue list";
  }
  const errors = r.issues.some((i) => i.severity === "ERROR");
  switch (r.outcome) {
    case "OK":
      return errors ? "it reported OK with ERROR issues" : undefined;
    case "SOFT_ERRORS":
      return errors ? undefined : "it reported SOFT_ERRORS without an ERROR issue";
    case "FATAL":
      return errors ? undefined : "it reported FATAL without an ERROR issue";
    default:
      return `'${String((r as { outcome: unknown }).outcome)}' is not an outcome`;
  }
}

/** A package's `schemas/<folder>/` handed to its {@link SchemaKind}. */
export interface SchemaFolder {
  /** Package-relative folder path (`schemas/hr/employee`). */
  readonly path: string;
  /** The codec's URN (`urn:hr:employee`, or `urn:sutra:codec:<folder>` for a bundle kind). */
  readonly urn: string;
  /** The parsed `codec-manifest.yaml`. */
  readonly manifest: Readonly<Record<string, unknown>>;
  /** Every other file of the folder, keyed by folder-relative path. */
  readonly files: ReadonlyMap<string, Uint8Array>;
}

/** What {@link SchemaKind.build} resolves to: a codec, or every deploy-time error. */
export type SchemaBuild =
  | { readonly codec: Codec; readonly diagnostics?: undefined }
  | { readonly codec?: undefined; readonly diagnostics: readonly Diagnostic[] };

/**
 * A `schemaKind:` a package's codec manifest may name. The generic kinds
 * (`xsd`, `json-schema`) validate against a folder of schema files; a bundle
 * kind interprets the folder as a whole profile (which schema backs which
 * wrapper) and is named in the `urn:sutra:codec:` namespace, shadowing a
 * global codec of the same name for its deployment only.
 */
export interface SchemaKind {
  /** The `schemaKind:` value. */
  readonly name: string;
  /** True for a profile kind: the codec URN is `urn:sutra:codec:<folder>`. */
  readonly bundle: boolean;
  /** Compiles the folder; every problem is reported, none thrown. */
  build(folder: SchemaFolder): Promise<SchemaBuild>;
}

/** Every schema kind linked into the process. */
export const schemaKinds: Registry<SchemaKind> = new Registry("schema kind");
