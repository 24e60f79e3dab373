/**
 * `${NAME}` and `${NAME:default}` placeholders anywhere in a value, filled
 * from the environment (`$${` writes a literal `${`).
 *
 * @module
 */
import { diagnostic, DiagnosticError } from "../../engine/core/diagnostic.ts";
import {
  PLACEHOLDER_SCHEME,
  type ResolveContext,
  type SecretResolver,
} from "../../engine/core/secrets.ts";
import { unsetVariable } from "./env_resolver.ts";

const PLACEHOLDER = /\$?\$\{([^}]*)\}/g;
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Expands every placeholder; an unset variable without a default is an error. */
export const placeholderResolver: SecretResolver = {
  name: PLACEHOLDER_SCHEME,
  resolve(value: string, context: ResolveContext): Promise<string> {
    const missing: string[] = [];
    const expanded = value.replace(PLACEHOLDER, (whole, body: string) => {
      if (whole.startsWith("$$")) return whole.slice(1);
      const colon = body.indexOf(":");
      const name = colon < 0 ? body : body.slice(0, colon);
      if (!NAME.test(name)) {
        throw new DiagnosticError(
          diagnostic("SUTRA.SECRET.REFERENCE_INVALID", `'\${${body}}' does not name a variable`),
        );
      }
      const found = context.env[name];
      if (found !== undefined) return found;
      if (colon >= 0) return body.slice(colon + 1);
      missing.push(name);
      return whole;
    });
    if (missing.length > 0) {
      throw new DiagnosticError(missing.map((name) => unsetVariable(name, `\${${name}}`)));
    }
    return Promise.resolve(expanded);
  },
};
