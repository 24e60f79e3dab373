/**
 * Reads a package directory into a file set. Hidden entries (a name starting
 * with `.`: `.git`, `.gitkeep`, editor files) are not part of a package and
 * are skipped; symbolic links and special files are refused rather than
 * followed, so what gets sealed is exactly the tree on disk.
 *
 * @module
 */
import { type Diagnostic, diagnostic } from "../core/diagnostic.ts";
import {
  DEFAULT_LIMITS,
  type PackageFiles,
  type PackageLimits,
  unsafePathReason,
} from "./files.ts";
import { errorMessage } from "../core/errors.ts";

/** Options for {@link readPackageDir}. */
export interface ReadPackageDirOptions {
  /** Size ceilings (default {@link DEFAULT_LIMITS}). */
  readonly limits?: PackageLimits;
}

/** The files read, or every reason the directory is not a readable package. */
export interface ReadPackageDirResult {
  /** Present when nothing was refused. */
  readonly files?: PackageFiles;
  readonly diagnostics: readonly Diagnostic[];
}

/** Reads every regular, non-hidden file under `dir`. */
export async function readPackageDir(
  dir: string,
  options: ReadPackageDirOptions = {},
): Promise<ReadPackageDirResult> {
  const limits = options.limits ?? DEFAULT_LIMITS;
  const diagnostics: Diagnostic[] = [];
  try {
    const info = await Deno.stat(dir);
    if (!info.isDirectory) {
      return { diagnostics: [unreadable(dir, "it is not a directory")] };
    }
  } catch (error) {
    return { diagnostics: [unreadable(dir, errorMessage(error))] };
  }
  const paths: string[] = [];
  await walk(dir, "", paths, diagnostics);
  if (paths.length > limits.maxFiles) {
    diagnostics.push(tooLarge(
      dir,
      `the package has ${paths.length} files; at most ${limits.maxFiles} are allowed`,
      { files: paths.length, limit: limits.maxFiles },
    ));
  }
  const files = new Map<string, Uint8Array>();
  let total = 0;
  // Past a count or total ceiling, reading more only costs memory: the
  // package is refused either way.
  let over = paths.length > limits.maxFiles;
  for (const path of paths) {
    if (over) break;
    const full = `${dir}/${path}`;
    let size: number;
    try {
      size = (await Deno.lstat(full)).size;
    } catch (error) {
      diagnostics.push(unreadable(path, errorMessage(error)));
      continue;
    }
    if (size > limits.maxFileBytes) {
      diagnostics.push(tooLarge(
        path,
        `${path} is ${size} bytes; a package file may have at most ${limits.maxFileBytes}`,
        { size, limit: limits.maxFileBytes },
      ));
      continue;
    }
    total += size;
    if (total > limits.maxTotalBytes) {
      diagnostics.push(tooLarge(
        dir,
        `the package's files exceed ${limits.maxTotalBytes} bytes in total`,
        { limit: limits.maxTotalBytes },
      ));
      over = true;
      continue;
    }
    try {
      files.set(path, await Deno.readFile(full));
    } catch (error) {
      diagnostics.push(unreadable(path, errorMessage(error)));
    }
  }
  return diagnostics.length > 0 ? { diagnostics } : { files, diagnostics };
}

async function walk(
  root: string,
  rel: string,
  paths: string[],
  diagnostics: Diagnostic[],
): Promise<void> {
  const entries: Deno.DirEntry[] = [];
  try {
    for await (const e of Deno.readDir(rel ? `${root}/${rel}` : root)) entries.push(e);
  } catch (error) {
    diagnostics.push(unreadable(rel || root, errorMessage(error)));
    return;
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const e of entries) {
    if (e.name.startsWith(".")) continue;
    const path = rel ? `${rel}/${e.name}` : e.name;
    const unsafe = unsafePathReason(path);
    if (unsafe !== undefined) {
      diagnostics.push(entryInvalid(path, `${unsafe}; rename it`));
    } else if (e.isSymlink) {
      diagnostics.push(entryInvalid(
        path,
        `${path} is a symbolic link; a package holds regular files only (copy the target in)`,
      ));
    } else if (e.isDirectory) {
      await walk(root, path, paths, diagnostics);
    } else if (e.isFile) {
      paths.push(path);
    } else {
      diagnostics.push(entryInvalid(path, `${path} is not a regular file`));
    }
  }
}

function unreadable(uri: string, reason: string): Diagnostic {
  return diagnostic("SUTRA.CONFIG.PACKAGE.UNREADABLE", `cannot read ${uri}: ${reason}`, {
    source: { uri },
  });
}

function entryInvalid(uri: string, message: string): Diagnostic {
  return diagnostic("SUTRA.CONFIG.PACKAGE.ENTRY_INVALID", message, { source: { uri } });
}

function tooLarge(
  uri: string,
  message: string,
  attributes: Record<string, number>,
): Diagnostic {
  return diagnostic("SUTRA.CONFIG.PACKAGE.TOO_LARGE", message, { source: { uri }, attributes });
}
