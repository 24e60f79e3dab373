/**
 * Issue paths are JSON-Pointer-shaped into the payload; validators name
 * fields as FEEL paths from the payload variable (`payload.amount.currency`).
 *
 * @module
 */

const DOTTED = /^[\p{L}_][\p{L}\p{N}_]*(\.[\p{L}_][\p{L}\p{N}_]*)*$/u;

/**
 * `payload.amount.currency` → `/amount/currency` when the path starts at the
 * payload variable; any other text (another root, an index, a filter) is
 * kept as written.
 */
export function payloadPointer(path: string, variable: string): string {
  const trimmed = path.trim();
  if (!DOTTED.test(trimmed)) return path;
  const [root, ...rest] = trimmed.split(".");
  if (root !== variable) return path;
  return rest.map((s) => `/${s.replaceAll("~", "~0").replaceAll("/", "~1")}`).join("");
}
