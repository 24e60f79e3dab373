/**
 * The identity provider's signing keys (a JWKS document), read from a URL or
 * a file, kept in memory, and read again only when a token names a key the
 * cached set does not hold — that is how a provider's key rotation reaches a
 * running engine. Re-reads are rate limited so a stream of tokens with
 * invented `kid`s cannot turn the engine into a load generator against the
 * provider. A failed read keeps the keys already held; with none held, every
 * token is refused (fail closed).
 *
 * @module
 */
import type { Clock, Logger } from "../../core/mod.ts";
import {
  importJwk,
  jwkAlgorithms,
  type KeyLookup,
  type TokenAlgorithm,
  TokenRejected,
} from "./jwt.ts";

/** Where the JWKS document lives: exactly one of the two. */
export type JwksSource = { readonly url: string } | { readonly file: string };

/** Options for {@link JwksCache}. */
export interface JwksCacheOptions {
  readonly source: JwksSource;
  /** Least time between two reads of the source. */
  readonly minRefetchMillis: number;
  readonly clock: Clock;
  readonly logger: Logger;
  /** How long one HTTP read may take (default 5 s). */
  readonly timeoutMillis?: number;
}

/** A JWKS larger than this is refused: providers publish a handful of keys. */
const MAX_JWKS_BYTES = 1_048_576;

type Jwk = Record<string, unknown>;

/** The cached key set; {@link JwksCache.lookup} is the verifier's {@link KeyLookup}. */
export class JwksCache {
  readonly #options: JwksCacheOptions;
  #keys: readonly Jwk[] | undefined;
  #lastRead = -Infinity;
  #reading: Promise<void> | undefined;
  readonly #imported = new WeakMap<Jwk, Map<TokenAlgorithm, CryptoKey>>();

  constructor(options: JwksCacheOptions) {
    this.#options = options;
  }

  /** Where the keys come from, for logs. */
  get describe(): string {
    const source = this.#options.source;
    return "url" in source ? source.url : source.file;
  }

  /** Finds (re-reading the source when allowed) the key for `kid` and `alg`. */
  readonly lookup: KeyLookup = async (kid, alg) => {
    let jwk = this.#keys && select(this.#keys, kid, alg);
    if (
      jwk === undefined &&
      this.#options.clock.now() - this.#lastRead >= this.#options.minRefetchMillis
    ) {
      await this.refresh();
      jwk = this.#keys && select(this.#keys, kid, alg);
    }
    if (this.#keys === undefined) throw new TokenRejected("signing keys unavailable");
    if (jwk === undefined) throw new TokenRejected("unknown key");
    return await this.#import(jwk, alg);
  };

  /** Reads the source now; concurrent callers share one read. Never throws. */
  refresh(): Promise<void> {
    this.#reading ??= this.#read().finally(() => this.#reading = undefined);
    return this.#reading;
  }

  async #read(): Promise<void> {
    this.#lastRead = this.#options.clock.now();
    try {
      const keys = parseJwks(await this.#fetchText());
      this.#keys = keys;
      this.#options.logger.info(`admin OIDC signing keys read from ${this.describe}`, {
        keys: keys.length,
      });
    } catch (e) {
      this.#options.logger.error(
        `admin OIDC signing keys could not be read from ${this.describe}: ${
          e instanceof Error ? e.message : String(e)
        }${this.#keys ? "; keeping the keys read before" : "; every bearer token is refused"}`,
      );
    }
  }

  async #fetchText(): Promise<string> {
    const source = this.#options.source;
    if ("file" in source) {
      const bytes = await Deno.readFile(source.file);
      if (bytes.length > MAX_JWKS_BYTES) throw new Error(`larger than ${MAX_JWKS_BYTES} bytes`);
      return new TextDecoder().decode(bytes);
    }
    const response = await fetch(source.url, {
      headers: { accept: "application/json" },
      signal: AbortSignal.timeout(this.#options.timeoutMillis ?? 5000),
    });
    if (!response.ok) {
      await response.body?.cancel();
      throw new Error(`HTTP ${response.status}`);
    }
    const text = await response.text();
    if (text.length > MAX_JWKS_BYTES) throw new Error(`larger than ${MAX_JWKS_BYTES} bytes`);
    return text;
  }

  async #import(jwk: Jwk, alg: TokenAlgorithm): Promise<CryptoKey> {
    let byAlg = this.#imported.get(jwk);
    if (byAlg === undefined) this.#imported.set(jwk, byAlg = new Map());
    let key = byAlg.get(alg);
    if (key === undefined) {
      try {
        key = await importJwk(jwk, alg);
      } catch {
        throw new TokenRejected("unknown key");
      }
      byAlg.set(alg, key);
    }
    return key;
  }
}

function parseJwks(text: string): readonly Jwk[] {
  const doc = JSON.parse(text) as unknown;
  const keys = (doc as { keys?: unknown } | null)?.keys;
  if (!Array.isArray(keys)) throw new Error("not a JWKS document (no keys array)");
  return keys.filter((k): k is Jwk => typeof k === "object" && k !== null && !Array.isArray(k));
}

/**
 * The one key a token may be verified with: the JWK with its `kid` that
 * allows `alg`; without a `kid`, the only key in the set that allows `alg`.
 */
function select(
  keys: readonly Jwk[],
  kid: string | undefined,
  alg: TokenAlgorithm,
): Jwk | undefined {
  const usable = keys.filter((k) => jwkAlgorithms(k).includes(alg));
  if (kid !== undefined) return usable.find((k) => k.kid === kid);
  return usable.length === 1 ? usable[0] : undefined;
}
