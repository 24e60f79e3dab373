/**
 * The intake stage every transport hands its messages to. Read top to
 * bottom, a message goes through:
 *
 * 1. {@link enforcePayloadCap} — the byte length against the channel's cap,
 *    before anything is parsed;
 * 2. {@link decodePayload} — the channel's codec: OK, SOFT_ERRORS or FATAL;
 *
 * then, once routing has found the consuming `q:source`,
 *
 * 3. {@link runValidatorChain} — the source's `q:validators`, in order;
 * 4. {@link summarizeValidation} — the `validation` summary;
 * 5. {@link observeRedacted} — the copy audit and logs may show;
 * 6. {@link applyValidationMode} — `q:onValidation`: route, reject or error.
 *
 * {@link admitInbound} runs 1–2 and {@link screenInbound} runs 3–6.
 *
 * @module
 */
import type { QOnValidation } from "../bpmn/q_model.ts";
import type { Clock } from "../core/clock.ts";
import { type Codec, type Decoded, decodeSafely, type Issue } from "../core/codec.ts";
import { type Diagnostic, diagnostic } from "../core/diagnostic.ts";
import { redact, type Redaction, type Redactor } from "../core/redactor.ts";
import type { Registry } from "../core/registry.ts";
import { summarizeValidation, type ValidationSummary } from "./summary.ts";
import { runValidatorChain, type ValidatorChain } from "./validator_chain.ts";

/** A message as a transport hands it over. */
export interface Inbound {
  /** The channel it arrived on. */
  readonly channel: string;
  readonly body: Uint8Array;
  readonly contentType?: string;
  /** Transport headers by lower-case name. */
  readonly headers?: Readonly<Record<string, string>>;
}

/** What intake needs of the channel. */
export interface IntakeChannel {
  /** The channel's codec, resolved when the deployment was activated. */
  readonly codec: Codec;
  /** The channel's own `payload-cap-bytes`; it overrides the engine-wide cap either way. */
  readonly payloadCapBytes?: number;
}

/** Options for {@link admitInbound}. */
export interface AdmitOptions {
  /** The channel the message arrived on. */
  readonly channel: IntakeChannel;
  /** The engine-wide cap (`sutra.inbound.payload-cap-bytes`). */
  readonly capBytes: number;
}

/** A message its codec decoded. */
export interface Admitted {
  readonly inbound: Inbound;
  readonly decoded: Decoded;
}

/** A decoded message, or why it was refused. */
export type Admission =
  | Admitted & { readonly admitted: true }
  | { readonly admitted: false; readonly diagnostics: readonly Diagnostic[] };

/** Stage 1: a diagnostic when the body is larger than the effective cap. */
export function enforcePayloadCap(inbound: Inbound, options: AdmitOptions): Diagnostic | undefined {
  return payloadTooLarge(inbound.channel, inbound.body.byteLength, {
    channelCapBytes: options.channel.payloadCapBytes,
    capBytes: options.capBytes,
  });
}

/** The caps a channel's payloads are held to. */
export interface PayloadCaps {
  /** The channel's own `payload-cap-bytes`; it overrides the engine-wide cap either way. */
  readonly channelCapBytes?: number;
  /** The engine-wide cap (`sutra.inbound.payload-cap-bytes`). */
  readonly capBytes: number;
}

/**
 * The refusal for `size` bytes on `channel` when they pass the effective cap,
 * else undefined. A transport that stops reading a body at the cap passes
 * `partial`: the payload is at least `size` bytes.
 */
export function payloadTooLarge(
  channel: string,
  size: number,
  caps: PayloadCaps,
  partial = false,
): Diagnostic | undefined {
  const cap = caps.channelCapBytes ?? caps.capBytes;
  if (size <= cap) return undefined;
  return diagnostic(
    "SUTRA.INBOUND.PAYLOAD_TOO_LARGE",
    `a ${partial ? "payload of more than " : ""}${size}${
      partial ? " bytes" : "-byte payload"
    } on channel '${channel}' exceeds the ${cap}-byte cap (${
      caps.channelCapBytes === undefined
        ? "sutra.inbound.payload-cap-bytes"
        : "the channel's payload-cap-bytes"
    })`,
    { attributes: { channel, size, cap } },
  );
}

/** One issue as a diagnostic about an inbound on `channel`. */
function issueDiagnostic(i: Issue, channel: string): Diagnostic {
  const attributes: Record<string, string | number | boolean> = { channel, path: i.path };
  if (i.value !== undefined && i.value !== null) attributes.value = i.value;
  if (i.line !== undefined) attributes.line = i.line;
  if (i.column !== undefined) attributes.column = i.column;
  // A validator's reason code is the package author's own vocabulary, passed
  // on as written; only engine-made diagnostics must be SUTRA-shaped.
  return { code: i.code, severity: i.severity, message: i.message, attributes };
}

/** Stage 2: the codec's verdict; a FATAL decode is refused with its issues. */
export async function decodePayload(inbound: Inbound, channel: IntakeChannel): Promise<Admission> {
  const result = await decodeSafely(channel.codec, inbound.body, inbound.contentType);
  if (result.outcome !== "FATAL") return { admitted: true, inbound, decoded: result };
  return {
    admitted: false,
    diagnostics: result.issues.map((i) => issueDiagnostic(i, inbound.channel)),
  };
}

/** Stages 1–2: cap, then decode. */
export async function admitInbound(inbound: Inbound, options: AdmitOptions): Promise<Admission> {
  const tooLarge = enforcePayloadCap(inbound, options);
  if (tooLarge) return { admitted: false, diagnostics: [tooLarge] };
  return await decodePayload(inbound, options.channel);
}

/** What intake needs of the consuming `q:source`. */
export interface IntakeSource {
  /** The variable the payload is bound to. */
  readonly variable: string;
  /** Its compiled `q:validators`. */
  readonly chain: ValidatorChain;
  /** Its node's `q:onValidation`; absent means route. */
  readonly onValidation?: Pick<QOnValidation, "mode" | "errorCode">;
  /** Its `q:redactors`. */
  readonly redactors: readonly string[];
  readonly dataClass?: string;
}

/** Options for {@link screenInbound}. */
export interface ScreenOptions {
  /** The consuming `q:source`. */
  readonly source: IntakeSource;
  /** The engine clock validators read "now" from. */
  readonly clock: Clock;
  /** Where redactors are looked up (defaults to the process-wide registry). */
  readonly redactors?: Registry<Redactor>;
}

/** What becomes of a decoded message at its consuming node. */
export type Verdict =
  | {
    /** Start or resume with these variables. */
    readonly kind: "accept";
    readonly variables: Readonly<Record<string, unknown>>;
    readonly validation: ValidationSummary;
    readonly observed: Redaction;
  }
  | {
    /** Start or resume, then raise the BPMN error `errorCode` at the node. */
    readonly kind: "error";
    readonly errorCode: string;
    readonly variables: Readonly<Record<string, unknown>>;
    readonly validation: ValidationSummary;
    readonly observed: Redaction;
  }
  | {
    /** Refuse the message. */
    readonly kind: "reject";
    readonly diagnostics: readonly Diagnostic[];
    readonly validation: ValidationSummary;
  };

/** Stage 5: the payload as every observability surface may show it. */
export function observeRedacted(decoded: Decoded, options: ScreenOptions): Redaction {
  return redact(decoded.payload, options.source.redactors, {
    messageType: decoded.messageType,
    dataClass: options.source.dataClass,
    registry: options.redactors,
  });
}

/** What stage 6 decides on. */
export interface Screened {
  readonly source: IntakeSource;
  readonly validation: ValidationSummary;
  readonly observed: Redaction;
}

/** Stage 6: `q:onValidation` applied to the summary. */
export function applyValidationMode(admitted: Admitted, screened: Screened): Verdict {
  const { inbound, decoded } = admitted;
  const { source, validation, observed } = screened;
  const variables = { [source.variable]: decoded.payload, validation };
  const mode = source.onValidation?.mode ?? "route";
  if (validation.outcome === "OK" || mode === "route") {
    return { kind: "accept", variables, validation, observed };
  }
  if (mode === "error") {
    const errorCode = source.onValidation?.errorCode ?? validation.firstReasonCode!;
    return { kind: "error", errorCode, variables, validation, observed };
  }
  const rejected = diagnostic(
    "SUTRA.INBOUND.VALIDATION_REJECTED",
    `the message on channel '${inbound.channel}' has ${validation.issues.length} validation issue(s), first ${validation.firstReasonCode}`,
    {
      attributes: {
        channel: inbound.channel,
        messageType: decoded.messageType ?? "",
        issues: validation.issues.length,
        firstReasonCode: validation.firstReasonCode!,
      },
    },
  );
  const issues = validation.issues.map((i) => issueDiagnostic(i, inbound.channel));
  return { kind: "reject", diagnostics: [rejected, ...issues], validation };
}

/** Stages 3–6 for the `q:source` routing chose. */
export async function screenInbound(admitted: Admitted, options: ScreenOptions): Promise<Verdict> {
  const { inbound, decoded } = admitted;
  const source = options.source;
  const content = await runValidatorChain(source.chain, {
    payload: decoded.payload,
    variable: source.variable,
    headers: inbound.headers ?? {},
    messageType: decoded.messageType,
    clock: options.clock,
  });
  const validation = summarizeValidation(decoded.issues, content);
  const observed = observeRedacted(decoded, options);
  return applyValidationMode(admitted, { source, validation, observed });
}
