/**
 * The archive manifest: derived from the package, never authored. It lists
 * the labels, the contract the package needs and every file's path, size
 * and SHA-256, and is encoded canonically (sorted keys, no whitespace) so
 * one package always has one manifest — and one
 * `deploymentId = sha256(manifest bytes)`.
 *
 * @module
 */
import { type Diagnostic } from "../core/diagnostic.ts";
import { invalid } from "./_zip_read.ts";
import { comparePaths, type PackageFiles, sortedPaths, unsafePathReason } from "./files.ts";
import { LABEL_VALUE, type PackageDescriptor, type PackageLabels } from "./package_yaml.ts";

/** Where the manifest sits in an archive (the reserved `sutra/` folder). */
export const MANIFEST_PATH = "sutra/manifest.json";
/** The manifest format this build writes and reads. */
export const MANIFEST_VERSION = 1;
/** The file extension of a sealed archive. */
export const ARCHIVE_EXTENSION = ".sutra";

/** One file of the package. */
export interface ManifestFile {
  readonly path: string;
  readonly size: number;
  /** Lower-case hex SHA-256 of the bytes. */
  readonly sha256: string;
}

/** The manifest of a sealed archive. */
export interface PackageManifest {
  readonly manifestVersion: number;
  readonly labels: PackageLabels;
  readonly minContract: number;
  /** Sorted by path (UTF-8 byte order). */
  readonly files: readonly ManifestFile[];
}

/** Lower-case hex SHA-256 of `bytes`. */
export async function sha256Hex(bytes: Uint8Array): Promise<string> {
  const digest = new Uint8Array(
    await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>),
  );
  let hex = "";
  for (const b of digest) hex += b.toString(16).padStart(2, "0");
  return hex;
}

/** Derives the manifest of a package from its files and `package.yaml`. */
export async function buildManifest(
  files: PackageFiles,
  descriptor: PackageDescriptor,
): Promise<PackageManifest> {
  const entries: ManifestFile[] = [];
  for (const path of sortedPaths(files)) {
    const bytes = files.get(path)!;
    entries.push({ path, size: bytes.length, sha256: await sha256Hex(bytes) });
  }
  return {
    manifestVersion: MANIFEST_VERSION,
    labels: descriptor.labels,
    minContract: descriptor.minContract,
    files: entries,
  };
}

/** The canonical bytes of a manifest: JSON with sorted keys and no whitespace. */
export function encodeManifest(manifest: PackageManifest): Uint8Array {
  return new TextEncoder().encode(canonicalJson(manifest));
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const keys = Object.keys(value).sort(comparePaths);
    return `{${
      keys.map((k) =>
        `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`
      )
        .join(",")
    }}`;
  }
  return JSON.stringify(value);
}

/** The content address of a manifest: the hex SHA-256 of its canonical bytes. */
export function deploymentIdOf(manifestBytes: Uint8Array): Promise<string> {
  return sha256Hex(manifestBytes);
}

/** The stable slot key `tenant--module--version` a deployment replaces within. */
export function slotOf(labels: PackageLabels): string {
  return `${labels.tenant}--${labels.module}--${labels.version}`;
}

/** The file name an archive is written under: `<tenant>--<module>--<version>.sutra`. */
export function archiveFileName(labels: PackageLabels): string {
  return `${slotOf(labels)}${ARCHIVE_EXTENSION}`;
}

const HEX64 = /^[0-9a-f]{64}$/;

/**
 * Parses manifest bytes read out of an archive, accepting only a manifest
 * this build would have written: the known shape, canonical encoding,
 * sorted unique safe paths.
 */
export function parseManifest(bytes: Uint8Array, uri: string): {
  manifest?: PackageManifest;
  diagnostics: readonly Diagnostic[];
} {
  const refuse = (message: string) => ({
    diagnostics: [invalid(uri, "manifest", `${MANIFEST_PATH}: ${message}`, MANIFEST_PATH)],
  });
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
  } catch {
    return refuse("is not UTF-8 JSON");
  }
  const problem = manifestProblem(value);
  if (problem !== undefined) return refuse(problem);
  const manifest = value as PackageManifest;
  const canonical = encodeManifest(manifest);
  if (canonical.length !== bytes.length || canonical.some((b, i) => b !== bytes[i])) {
    return refuse("is not in canonical form (it was edited after sealing)");
  }
  return { manifest, diagnostics: [] };
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

function manifestProblem(v: unknown): string | undefined {
  if (!isRecord(v)) return "is not a JSON object";
  const keys = Object.keys(v).sort().join(",");
  if (keys !== "files,labels,manifestVersion,minContract") return `has the keys ${keys}`;
  if (v.manifestVersion !== MANIFEST_VERSION) {
    return `has manifestVersion ${
      JSON.stringify(v.manifestVersion)
    }; this build reads ${MANIFEST_VERSION}`;
  }
  if (!Number.isInteger(v.minContract) || (v.minContract as number) < 1) {
    return "has no valid minContract";
  }
  const labels = v.labels;
  if (!isRecord(labels) || Object.values(labels).some((l) => typeof l !== "string")) {
    return "has labels that are not a map of strings";
  }
  for (const key of ["tenant", "module", "version"]) {
    if (typeof labels[key] !== "string" || !LABEL_VALUE.test(labels[key] as string)) {
      return `has no valid '${key}' label`;
    }
  }
  if (!Array.isArray(v.files)) return "has no file list";
  let previous: string | undefined;
  for (const f of v.files) {
    if (!isRecord(f) || Object.keys(f).sort().join(",") !== "path,sha256,size") {
      return "has a file entry that is not {path, sha256, size}";
    }
    if (typeof f.path !== "string" || unsafePathReason(f.path) !== undefined) {
      return `lists an unsafe path ${JSON.stringify(f.path)}`;
    }
    if (!Number.isInteger(f.size) || (f.size as number) < 0) return `gives ${f.path} no valid size`;
    if (typeof f.sha256 !== "string" || !HEX64.test(f.sha256)) {
      return `gives ${f.path} no valid sha256`;
    }
    if (previous !== undefined && comparePaths(previous, f.path) >= 0) {
      return `lists ${f.path} out of order or twice`;
    }
    previous = f.path;
  }
  return undefined;
}
