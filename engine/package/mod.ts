/**
 * engine/package: deployment packages. A package directory (or the file set
 * of an archive) is classified by the layout rules, its YAML declarations
 * read against their schemas, every artifact loaded, and the lint families
 * run over the whole; a clean package is sealed into a deterministic,
 * content-addressed `.sutra` archive, and reading an archive re-verifies it
 * fail-closed.
 *
 * ```ts
 * import { readArchive, readPackageDir, sealPackage, transportCatalog } from "./mod.ts";
 *
 * const dir = await readPackageDir("packages/orders-main");
 * if (!dir.files) throw new Error(dir.diagnostics[0].message);
 * const sealed = await sealPackage(dir.files, { transports: transportCatalog(["http"]) });
 * if (!sealed.archive) for (const d of sealed.diagnostics) console.error(d.code, d.message);
 * else {
 *   const read = await readArchive(sealed.archive.bytes, { uri: sealed.archive.fileName });
 *   console.log(read.archive?.deploymentId === sealed.archive.deploymentId); // true
 * }
 * ```
 *
 * @module
 */
export { DEFAULT_LIMITS, unsafePathReason } from "./files.ts";
export type { PackageFiles, PackageLimits } from "./files.ts";
export { readPackageDir } from "./read_dir.ts";
export type { ReadPackageDirOptions, ReadPackageDirResult } from "./read_dir.ts";
export {
  CHANNELS_YAML,
  classifyLayout,
  CODEC_MANIFEST,
  DATASTORES_YAML,
  PACKAGE_YAML,
  RESERVED_FOLDER,
} from "./layout.ts";
export type {
  Artifact,
  CodecFolder,
  CoverageArtifact,
  LayoutResult,
  MigrationScript,
  PackageLayout,
} from "./layout.ts";
export {
  LABEL_VALUE,
  LABEL_VALUE_HINT,
  PACKAGE_CONTRACT,
  PACKAGE_YAML_SCHEMA,
  readPackageYaml,
} from "./package_yaml.ts";
export type { PackageDescriptor, PackageLabels, PackageYamlResult } from "./package_yaml.ts";
export {
  CHANNELS_YAML_SCHEMA,
  CODEC_URN,
  DEFAULT_APIKEY_HEADER,
  readChannelsYaml,
  RESOURCE_NAME,
} from "./channels_yaml.ts";
export type { ChannelAuth, ChannelDecl, ChannelsYamlResult } from "./channels_yaml.ts";
export { COVERAGE_STORE, DATASTORES_YAML_SCHEMA, readDatastoresYaml } from "./datastores_yaml.ts";
export type {
  DataStoreDecl,
  DatastoresYamlResult,
  SqlStoreSettings,
  StoreDataClass,
  StoreStructure,
} from "./datastores_yaml.ts";
export { COVERAGE_YAML_SCHEMA, readCoverageYaml } from "./coverage_yaml.ts";
export type {
  CoverageCorrelation,
  CoverageFile,
  CoverageLink,
  CoverageRoute,
  CoverageYamlResult,
  NodeRef,
} from "./coverage_yaml.ts";
export type { Field, Spec } from "./_yaml_schema.ts";
export { CODEC_MANIFEST_SCHEMA, PackageCodecs } from "./codecs.ts";
export type { PackageCodec } from "./codecs.ts";
export { loadPackage } from "./load.ts";
export type {
  Declarations,
  LoadedBpmn,
  LoadedCoverage,
  LoadedPackage,
  LoadPackageResult,
} from "./load.ts";
export { allowedTransports, transportCatalog } from "./ports.ts";
export type { TransportCatalog } from "./ports.ts";
export { byLocation, checkPackage, lintPackage, sealPackage } from "./check.ts";
export type { CheckPackageOptions, CheckPackageResult, SealPackageResult } from "./check.ts";
export {
  ARCHIVE_EXTENSION,
  archiveFileName,
  deploymentIdOf,
  encodeManifest,
  MANIFEST_PATH,
  MANIFEST_VERSION,
  slotOf,
} from "./manifest.ts";
export type { ManifestFile, PackageManifest } from "./manifest.ts";
export { readArchive, readArchiveFile, sealArchive } from "./archive.ts";
export type { ReadArchiveOptions, ReadArchiveResult, SealedArchive } from "./archive.ts";
