/**
 * Literal secrets: every credential-shaped value in `channels.yaml` and
 * `datastores.yaml` must be a reference a linked resolver handles
 * (`env:NAME`, `secret:KEY`, `${NAME}`, a vendor scheme), never the secret
 * itself — an archive is copied, stored and listed, and a secret in it is a
 * secret leaked. Credential-shaped means the API key, basic and bearer
 * fields of `auth`, the `*-ref` store fields, any `options` key named like a
 * credential (password, secret, token, API key, private or access key,
 * username), and any URL in `options` that carries a password.
 *
 * @module
 */
import { type Diagnostic, diagnostic, type SourceLocation } from "../../core/diagnostic.ts";
import { isSecretReference } from "../../core/secrets.ts";
import type { YamlPath } from "../_yaml.ts";
import { formatPath } from "../_yaml_schema.ts";
import { CHANNELS_YAML, DATASTORES_YAML } from "../layout.ts";
import type { LintContext } from "./context.ts";

/** Runs the literal-secret checks. */
export function lintSecrets(ctx: LintContext): Diagnostic[] {
  const out: Diagnostic[] = [];
  const channels = ctx.pkg.channels;
  for (const c of channels.entries ?? []) {
    const at = (path: YamlPath) => channels.file!.locate(["channels", c.index, ...path]);
    const check = (path: YamlPath, value: string) =>
      mustReference(out, CHANNELS_YAML, ["channels", c.index, ...path], value, at(path));
    const auth = c.auth;
    if (auth?.scheme === "apikey") check(["auth", "apikey", "value"], auth.apikey.value);
    if (auth?.scheme === "basic") {
      check(["auth", "basic", "username"], auth.basic.username);
      check(["auth", "basic", "password"], auth.basic.password);
    }
    if (auth?.scheme === "bearer") check(["auth", "bearer", "token"], auth.bearer.token);
    if (c.options) walkOptions(c.options, ["options"], check);
  }
  const stores = ctx.pkg.stores;
  for (const s of stores.entries ?? []) {
    const fields: [string, string | undefined][] = [
      ["url-ref", s.sql.urlRef],
      ["username-ref", s.sql.usernameRef],
      ["password-ref", s.sql.passwordRef],
    ];
    for (const [field, value] of fields) {
      if (value === undefined) continue;
      const path = ["datastores", s.index, "sql", field];
      mustReference(out, DATASTORES_YAML, path, value, stores.file!.locate(path));
    }
  }
  return out;
}

const CREDENTIAL_WORDS = new Set([
  "password",
  "passwd",
  "passphrase",
  "secret",
  "token",
  "credential",
  "credentials",
  "apikey",
  "username",
  "user",
]);
const KEY_QUALIFIERS = new Set(["api", "private", "access", "secret", "signing", "client"]);

/** True for option names that hold a credential (`password`, `sasl-token`, `secretAccessKey`, `url-ref`). */
export function isCredentialKey(key: string): boolean {
  const words = key.replace(/([a-z0-9])([A-Z])/g, "$1 $2").toLowerCase().split(/[^a-z0-9]+/)
    .filter((w) => w !== "");
  const last = words[words.length - 1];
  if (last === undefined) return false;
  if (last === "ref" || CREDENTIAL_WORDS.has(last)) return true;
  return last === "key" && words.length > 1 && KEY_QUALIFIERS.has(words[words.length - 2]);
}

// `scheme://user:password@host`: a URL that carries its own password.
const URL_WITH_PASSWORD = /^[a-z][a-z0-9+.-]*:\/\/[^/@\s:]*:[^/@\s]+@/i;

function walkOptions(
  value: unknown,
  path: YamlPath,
  check: (path: YamlPath, value: string) => void,
): void {
  if (Array.isArray(value)) {
    value.forEach((v, k) => walkOptions(v, [...path, k], check));
  } else if (value !== null && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) {
      const scalar = typeof v === "string" || typeof v === "number" || typeof v === "boolean";
      if (scalar && isCredentialKey(k)) check([...path, k], String(v));
      else walkOptions(v, [...path, k], check);
    }
  } else if (typeof value === "string" && URL_WITH_PASSWORD.test(value)) {
    check(path, value);
  }
}

function mustReference(
  out: Diagnostic[],
  file: string,
  path: YamlPath,
  value: string,
  source: SourceLocation,
): void {
  if (isSecretReference(value)) return;
  out.push(diagnostic(
    "SUTRA.CONFIG.SECRET.LITERAL",
    `${file}: ${formatPath(path)} holds a literal value where a credential reference belongs; ` +
      "write env:NAME, secret:KEY or ${NAME} (or a vendor scheme this build links) and keep " +
      "the secret out of the archive",
    { source, attributes: { field: formatPath(path) } },
  ));
}
