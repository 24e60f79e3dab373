/**
 * `env:NAME` — the value of an environment variable.
 *
 * @module
 */
import { diagnostic, DiagnosticError } from "../../engine/core/diagnostic.ts";
import type { ResolveContext, SecretResolver } from "../../engine/core/secrets.ts";

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
      throw new DiagnosticError(
        diagnostic("SUTRA.SECRET.UNRESOLVED", `environment variable ${reference} is not set`, {
          attributes: { reference: `env:${reference}` },
        }),
      );
    }
    return Promise.resolve(value);
  },
};
