/**
 * A channel's `auth` (api key, bearer token, basic credentials) checked
 * against a request's headers: HTTP channels check their callers with it,
 * and the external-task routes check a pull channel's workers with it.
 * Credentials in `channels.yaml` are secret references, resolved through the
 * engine's resolvers on use.
 *
 * @module
 */
import { type Diagnostic, diagnostic } from "../core/diagnostic.ts";
import type { ChannelAuthSpec, TransportContext } from "../core/transport.ts";

// Compares in time independent of where the strings first differ.
function sameSecret(a: string, b: string): boolean {
  const x = new TextEncoder().encode(a);
  const y = new TextEncoder().encode(b);
  let diff = x.length ^ y.length;
  for (let i = 0; i < Math.max(x.length, y.length); i++) diff |= (x[i] ?? 0) ^ (y[i] ?? 0);
  return diff === 0;
}

function missing(what: string): Diagnostic {
  return diagnostic("SUTRA.INBOUND.AUTH.MISSING", `the request carries no ${what}`);
}

const strictUtf8 = new TextDecoder("utf-8", { fatal: true });

const invalid = () =>
  diagnostic("SUTRA.INBOUND.AUTH.INVALID", "the request's credential is not accepted");

/** The `WWW-Authenticate` challenge a refusal under `auth` carries. */
export function challenge(auth: ChannelAuthSpec | undefined): string {
  switch (auth?.scheme) {
    case "basic":
      return 'Basic realm="sutra", charset="UTF-8"';
    case "bearer":
      return "Bearer";
    default:
      return "ApiKey";
  }
}

/** Undefined when the request may pass, else why it may not. */
export async function authenticate(
  auth: ChannelAuthSpec | undefined,
  headers: Headers,
  context: Pick<TransportContext, "resolveSecret">,
): Promise<Diagnostic | undefined> {
  if (!auth || auth.scheme === "none") return undefined;
  if (auth.scheme === "apikey") {
    const given = headers.get(auth.apikey.header);
    if (given === null) return missing(`${auth.apikey.header} header`);
    return sameSecret(given, await context.resolveSecret(auth.apikey.value))
      ? undefined
      : invalid();
  }
  const header = headers.get("authorization");
  if (auth.scheme === "bearer") {
    if (!header?.startsWith("Bearer ")) return missing("bearer token");
    return sameSecret(header.slice(7), await context.resolveSecret(auth.bearer.token))
      ? undefined
      : invalid();
  }
  if (!header?.startsWith("Basic ")) return missing("basic credentials");
  // RFC 7617: the token is base64 of the UTF-8 bytes of `user:password`;
  // `atob` would yield one character per byte and never match a non-ASCII secret.
  let decoded: string;
  try {
    decoded = strictUtf8.decode(Uint8Array.fromBase64(header.slice(6).trim()));
  } catch {
    return invalid();
  }
  const expected = `${await context.resolveSecret(auth.basic.username)}:${await context
    .resolveSecret(auth.basic.password)}`;
  return sameSecret(decoded, expected) ? undefined : invalid();
}
