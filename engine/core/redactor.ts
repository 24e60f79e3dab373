/**
 * The redactor SPI. A redactor module registers on import and locates the
 * sensitive spans of a decoded payload (a JSON-Pointer-shaped path and a
 * reason); the engine masks them on every observability surface (audit,
 * logs, traces) while the process keeps the real value.
 *
 * Fail-closed: when a named redactor is missing, throws, or points at
 * nothing sensible, the whole payload is masked rather than risk a leak.
 *
 * @module
 */
import { type Diagnostic, diagnostic } from "./diagnostic.ts";
import { Registry } from "./registry.ts";
import { errorMessage } from "./errors.ts";

/** One sensitive span. */
export interface RedactionSpan {
  /** JSON-Pointer-shaped path into the payload (`/card/number`); `""` masks everything. */
  readonly path: string;
  /** Why it is sensitive (`pan`, `national-id`, …), kept beside the mask. */
  readonly reason: string;
}

/** What a redactor is told besides the payload. */
export interface RedactionContext {
  /** The decoded message type, when the codec recognised one. */
  readonly messageType?: string;
  /** The `dataClass` of the consuming `q:source`. */
  readonly dataClass?: string;
}

/** A registered content redactor (`q:redactor ref="…"`). */
export interface Redactor {
  readonly name: string;
  /** Every sensitive span of `payload`; may throw (that over-masks). */
  locate(payload: unknown, context: RedactionContext): readonly RedactionSpan[];
}

/** Every redactor linked into the process. */
export const redactors: Registry<Redactor> = new Registry("redactor");

/** The text a masked value is replaced with. */
export const MASK = "***";

/** Options for {@link redact}. */
export interface RedactOptions extends RedactionContext {
  /** Where to look redactors up (defaults to the process-wide registry). */
  readonly registry?: Registry<Redactor>;
}

/** The observable copy of a payload. */
export interface Redaction {
  /** The payload with every located span replaced by {@link MASK}. */
  readonly value: unknown;
  /** The spans that were masked. */
  readonly spans: readonly RedactionSpan[];
  /** Why everything was masked, when a redactor failed (warnings). */
  readonly diagnostics: readonly Diagnostic[];
}

/**
 * Runs the named redactors over `payload` and returns a masked copy; the
 * input is never modified. A missing redactor, a throw, or a span whose
 * path is malformed masks the whole payload.
 */
export function redact(
  payload: unknown,
  names: readonly string[],
  options: RedactOptions = {},
): Redaction {
  const registry = options.registry ?? redactors;
  const spans: RedactionSpan[] = [];
  for (const name of names) {
    const redactor = registry.get(name);
    if (redactor === undefined) return overMask(name, "it is not registered");
    let located: readonly RedactionSpan[];
    try {
      located = redactor.locate(payload, {
        messageType: options.messageType,
        dataClass: options.dataClass,
      });
    } catch (e) {
      return overMask(name, `it failed: ${errorMessage(e)}`);
    }
    for (const span of located) {
      if (pointerSegments(span.path) === undefined) {
        return overMask(name, `it returned the malformed path '${span.path}'`);
      }
      spans.push(span);
    }
  }
  let value = payload;
  for (const span of spans) value = maskAt(value, pointerSegments(span.path)!);
  return { value, spans, diagnostics: [] };
}

function overMask(name: string, why: string): Redaction {
  return {
    value: MASK,
    spans: [{ path: "", reason: "redactor-failed" }],
    diagnostics: [
      diagnostic(
        "SUTRA.REDACT.FAILED",
        `redactor '${name}' could not run (${why}); the whole payload is masked`,
        { severity: "WARNING", attributes: { redactor: name } },
      ),
    ],
  };
}

/** `/a/b~1c` → `["a", "b/c"]`; undefined when not a JSON Pointer. */
function pointerSegments(path: string): string[] | undefined {
  if (path === "") return [];
  if (!path.startsWith("/")) return undefined;
  const segments = path.slice(1).split("/");
  if (segments.some((s) => /~(?![01])/.test(s))) return undefined;
  return segments.map((s) => s.replaceAll("~1", "/").replaceAll("~0", "~"));
}

/** A copy of `value` with the node at `segments` masked; absent paths change nothing. */
function maskAt(value: unknown, segments: readonly string[]): unknown {
  if (segments.length === 0) return MASK;
  const [head, ...rest] = segments;
  if (Array.isArray(value)) {
    const index = /^(0|[1-9]\d*)$/.test(head) ? Number(head) : -1;
    if (index < 0 || index >= value.length) return value;
    const copy = [...value];
    copy[index] = maskAt(value[index], rest);
    return copy;
  }
  if (value !== null && typeof value === "object" && Object.hasOwn(value, head)) {
    const record = value as Record<string, unknown>;
    return { ...record, [head]: maskAt(record[head], rest) };
  }
  return value;
}
