/**
 * The outbound `file://<dir>` sink: each outbox row becomes one file in
 * `<dir>`, written atomically, named after the row's idempotency key — so
 * a row sent again replaces the same file instead of adding a second one.
 * Only the body is written; a reader that needs the CloudEvent attributes
 * gets them in the body with `mode="cloudevent-structured"`.
 *
 * @module
 */
import { resolve } from "node:path";
import { errorMessage } from "../../../engine/core/errors.ts";
import type { OutboundMessage, RemoteSink, SinkResult } from "../../../engine/core/transport.ts";
import { writeAtomically } from "./_atomic.ts";

/** The destination scheme. */
export const FILE_SCHEME = "file";

const EXTENSION: Readonly<Record<string, string>> = {
  "application/json": ".json",
  "application/cloudevents+json": ".json",
  "application/xml": ".xml",
  "text/xml": ".xml",
  "application/yaml": ".yaml",
  "text/csv": ".csv",
  "text/plain": ".txt",
};

/** The directory a `file://` destination names, or undefined when it names none. */
export function sinkDirectory(destination: string, cwd: string = Deno.cwd()): string | undefined {
  const match = /^file:\/\/(.+)$/.exec(destination.trim());
  if (!match) return undefined;
  let path = match[1];
  if (path.startsWith("localhost/")) path = path.slice("localhost".length);
  try {
    path = decodeURIComponent(path);
  } catch {
    return undefined;
  }
  return resolve(cwd, path);
}

// Well under the 255 bytes most filesystems allow in one name, extension included.
const MAX_STEM = 160;

/**
 * The file name of a row: its idempotency key made safe, with the content
 * type's extension. A long key keeps its head and gains a hash of the whole
 * key, so the name stays unique and short enough for any filesystem.
 */
export async function sinkFileName(
  message: Pick<OutboundMessage, "idempotencyKey" | "contentType">,
): Promise<string> {
  let stem = message.idempotencyKey.replace(/[^A-Za-z0-9_-]/g, "_");
  if (stem.length > MAX_STEM) {
    const key = new TextEncoder().encode(message.idempotencyKey);
    const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", key));
    const hash = [...digest].map((b) => b.toString(16).padStart(2, "0")).join("");
    stem = `${stem.slice(0, MAX_STEM - 65)}_${hash}`;
  }
  const media = message.contentType?.split(";")[0].trim().toLowerCase() ?? "";
  return `${stem}${EXTENSION[media] ?? ".bin"}`;
}

/** The `file` sink. */
export const fileSink: RemoteSink = {
  name: FILE_SCHEME,
  async send(message: OutboundMessage): Promise<SinkResult> {
    const directory = sinkDirectory(message.destination);
    if (!directory) {
      return { outcome: "poison", error: `not a file:// destination: ${message.destination}` };
    }
    try {
      await writeAtomically(directory, await sinkFileName(message), message.body);
      return { outcome: "delivered" };
    } catch (error) {
      // A missing or full directory may be fixed by an operator: the outbox backs off meanwhile.
      return { outcome: "retry", error: `${errorMessage(error)} (${directory})` };
    }
  },
};
