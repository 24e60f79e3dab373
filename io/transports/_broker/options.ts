/**
 * Reading a queue channel's `options:` block (channels.yaml). Each
 * transport declares its keys; a wrong value is collected as a
 * `SUTRA.BROKER.OPTIONS_INVALID` diagnostic naming the channel and key,
 * and the channel is not consumed (the other channels are).
 *
 * @module
 */
import { type Diagnostic, diagnostic } from "../../../engine/core/diagnostic.ts";

/**
 * The option every queue transport reads the same way: `consume: false`
 * makes a channel send-only (a `q:send` destination): it is published to
 * but never consumed, so no replica holds a consumer, a connection or a
 * singleton lease for it. Default true.
 */
export const CONSUME_OPTION = "consume";

/** What every queue transport's parsed channel options hold. */
export interface BrokerChannelOptions {
  /** False for a send-only channel ({@link CONSUME_OPTION}). */
  readonly consume: boolean;
  /** A singleton channel's lease time-to-live, milliseconds. */
  readonly leaseTtlMs?: number;
}

/** Reads typed values out of one channel's options, collecting what is wrong. */
export class OptionReader {
  readonly #options: Readonly<Record<string, unknown>>;
  readonly #channel: string;
  /** Prepended to every key a problem names (`sasl.` inside a `sasl:` block). */
  readonly #prefix: string;
  /** Every problem found so far. */
  readonly problems: Diagnostic[];

  constructor(
    channel: string,
    options: Readonly<Record<string, unknown>> | undefined,
    within?: { readonly prefix: string; readonly problems: Diagnostic[] },
  ) {
    this.#channel = channel;
    this.#options = options ?? {};
    this.#prefix = within?.prefix ?? "";
    this.problems = within?.problems ?? [];
  }

  /** The value of `key` as written, unchecked. */
  raw(key: string): unknown {
    return this.#options[key];
  }

  /**
   * A nested block (`sasl:`), read by a reader whose problems are this
   * one's and name their keys `<key>.<inner>`; undefined when absent, or
   * (a problem) when it is not a mapping.
   */
  block(key: string): OptionReader | undefined {
    const value = this.#options[key];
    if (value === undefined) return undefined;
    if (value === null || typeof value !== "object" || Array.isArray(value)) {
      this.#bad(key, "a mapping of options");
      return undefined;
    }
    return new OptionReader(this.#channel, value as Record<string, unknown>, {
      prefix: `${this.#prefix}${key}.`,
      problems: this.problems,
    });
  }

  /** Reports `key` as wrong: it `why` (e.g. `must be one of a, b`). */
  invalid(key: string, why: string): void {
    this.problems.push(optionInvalid(this.#channel, `${this.#prefix}${key}`, why));
  }

  /** A string option; `required` makes its absence a problem. */
  string(key: string, fallback?: string): string | undefined {
    const value = this.#options[key];
    if (value === undefined) return fallback;
    if (typeof value === "string") return value;
    this.#bad(key, "a string");
    return fallback;
  }

  /** A string option that must be present. */
  required(key: string): string {
    const value = this.string(key);
    if (value === undefined || value === "") this.#bad(key, "present (a non-empty string)");
    return value ?? "";
  }

  /** A whole number in [min, max]. */
  integer(key: string, fallback: number, min = 0, max = Number.MAX_SAFE_INTEGER): number {
    const value = this.#options[key];
    if (value === undefined) return fallback;
    if (typeof value === "number" && Number.isInteger(value) && value >= min && value <= max) {
      return value;
    }
    this.#bad(key, `a whole number from ${min} to ${max}`);
    return fallback;
  }

  /** A boolean. */
  boolean(key: string, fallback: boolean): boolean {
    const value = this.#options[key];
    if (value === undefined) return fallback;
    if (typeof value === "boolean") return value;
    this.#bad(key, "true or false");
    return fallback;
  }

  /** Whether the channel is consumed ({@link CONSUME_OPTION}, default true). */
  consume(): boolean {
    return this.boolean(CONSUME_OPTION, true);
  }

  /** An ISO-8601 duration (`PT30S`), milliseconds. */
  duration(key: string, fallbackMs: number): number {
    const value = this.#options[key];
    if (value === undefined) return fallbackMs;
    if (typeof value === "string") {
      try {
        const ms = Temporal.Duration.from(value).total({ unit: "milliseconds" });
        if (ms > 0) return ms;
      } catch {
        // reported below
      }
    }
    this.#bad(key, "a positive ISO-8601 duration such as PT30S");
    return fallbackMs;
  }

  /** Flags every key not in `known` (a typo must not pass silently). */
  only(known: readonly string[]): void {
    for (const key of Object.keys(this.#options)) {
      if (!known.includes(key)) {
        const option = `${this.#prefix}${key}`;
        this.problems.push(diagnostic(
          "SUTRA.BROKER.OPTIONS_INVALID",
          `channel '${this.#channel}': unknown option '${option}' (known: ${known.join(", ")})`,
          { attributes: { channel: this.#channel, option } },
        ));
      }
    }
  }

  #bad(key: string, expected: string): void {
    this.invalid(key, `must be ${expected}`);
  }
}

/**
 * `SUTRA.BROKER.OPTIONS_INVALID` for option `option` of channel `channel`;
 * `why` completes the sentence (e.g. `must differ from the topic it serves`).
 */
export function optionInvalid(channel: string, option: string, why: string): Diagnostic {
  return diagnostic(
    "SUTRA.BROKER.OPTIONS_INVALID",
    `channel '${channel}': option '${option}' ${why}`,
    { attributes: { channel, option } },
  );
}
