/**
 * Trace context: which span is current, carried across `await` by an
 * `AsyncLocalStorage` context manager registered with the OpenTelemetry
 * API, and the W3C `traceparent` header that carries it across processes.
 *
 * An inbound message names its parent in a `traceparent` header (HTTP and
 * broker headers arrive lower-cased), or, as a CloudEvent, in the
 * distributed-tracing extension attribute, which the CloudEvents unwrapping
 * turns into `ce-traceparent`.
 *
 * @module
 */
import { AsyncLocalStorage } from "node:async_hooks";
import {
  type Context,
  context,
  type ContextManager,
  type SpanContext,
  trace,
  TraceFlags,
  type TraceState,
} from "@opentelemetry/api";

/**
 * An immutable context as a chain of single entries: setting a value
 * allocates one small object instead of copying a map, which matters with
 * a context per span.
 */
class ChainedContext implements Context {
  constructor(
    readonly parent: ChainedContext | undefined,
    readonly key: symbol | undefined,
    readonly value: unknown,
    /** The key is removed here (a deleteValue). */
    readonly removed = false,
  ) {}

  getValue(key: symbol): unknown {
    if (this.key === key) return this.removed ? undefined : this.value;
    return this.parent?.getValue(key);
  }

  setValue(key: symbol, value: unknown): Context {
    return new ChainedContext(this, key, value);
  }

  deleteValue(key: symbol): Context {
    return new ChainedContext(this, key, undefined, true);
  }
}

const EMPTY = new ChainedContext(undefined, undefined, undefined);

/** The context with nothing in it: a root for spans that continue no current one. */
export const EMPTY_CONTEXT: Context = EMPTY;

/** A context manager that follows async calls with `AsyncLocalStorage`. */
export class AsyncContextManager implements ContextManager {
  readonly #storage = new AsyncLocalStorage<Context>();

  /** The context of the running async call chain (an empty one outside any). */
  active(): Context {
    return this.#storage.getStore() ?? EMPTY;
  }

  /** Runs `fn` with `ctx` current. */
  with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(
    ctx: Context,
    fn: F,
    thisArg?: ThisParameterType<F>,
    ...args: A
  ): ReturnType<F> {
    return this.#storage.run(ctx, () => fn.call(thisArg, ...args));
  }

  /** Binds a function to `ctx`; anything else is returned as it is. */
  bind<T>(ctx: Context, target: T): T {
    if (typeof target !== "function") return target;
    // deno-lint-ignore no-explicit-any
    const fn = target as unknown as (...args: any[]) => unknown;
    const run = <R>(body: () => R): R => this.with(ctx, body);
    return function (this: unknown, ...args: unknown[]) {
      return run(() => fn.apply(this, args));
    } as unknown as T;
  }

  /** Nothing to switch on. */
  enable(): this {
    return this;
  }

  /** Nothing to switch off. */
  disable(): this {
    return this;
  }
}

/**
 * The engine's context manager. The engine's own code uses it directly:
 * going through the API's global lookup costs several times as much on
 * every span.
 */
export const contexts: AsyncContextManager = new AsyncContextManager();

let registered = false;

/**
 * Registers {@link contexts} with the OpenTelemetry API once per process,
 * so other code using the API sees the engine's spans. Another manager
 * registered first (a host's own SDK) is kept.
 */
export function registerContextManager(): void {
  if (registered) return;
  registered = true;
  context.setGlobalContextManager(contexts);
}

/**
 * A span context whose ids are known to be valid: made by the engine's
 * tracer or parsed from a `traceparent`. Checking one is a type test, where
 * the API's check runs two regular expressions on every span.
 */
export class CheckedSpanContext implements SpanContext {
  readonly isRemote?: boolean;

  constructor(
    readonly traceId: string,
    readonly spanId: string,
    readonly traceFlags: number,
    readonly traceState?: TraceState,
    remote = false,
  ) {
    if (remote) this.isRemote = true;
  }
}

/** The context of the span current in `ctx`, when it has valid ids. */
export function validSpanContext(ctx: Context): SpanContext | undefined {
  const span = trace.getSpanContext(ctx);
  if (span === undefined) return undefined;
  return span instanceof CheckedSpanContext || trace.isSpanContextValid(span) ? span : undefined;
}

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;
const ZERO_TRACE = "0".repeat(32);
const ZERO_SPAN = "0".repeat(16);

/**
 * Parses a W3C `traceparent` value; undefined when it is not one (an
 * unknown future version is read by its first four fields, as the
 * recommendation asks; version `ff` and all-zero ids are invalid).
 */
export function parseTraceparent(
  value: string | undefined,
  tracestate?: string,
): SpanContext | undefined {
  const match = value === undefined ? null : TRACEPARENT.exec(value.trim().toLowerCase());
  if (!match) return undefined;
  const [, version, traceId, spanId, flags, rest] = match;
  if (version === "ff" || (version === "00" && rest !== undefined)) return undefined;
  if (traceId === ZERO_TRACE || spanId === ZERO_SPAN) return undefined;
  return new CheckedSpanContext(
    traceId,
    spanId,
    parseInt(flags, 16) & TraceFlags.SAMPLED,
    tracestate ? parsedState(tracestate) : undefined,
    true,
  );
}

/** A minimal TraceState: the header value, carried through unchanged. */
function parsedState(raw: string): TraceState {
  const entries = raw.split(",").map((e) => e.trim()).filter((e) => e.includes("="));
  const state = {
    get: (key: string) => entries.find((e) => e.startsWith(`${key}=`))?.slice(key.length + 1),
    set: () => state,
    unset: () => state,
    serialize: () => entries.join(","),
  };
  return state;
}

/** The `traceparent` value naming `span` as the parent. */
export function formatTraceparent(span: SpanContext): string {
  const flags = (span.traceFlags & TraceFlags.SAMPLED).toString(16).padStart(2, "0");
  return `00-${span.traceId}-${span.spanId}-${flags}`;
}

/**
 * The remote parent an inbound message names: its `traceparent` header,
 * else a CloudEvent's `ce-traceparent` attribute; header names are matched
 * without regard to case.
 */
export function extractTraceContext(
  headers: Readonly<Record<string, string>> | undefined,
): SpanContext | undefined {
  if (!headers) return undefined;
  let parent: string | undefined;
  let state: string | undefined;
  let ceParent: string | undefined;
  let ceState: string | undefined;
  for (const name in headers) {
    // Only the four names' lengths (10, 11, 13, 14) are worth lower-casing: most headers are not.
    if (name.length < 10 || name.length > 14) continue;
    const value = headers[name];
    switch (name.toLowerCase()) {
      case "traceparent":
        parent = value;
        break;
      case "tracestate":
        state = value;
        break;
      case "ce-traceparent":
        ceParent = value;
        break;
      case "ce-tracestate":
        ceState = value;
        break;
    }
  }
  return parseTraceparent(parent, state) ?? parseTraceparent(ceParent, ceState);
}

/**
 * `headers` with `span` as their trace parent: `traceparent` (and
 * `tracestate`) set, any other spelling of them removed; a CloudEvent
 * attribute `ce-traceparent` the message already carried is replaced too.
 */
export function injectTraceContext(
  headers: Readonly<Record<string, string>>,
  span: SpanContext,
): Record<string, string> {
  const out: Record<string, string> = {};
  let cloudEvent = false;
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase();
    if (lower === "traceparent" || lower === "tracestate" || lower === "ce-tracestate") continue;
    if (lower === "ce-traceparent") cloudEvent = true;
    else out[name] = value;
  }
  const traceparent = formatTraceparent(span);
  out.traceparent = traceparent;
  const state = span.traceState?.serialize();
  if (state) out.tracestate = state;
  if (cloudEvent) out["ce-traceparent"] = traceparent;
  return out;
}
