/**
 * Writing a file so that a reader sees it whole or not at all: the bytes go
 * to a dot-named `.tmp` file in the same directory (which every file
 * channel ignores), are flushed to disk, and the finished file is renamed
 * into place — a rename within one directory is atomic.
 *
 * @module
 */
import { join } from "node:path";
import { newId } from "../../../engine/core/ids.ts";

/** Writes `bytes` to `directory/name` atomically, replacing a file of that name. */
export async function writeAtomically(
  directory: string,
  name: string,
  bytes: Uint8Array,
): Promise<void> {
  const temp = join(directory, `.${name}.${newId()}.tmp`);
  const file = await Deno.open(temp, { write: true, createNew: true });
  try {
    let written = 0;
    while (written < bytes.length) written += await file.write(bytes.subarray(written));
    await file.sync();
  } finally {
    file.close();
  }
  try {
    await Deno.rename(temp, join(directory, name));
  } catch (error) {
    await Deno.remove(temp).catch(() => {});
    throw error;
  }
  await syncDirectory(directory);
}

/** Flushes a directory's entries, so a rename survives a power loss. */
async function syncDirectory(directory: string): Promise<void> {
  let dir: Deno.FsFile | undefined;
  try {
    dir = await Deno.open(directory, { read: true });
    await dir.sync();
  } catch {
    // Some platforms cannot open a directory for syncing; the rename itself is still atomic.
  } finally {
    dir?.close();
  }
}
