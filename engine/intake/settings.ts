/**
 * The configuration key intake reads.
 *
 * @module
 */
import { defineKey } from "../core/config.ts";

/** The engine-wide inbound payload cap; a channel's `payload-cap-bytes` overrides it. */
export const PAYLOAD_CAP_BYTES = defineKey({
  key: "sutra.inbound.payload-cap-bytes",
  type: "integer",
  default: 10_485_760,
  min: 0,
  description:
    "Largest inbound payload in bytes, checked before any codec runs (a channel's payload-cap-bytes overrides it).",
});
