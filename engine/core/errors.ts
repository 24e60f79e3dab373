/**
 * Turning whatever a `catch` caught into text for a diagnostic or a log line.
 *
 * @module
 */

/** The message of a thrown `Error`, or the text of anything else that was thrown. */
export function errorMessage(thrown: unknown): string {
  return thrown instanceof Error ? thrown.message : String(thrown);
}
