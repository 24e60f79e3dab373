/**
 * `env:NAME` — the value of an environment variable.
 *
 * @module
 */
import { type Diagnostic, diagnostic, DiagnosticError } from "../../engine/core/diagnostic.ts";
import type { ResolveContext, SecretResolver } from "../../engine/core/secrets.ts";
import { refusalHint } from "../../engine/core/permissions.ts";

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Resolves `env:NAME`; an unset variable is an error, never an empty string. */
export const envResolver: SecretResolver = {
  name: "env",
  resolve(reference: string, context: ResolveContext): Promise<string> {
    if (!NAME.test(reference)) {
      throw new DiagnosticError(
        diagnostic("SUTRA.SECRET.REFERENCE_INVALID", `'env:${reference}' is not a variable name`),
      );
    }
    const value = context.env[reference];
    if (value === undefined) {
      throw new DiagnosticError(unsetVariable(reference, `env:${reference}`));
    }
    return Promise.resolve(value);
  },
};

/**
 * Why a variable a `reference` names has no value: not set, or — in an
 * installed or compiled engine that reads only the variables it was built
 * for — not readable at all, which "not set" would hide.
 */
export function unsetVariable(name: string, reference: string): Diagnostic {
  if (Deno.permissions.querySync({ name: "env", variable: name }).state !== "granted") {
    const refusal = { permission: "env", target: name };
    return diagnostic(
      "SUTRA.ENGINE.PERMISSION_DENIED",
      `environment variable ${name} cannot be read: ${refusalHint(refusal)}`,
      { attributes: { ...refusal, reference } },
    );
  }
  return diagnostic("SUTRA.SECRET.UNRESOLVED", `environment variable ${name} is not set`, {
    attributes: { reference },
  });
}
