/**
 * Sealed `.sutra` archives: a deterministic zip of the package's files plus
 * the derived manifest at `sutra/manifest.json`. Writing the same files
 * twice gives identical bytes; reading re-verifies everything fail-closed —
 * the zip structure, every file's size and digest against the manifest, no
 * file missing or extra, and the manifest's labels against the archive's
 * own `package.yaml`.
 *
 * @module
 */
import { type Diagnostic } from "../core/diagnostic.ts";
import { invalid, readZip } from "./_zip_read.ts";
import { writeZip } from "./_zip_write.ts";
import { comparePaths, DEFAULT_LIMITS, type PackageFiles, type PackageLimits } from "./files.ts";
import { PACKAGE_YAML } from "./layout.ts";
import {
  archiveFileName,
  buildManifest,
  deploymentIdOf,
  encodeManifest,
  MANIFEST_PATH,
  type PackageManifest,
  parseManifest,
  sha256Hex,
  slotOf,
} from "./manifest.ts";
import { type PackageDescriptor, readPackageYaml } from "./package_yaml.ts";
import { errorMessage } from "../core/errors.ts";

/** A sealed archive and what it contains. */
export interface SealedArchive {
  /** The archive bytes. */
  readonly bytes: Uint8Array;
  readonly manifest: PackageManifest;
  /** `sha256(canonical manifest)`, lower-case hex. */
  readonly deploymentId: string;
  /** `tenant--module--version`. */
  readonly slot: string;
  /** `<tenant>--<module>--<version>.sutra`. */
  readonly fileName: string;
  /** The package's files (without the manifest). */
  readonly files: PackageFiles;
}

/**
 * Seals files into an archive. It checks nothing about the package itself:
 * callers seal what `checkPackage` accepted (see `sealPackage`).
 */
export async function sealArchive(
  files: PackageFiles,
  descriptor: PackageDescriptor,
): Promise<SealedArchive> {
  if (files.has(MANIFEST_PATH)) {
    throw new Error(`a package file may not sit at the manifest path ${MANIFEST_PATH}`);
  }
  const manifest = await buildManifest(files, descriptor);
  const manifestBytes = encodeManifest(manifest);
  const entries = [...files.entries(), [MANIFEST_PATH, manifestBytes] as const]
    .sort((a, b) => comparePaths(a[0], b[0]))
    .map(([name, bytes]) => ({ name, bytes }));
  return {
    bytes: writeZip(entries),
    manifest,
    deploymentId: await deploymentIdOf(manifestBytes),
    slot: slotOf(descriptor.labels),
    fileName: archiveFileName(descriptor.labels),
    files,
  };
}

/** Options for {@link readArchive}. */
export interface ReadArchiveOptions {
  /** The archive's file name or URI, for diagnostics (default `archive.sutra`). */
  readonly uri?: string;
  /** Size ceilings (default {@link DEFAULT_LIMITS}). */
  readonly limits?: PackageLimits;
}

/** What {@link readArchive} returns: a verified archive, or every reason it was refused. */
export interface ReadArchiveResult {
  readonly archive?: SealedArchive;
  readonly diagnostics: readonly Diagnostic[];
}

/** Reads an archive and verifies it completely before returning anything. */
export async function readArchive(
  bytes: Uint8Array,
  options: ReadArchiveOptions = {},
): Promise<ReadArchiveResult> {
  const uri = options.uri ?? "archive.sutra";
  const zip = readZip(bytes, { uri, limits: options.limits ?? DEFAULT_LIMITS });
  if (!zip.entries) return { diagnostics: zip.diagnostics };
  const byName = new Map(zip.entries.map((e) => [e.name, e.bytes]));
  const manifestBytes = byName.get(MANIFEST_PATH);
  if (manifestBytes === undefined) {
    return {
      diagnostics: [invalid(uri, "manifest", `the archive has no ${MANIFEST_PATH}`, MANIFEST_PATH)],
    };
  }
  const parsed = parseManifest(manifestBytes, uri);
  if (!parsed.manifest) return { diagnostics: parsed.diagnostics };
  const manifest = parsed.manifest;

  const diagnostics: Diagnostic[] = [];
  const files = new Map<string, Uint8Array>();
  const listed = new Set<string>();
  for (const f of manifest.files) {
    listed.add(f.path);
    const content = byName.get(f.path);
    if (content === undefined) {
      diagnostics.push(
        invalid(uri, "missing", `${f.path} is in the manifest but not in the archive`, f.path),
      );
      continue;
    }
    if (content.length !== f.size || await sha256Hex(content) !== f.sha256) {
      diagnostics.push(invalid(
        uri,
        "digest",
        `${f.path} does not match its manifest digest: the file was changed after sealing`,
        f.path,
      ));
      continue;
    }
    files.set(f.path, content);
  }
  for (const e of zip.entries) {
    if (e.name === MANIFEST_PATH || listed.has(e.name)) continue;
    diagnostics.push(
      invalid(uri, "extra", `${e.name} is in the archive but not in its manifest`, e.name),
    );
  }
  if (diagnostics.length > 0) return { diagnostics };

  const descriptor = readPackageYaml(files.get(PACKAGE_YAML));
  if (!descriptor.descriptor || descriptor.diagnostics.length > 0) {
    // Point into the archive: `demo.sutra!package.yaml:3`.
    return {
      diagnostics: descriptor.diagnostics.map((d) =>
        d.source ? { ...d, source: { ...d.source, uri: `${uri}!${d.source.uri}` } } : d
      ),
    };
  }
  const expected = encodeManifest({ ...manifest, files: [] });
  const actual = encodeManifest({
    ...manifest,
    labels: descriptor.descriptor.labels,
    minContract: descriptor.descriptor.minContract,
    files: [],
  });
  if (expected.length !== actual.length || expected.some((b, i) => b !== actual[i])) {
    return {
      diagnostics: [invalid(
        uri,
        "manifest",
        `${MANIFEST_PATH}: its labels or minContract differ from the archive's ${PACKAGE_YAML}`,
        MANIFEST_PATH,
      )],
    };
  }
  return {
    diagnostics: [],
    archive: {
      bytes,
      manifest,
      deploymentId: await deploymentIdOf(manifestBytes),
      slot: slotOf(manifest.labels),
      fileName: archiveFileName(manifest.labels),
      files,
    },
  };
}

/**
 * Reads an archive file: its size is checked against the cap before a byte
 * is read, then {@link readArchive} verifies it. The path is the URI.
 */
export async function readArchiveFile(
  path: string,
  options: Omit<ReadArchiveOptions, "uri"> = {},
): Promise<ReadArchiveResult> {
  const limits = options.limits ?? DEFAULT_LIMITS;
  let bytes: Uint8Array;
  try {
    const size = (await Deno.stat(path)).size;
    if (size > limits.maxArchiveBytes) {
      return {
        diagnostics: [invalid(
          path,
          "oversize",
          `the archive is ${size} bytes; at most ${limits.maxArchiveBytes} are accepted`,
        )],
      };
    }
    bytes = await Deno.readFile(path);
  } catch (error) {
    return {
      diagnostics: [invalid(
        path,
        "unreadable",
        `cannot read the archive: ${errorMessage(error)}`,
      )],
    };
  }
  return await readArchive(bytes, { uri: path, limits });
}
