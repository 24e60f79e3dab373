/**
 * SASL PLAIN for the test broker: SaslHandshake v1 names the mechanism,
 * SaslAuthenticate v1 carries the client's `authzid NUL user NUL password`.
 * Until a connection has authenticated, the broker answers only
 * ApiVersions and these two; a refused login is answered with
 * SASL_AUTHENTICATION_FAILED and the connection is then dropped, as Kafka
 * does.
 *
 * @module
 */
import type { BrokerState, RequestHeader } from "./handlers.ts";
import { type Reader, Writer } from "./wire.ts";

/** UNSUPPORTED_SASL_MECHANISM. */
const UNSUPPORTED_SASL_MECHANISM = 33;
/** ILLEGAL_SASL_STATE. */
const ILLEGAL_SASL_STATE = 34;
/** SASL_AUTHENTICATION_FAILED. */
const SASL_AUTHENTICATION_FAILED = 58;

/** The API keys a connection may use before it has authenticated. */
export const BEFORE_LOGIN: ReadonlySet<number> = new Set([17, 18, 36]);

/** One connection's login state. */
export interface SaslConnection {
  /** True once the connection logged in (always, on a broker without SASL). */
  authenticated: boolean;
  /** The mechanism its handshake chose. */
  mechanism?: string;
  /** Set after an answer that must be the connection's last. */
  closeAfterReply: boolean;
}

/** SaslHandshake v1: PLAIN is the only mechanism served. */
export function saslHandshake(
  r: Reader,
  _s: BrokerState,
  _h: RequestHeader,
  c: SaslConnection,
): Uint8Array {
  const mechanism = r.string() ?? "";
  const ok = mechanism === "PLAIN";
  if (ok) c.mechanism = mechanism;
  else c.closeAfterReply = true;
  return new Writer()
    .int16(ok ? 0 : UNSUPPORTED_SASL_MECHANISM)
    .array(["PLAIN"], (w, m) => w.string(m))
    .bytes;
}

/** SaslAuthenticate v1: checks a PLAIN login against the broker's users. */
export function saslAuthenticate(
  r: Reader,
  s: BrokerState,
  _h: RequestHeader,
  c: SaslConnection,
): Uint8Array {
  const auth = new TextDecoder().decode(r.bytesField() ?? new Uint8Array());
  const [, username, password] = auth.split("\0");
  let code = 0;
  let message: string | null = null;
  if (c.mechanism !== "PLAIN") {
    code = ILLEGAL_SASL_STATE;
    message = "SaslAuthenticate before a SaslHandshake";
  } else if (username === undefined || s.users?.get(username) !== password) {
    code = SASL_AUTHENTICATION_FAILED;
    message = `Authentication failed: invalid credentials for user ${username ?? ""}`;
  }
  c.authenticated = code === 0;
  c.closeAfterReply = code !== 0;
  return new Writer()
    .int16(code)
    .string(message)
    .bytesField(new Uint8Array())
    .int64(0n)
    .bytes;
}
