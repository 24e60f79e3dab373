/**
 * Claim folders under a file channel's `processing` folder. Each running
 * consumer owns one sub-folder, `processing/<owner>/`, for as long as it
 * holds an OS lock on the `.owner.lock` file inside it. The kernel drops the
 * lock when the process exits, even by SIGKILL, so a folder whose lock can
 * be taken belongs to nobody alive: its files are taken back and run again
 * (inbox deduplication answers the ones whose step had committed).
 *
 * @module
 */
import { join } from "node:path";
import { newId } from "../../../engine/core/ids.ts";

const LOCK = ".owner.lock";

/** A claim folder this consumer holds. */
export interface OwnerFolder {
  readonly path: string;
  /** Releases the folder (its files stay, for whoever takes them back). */
  release(): void;
}

async function tryLock(folder: string): Promise<Deno.FsFile | undefined> {
  const file = await Deno.open(join(folder, LOCK), { read: true, write: true, create: true });
  try {
    if (await file.tryLock(true)) return file;
  } catch (error) {
    file.close();
    throw error;
  }
  file.close();
  return undefined;
}

/** Creates and locks a fresh claim folder under `processing`. */
export async function openOwnerFolder(processing: string): Promise<OwnerFolder> {
  const path = join(processing, newId());
  await Deno.mkdir(path, { recursive: true });
  const lock = await tryLock(path);
  if (!lock) throw new Error(`cannot lock the new claim folder ${path}`);
  return {
    path,
    release() {
      lock.close();
    },
  };
}

/**
 * Moves the files of every claim folder nobody holds into `mine` and
 * removes the emptied folders; answers the names moved.
 */
export async function takeBackOrphans(processing: string, mine: OwnerFolder): Promise<string[]> {
  const taken: string[] = [];
  for await (const entry of Deno.readDir(processing)) {
    const folder = join(processing, entry.name);
    if (!entry.isDirectory || folder === mine.path) continue;
    const lock = await tryLock(folder).catch(() => undefined);
    if (!lock) continue;
    try {
      let left = false;
      for await (const file of Deno.readDir(folder)) {
        if (!file.isFile || file.name === LOCK) continue;
        const target = join(mine.path, file.name);
        if (await exists(target)) {
          left = true;
          continue;
        }
        await Deno.rename(join(folder, file.name), target);
        taken.push(file.name);
      }
      if (!left) await Deno.remove(folder, { recursive: true });
    } finally {
      lock.close();
    }
  }
  return taken;
}

/** True when something is at `path`. */
export async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
}
