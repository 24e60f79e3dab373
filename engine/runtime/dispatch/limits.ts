/**
 * Keys a message leads to, checked before anything is written: a
 * `q:alias` value must be text a SQL column can hold and index, at most
 * {@link MAX_ALIAS_VALUE_BYTES} bytes of UTF-8, and so must a data-store
 * key (`engine/datastore/key_limits.ts`). The message itself was well
 * formed, but the process derived a key that cannot be kept, so it is
 * refused as unprocessable (`rejected`, HTTP 422) with nothing written
 * rather than failing an instance (docs/limits.md).
 *
 * @module
 */
import { formatFeel } from "../../../lang/feel/mod.ts";
import { type Diagnostic, diagnostic } from "../../core/diagnostic.ts";
import { keyProblem, MAX_ALIAS_VALUE_BYTES, utf8Length } from "../../core/input_limits.ts";
import type { DeliveryOutcome } from "../../core/transport.ts";
import { storeKeyRefusal } from "../../datastore/key_limits.ts";
import type { Effects, InboundMessage } from "../../executor/mod.ts";
import type { Route } from "./channels.ts";

/** The diagnostic refusing alias `name` = `value`, or undefined when the value fits. */
export function aliasRefusal(name: string, value: string): Diagnostic | undefined {
  const problem = keyProblem(value, MAX_ALIAS_VALUE_BYTES);
  if (problem === undefined) return undefined;
  const attributes = { alias: name, maxBytes: MAX_ALIAS_VALUE_BYTES };
  switch (problem) {
    case "nul":
      return diagnostic(
        "SUTRA.INPUT.ALIAS.NUL",
        `the value of alias '${name}' holds a NUL character, which no alias can hold`,
        { attributes },
      );
    case "ill-formed":
      return diagnostic(
        "SUTRA.INPUT.ALIAS.ILL_FORMED",
        `the value of alias '${name}' holds a lone surrogate, which is not text`,
        { attributes },
      );
    case "too-long":
      return diagnostic(
        "SUTRA.INPUT.ALIAS.TOO_LONG",
        `the value of alias '${name}' is ${
          utf8Length(value)
        } bytes of UTF-8; the limit is ${MAX_ALIAS_VALUE_BYTES}`,
        { attributes: { ...attributes, bytes: utf8Length(value) } },
      );
  }
}

/**
 * The refusal of a step whose aliases or store writes carry a key that
 * cannot be kept, every such key named; undefined when all fit.
 */
export function effectsBeyondLimits(
  effects: Pick<Effects, "aliasesRecorded" | "storeWrites">,
): Extract<DeliveryOutcome, { kind: "refused" }> | undefined {
  const diagnostics = [
    ...effects.aliasesRecorded.map((a) => aliasRefusal(a.name, a.value)),
    ...effects.storeWrites.map((w) => storeKeyRefusal(w.store, w.key)),
  ].filter((d): d is Diagnostic => d !== undefined);
  return diagnostics.length === 0
    ? undefined
    : { kind: "refused", refusal: "rejected", diagnostics };
}

/**
 * The refusal of a relay whose correlation values cannot be aliases (so
 * no instance can hold them, and the lookup must not reach the database
 * with them); undefined when every value fits.
 */
export function relayBeyondLimits(
  routes: readonly Route[],
  message: InboundMessage,
): DeliveryOutcome | undefined {
  const diagnostics: Diagnostic[] = [];
  for (const route of routes) {
    for (const { name, value } of relayAliasValues(route, message)) {
      const refusal = aliasRefusal(name, value);
      if (refusal) diagnostics.push(refusal);
    }
  }
  return diagnostics.length === 0
    ? undefined
    : { kind: "refused", refusal: "rejected", diagnostics };
}

/**
 * The alias values a relay route's subscription reads from `message`, in
 * declaration order, as the aliases table holds them (text); an alias whose
 * expression fails or yields null has none. Lazy, so correlation evaluates
 * no further than the first alias that finds an instance.
 */
export function* relayAliasValues(
  route: Route,
  message: InboundMessage,
): Generator<{ readonly name: string; readonly value: string }> {
  const s = route.subscription;
  for (const alias of s.aliases) {
    const r = alias.expression.compiled.evaluate({
      [s.variable]: message.payload,
      header: message.headers ?? {},
    });
    if (r.diagnostics !== undefined || r.value === null) continue;
    yield { name: alias.name, value: typeof r.value === "string" ? r.value : formatFeel(r.value) };
  }
}
