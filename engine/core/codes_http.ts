/**
 * Diagnostic codes: HTTP listener limits and channel authentication (see docs/security.md).
 * Part of the catalogue in `codes.ts`.
 *
 * @module
 */

/** Code → one-line meaning; keep sorted. */
export const HTTP_CODES = {
  "SUTRA.HTTP.ACCEPT_FAILED":
    "Accepting a connection failed (out of file descriptors); the listener retries with backoff.",
  "SUTRA.HTTP.CHUNK_INVALID":
    "A chunked body breaks the framing, over-long chunk extensions included (400).",
  "SUTRA.HTTP.CONNECTION_LIMIT":
    "The listener holds sutra.http.max-connections connections; one more is answered 503 and closed.",
  "SUTRA.HTTP.HEADERS_TOO_LARGE":
    "The request line and headers are longer than sutra.http.max-header-bytes (431).",
  "SUTRA.HTTP.PATH_INVALID": "A path segment taken as an id holds a control character (400).",
  "SUTRA.HTTP.REQUEST_ABORTED":
    "The connection ended before the request body did (logged at debug, never an error).",
  "SUTRA.HTTP.REQUEST_TIMEOUT":
    "A request body did not arrive within sutra.http.body-timeout after the engine began reading it (408).",
} as const;
