/**
 * The secret-reference SPI. Credential-shaped settings hold a reference
 * (`env:NAME`, `secret:KEY`, `${NAME}`, `${NAME:default}`, or a vendor
 * scheme) rather than a literal; resolver modules register a scheme on import
 * and the engine resolves references without naming any of them.
 *
 * @module
 */
import { diagnostic, DiagnosticError } from "./diagnostic.ts";
import { Registry } from "./registry.ts";

/** What a resolver may consult. */
export interface ResolveContext {
  /** Environment variables. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Directory holding `secret:` files (`SUTRA_SECRETS_DIR`, default `/etc/sutra/secrets`). */
  readonly secretsDir: string;
}

/** One registered scheme. */
export interface SecretResolver {
  /**
   * The scheme it owns: `env` handles `env:NAME`; the placeholder resolver
   * registers {@link PLACEHOLDER_SCHEME} and handles `${…}` anywhere in a value.
   */
  readonly name: string;
  /** Resolves the part after `scheme:` (or, for placeholders, the whole value). */
  resolve(reference: string, context: ResolveContext): Promise<string>;
}

/** Name under which the `${…}` placeholder resolver registers. */
export const PLACEHOLDER_SCHEME = "${}";

/** Every linked resolver. */
export const secretResolvers: Registry<SecretResolver> = new Registry("secret resolver");

const SCHEME = /^([a-z][a-z0-9+.-]*):(.*)$/s;

/** The registered scheme a value references, if any (`postgres://…` is not a reference). */
export function referenceScheme(value: string): string | undefined {
  const m = SCHEME.exec(value);
  if (m && secretResolvers.has(m[1])) return m[1];
  if (value.includes("${") && secretResolvers.has(PLACEHOLDER_SCHEME)) return PLACEHOLDER_SCHEME;
  return undefined;
}

/** True when a value is a reference some registered resolver handles (lint rejects literals). */
export function isSecretReference(value: string): boolean {
  return referenceScheme(value) !== undefined;
}

/** The context from the process environment. */
export function defaultResolveContext(
  env: Readonly<Record<string, string | undefined>> = Deno.env.toObject(),
): ResolveContext {
  return { env, secretsDir: env["SUTRA_SECRETS_DIR"] ?? "/etc/sutra/secrets" };
}

/**
 * Resolves a value: a reference through its resolver, anything else
 * unchanged. Unresolvable references throw a DiagnosticError.
 */
export async function resolveReference(value: string, context: ResolveContext): Promise<string> {
  const scheme = referenceScheme(value);
  if (scheme === undefined) return value;
  const resolver = secretResolvers.get(scheme)!;
  const reference = scheme === PLACEHOLDER_SCHEME ? value : value.slice(scheme.length + 1);
  if (reference === "") {
    throw new DiagnosticError(
      diagnostic("SUTRA.SECRET.REFERENCE_INVALID", `'${value}' names nothing after '${scheme}:'`),
    );
  }
  return await resolver.resolve(reference, context);
}
