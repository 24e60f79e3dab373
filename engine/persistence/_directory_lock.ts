/**
 * An exclusive advisory lock on the embedded database directory, so a second
 * process cannot open the same PGlite files and corrupt them.
 *
 * The lock is an OS file lock on `sutra.lock`: the kernel drops it when the
 * holder exits, even by a crash, so a stale lock never needs cleaning up.
 *
 * @module
 */
import { join } from "node:path";

/** File inside the data directory that carries the lock. */
export const LOCK_FILE = "sutra.lock";

/** A held lock. */
export interface DirectoryLock {
  /** Releases the lock (the file stays, for the next holder). */
  release(): Promise<void>;
}

/**
 * Takes the lock without waiting; resolves to `undefined` when another
 * holder has it. The holder's pid is written into the file for operators.
 */
export async function lockDirectory(dir: string): Promise<DirectoryLock | undefined> {
  const file = await Deno.open(join(dir, LOCK_FILE), { read: true, write: true, create: true });
  try {
    if (!(await file.tryLock(true))) {
      file.close();
      return undefined;
    }
    await file.truncate(0);
    await file.write(new TextEncoder().encode(`${Deno.pid}\n`));
  } catch (error) {
    file.close();
    throw error;
  }
  let released = false;
  return {
    async release() {
      if (released) return;
      released = true;
      try {
        await file.unlock();
      } finally {
        file.close();
      }
    },
  };
}
