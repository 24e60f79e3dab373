/**
 * `secret:KEY` — the content of the file KEY under the secrets directory
 * (`SUTRA_SECRETS_DIR`, default `/etc/sutra/secrets`), the shape a mounted
 * Kubernetes or Docker secret has. One trailing newline is dropped.
 *
 * @module
 */
import { diagnostic, DiagnosticError } from "../../engine/core/diagnostic.ts";
import type { ResolveContext, SecretResolver } from "../../engine/core/secrets.ts";

const KEY = /^[A-Za-z0-9._-]+(\/[A-Za-z0-9._-]+)*$/;

/** Resolves `secret:KEY`; keys never escape the secrets directory. */
export const fileResolver: SecretResolver = {
  name: "secret",
  async resolve(reference: string, context: ResolveContext): Promise<string> {
    if (!KEY.test(reference) || reference.split("/").some((s) => s === "." || s === "..")) {
      throw new DiagnosticError(
        diagnostic(
          "SUTRA.SECRET.REFERENCE_INVALID",
          `'secret:${reference}' is not a plain key inside the secrets directory`,
        ),
      );
    }
    const path = `${context.secretsDir.replace(/\/+$/, "")}/${reference}`;
    try {
      const text = await Deno.readTextFile(path);
      return text.endsWith("\r\n")
        ? text.slice(0, -2)
        : text.endsWith("\n")
        ? text.slice(0, -1)
        : text;
    } catch (error) {
      const why = error instanceof Deno.errors.NotFound ? "does not exist" : "cannot be read";
      throw new DiagnosticError(
        diagnostic("SUTRA.SECRET.UNRESOLVED", `secret file ${path} ${why}`, {
          attributes: { reference: `secret:${reference}` },
        }),
      );
    }
  },
};
