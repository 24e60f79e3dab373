/**
 * engine/intake: what happens to an inbound message between the transport
 * and the executor — the payload cap, the channel's codec, the consuming
 * source's validator chain, the `validation` summary and `q:onValidation`
 * (see `pipeline.ts`, which reads top to bottom).
 *
 * Importing this module registers the rules languages a `q:complexValidator`
 * may be written in: `.srl` and `.dmn`.
 *
 * ```ts
 * import { admitInbound, screenInbound } from "./mod.ts";
 *
 * const admission = await admitInbound(inbound, { channel, capBytes });
 * if (!admission.admitted) return refuse(admission.diagnostics);
 * // … route on admission.decoded.messageType, then:
 * const verdict = await screenInbound(admission, { source, clock });
 * ```
 *
 * @module
 */
import { complexValidatorKinds } from "../core/validator.ts";
import { dmnValidatorKind } from "./dmn_validator.ts";
import { srlValidatorKind } from "./srl_validator.ts";

for (const kind of [srlValidatorKind, dmnValidatorKind]) {
  if (!complexValidatorKinds.has(kind.name)) complexValidatorKinds.register(kind);
}

export {
  admitInbound,
  applyValidationMode,
  decodePayload,
  enforcePayloadCap,
  observeRedacted,
  payloadTooLarge,
  screenInbound,
} from "./pipeline.ts";
export type {
  Admission,
  AdmitOptions,
  Admitted,
  Inbound,
  IntakeChannel,
  IntakeSource,
  PayloadCaps,
  Screened,
  ScreenOptions,
  Verdict,
} from "./pipeline.ts";
export { summarizeValidation } from "./summary.ts";
export type { IssueView, ValidationSummary, ValidationTier } from "./summary.ts";
export { compileValidatorChain, EMPTY_CHAIN, runValidatorChain } from "./validator_chain.ts";
export type {
  ChainEntry,
  ChainResult,
  CompileChainOptions,
  ValidatorChain,
} from "./validator_chain.ts";
export { PAYLOAD_CAP_BYTES } from "./settings.ts";
export { dmnValidatorKind, srlValidatorKind };
