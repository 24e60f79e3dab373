/**
 * Broker header values come typed (numbers, booleans, byte arrays, nested
 * tables); a delivery's headers are strings by lower-case name. This is the
 * one conversion every queue transport uses.
 *
 * @module
 */
import { inboundHeaderName } from "./cloudevents.ts";

const utf8 = new TextDecoder();

/** One header value as a string: bytes as UTF-8, tables and lists as JSON, absent as undefined. */
export function headerText(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === "string") return value;
  if (value instanceof Uint8Array) return utf8.decode(value);
  if (typeof value === "number" || typeof value === "boolean" || typeof value === "bigint") {
    return String(value);
  }
  if (value instanceof Date) return value.toISOString();
  return JSON.stringify(value);
}

/** Adds every entry of `source` to `into` as a delivery header (CloudEvents names normalised). */
export function addHeaders(
  into: Record<string, string>,
  source: Readonly<Record<string, unknown>> | undefined,
): Record<string, string> {
  for (const [name, value] of Object.entries(source ?? {})) {
    const text = headerText(value);
    if (text !== undefined) into[inboundHeaderName(name)] = text;
  }
  return into;
}
