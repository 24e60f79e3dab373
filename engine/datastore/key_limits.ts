/**
 * What a data-store key must be before any store sees it: text a SQL
 * column can hold and compare, no longer than {@link MAX_STORE_KEY_BYTES}
 * bytes of UTF-8 (docs/limits.md).
 *
 * @module
 */
import { type Diagnostic, diagnostic } from "../core/diagnostic.ts";
import { keyProblem, MAX_STORE_KEY_BYTES, utf8Length } from "../core/input_limits.ts";

/** True when `key` can be stored: a key that cannot is never found either. */
export function storeKeyFits(key: string): boolean {
  return keyProblem(key, MAX_STORE_KEY_BYTES) === undefined;
}

/** The diagnostic refusing a write to `store` under `key`, or undefined when the key fits. */
export function storeKeyRefusal(store: string, key: string): Diagnostic | undefined {
  const problem = keyProblem(key, MAX_STORE_KEY_BYTES);
  if (problem === undefined) return undefined;
  const attributes = { store, maxBytes: MAX_STORE_KEY_BYTES };
  switch (problem) {
    case "nul":
      return diagnostic(
        "SUTRA.INPUT.STORE_KEY.NUL",
        `a key of data store '${store}' holds a NUL character, which no store column can hold`,
        { attributes },
      );
    case "ill-formed":
      return diagnostic(
        "SUTRA.INPUT.STORE_KEY.ILL_FORMED",
        `a key of data store '${store}' holds a lone surrogate, which is not text`,
        { attributes },
      );
    case "too-long":
      return diagnostic(
        "SUTRA.INPUT.STORE_KEY.TOO_LONG",
        `a key of data store '${store}' is ${
          utf8Length(key)
        } bytes of UTF-8; the limit is ${MAX_STORE_KEY_BYTES}`,
        { attributes: { ...attributes, bytes: utf8Length(key) } },
      );
  }
}
