/**
 * The file set of a package: relative POSIX paths to bytes, the one shape a
 * package has whether it was read from a directory or out of a sealed
 * archive. Path rules and size limits live here so both readers refuse the
 * same things.
 *
 * @module
 */

/** A package's files keyed by relative POSIX path (`bpmn/orders/checkout.bpmn`). */
export type PackageFiles = ReadonlyMap<string, Uint8Array>;

/** Size ceilings for reading a package directory or archive. */
export interface PackageLimits {
  /** Most files a package may hold. */
  readonly maxFiles: number;
  /** Largest single file, in bytes. */
  readonly maxFileBytes: number;
  /** Largest total of all file sizes, in bytes. */
  readonly maxTotalBytes: number;
  /** Largest archive, in bytes (compressed, as stored). */
  readonly maxArchiveBytes: number;
}

/** The limits used when a caller supplies none. */
export const DEFAULT_LIMITS: PackageLimits = {
  maxFiles: 10_000,
  maxFileBytes: 32 * 1024 * 1024,
  maxTotalBytes: 256 * 1024 * 1024,
  maxArchiveBytes: 64 * 1024 * 1024,
};

// Control characters and characters that mean something else on some file
// system (a backslash is a separator on Windows, a colon a drive or stream).
// deno-lint-ignore no-control-regex
const FORBIDDEN = /[\u0000-\u001f\u007f\\:*?"<>|]/;

/**
 * Why `path` is not a safe package path, or undefined when it is: relative,
 * `/`-separated, no empty, `.` or `..` segment, no control or
 * platform-special characters.
 */
export function unsafePathReason(path: string): string | undefined {
  if (path === "") return "the path is empty";
  if (path.startsWith("/")) return "the path is absolute";
  if (/^[A-Za-z]:/.test(path)) return "the path names a drive";
  const m = FORBIDDEN.exec(path);
  if (m) return `the path contains the character ${JSON.stringify(m[0])}`;
  for (const segment of path.split("/")) {
    if (segment === "") return "the path has an empty segment";
    if (segment === "." || segment === "..") return `the path has a '${segment}' segment`;
  }
  return undefined;
}

/** Byte order of the UTF-8 encodings, the one order archives and manifests use. */
export function comparePaths(a: string, b: string): number {
  const ea = ENCODER.encode(a);
  const eb = ENCODER.encode(b);
  const n = Math.min(ea.length, eb.length);
  for (let i = 0; i < n; i++) {
    if (ea[i] !== eb[i]) return ea[i] - eb[i];
  }
  return ea.length - eb.length;
}

const ENCODER = new TextEncoder();

/** The paths of a file set, sorted by {@link comparePaths}. */
export function sortedPaths(files: PackageFiles): string[] {
  return [...files.keys()].sort(comparePaths);
}
