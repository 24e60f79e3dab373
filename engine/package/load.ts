/**
 * Loading a package: its file set becomes a typed model — labels, channels,
 * stores, coverage files — and every artifact goes through the engine's own
 * loader (BPMN, DMN, `.srl`, templates, and the codec layer's schema kinds
 * for `schemas/`). Every artifact is loaded even when another one fails, so one
 * pass reports everything; the lint families then check what the artifacts
 * say about each other.
 *
 * @module
 */
import { loadBpmn, type LoadResult as BpmnLoadResult } from "../bpmn/mod.ts";
import { type Diagnostic, diagnostic } from "../core/diagnostic.ts";
import { type DmnModels, loadModels, validate as validateDmn } from "../../lang/dmn/mod.ts";
import { parseRuleset, type Ruleset } from "../../lang/srl/mod.ts";
import { loadTemplates, type TemplateSet } from "../../lang/templates/mod.ts";
import type { YamlFile } from "./_yaml.ts";
import { buildPackageCodecs, PackageCodecs } from "./codecs.ts";
import { type ChannelDecl, readChannelsYaml } from "./channels_yaml.ts";
import { type CoverageFile, readCoverageYaml } from "./coverage_yaml.ts";
import { type DataStoreDecl, readDatastoresYaml } from "./datastores_yaml.ts";
import type { PackageFiles } from "./files.ts";
import {
  type Artifact,
  classifyLayout,
  type CoverageArtifact,
  type PackageLayout,
} from "./layout.ts";
import { type PackageDescriptor, readPackageYaml } from "./package_yaml.ts";

/** One BPMN file and what its loader made of it. */
export interface LoadedBpmn {
  readonly artifact: Artifact;
  /** The loader's result; `definitions` is there whenever the file is BPMN at all. */
  readonly result: BpmnLoadResult;
}

/** One coverage file and its parsed routes (absent when the file is invalid). */
export interface LoadedCoverage {
  readonly artifact: CoverageArtifact;
  readonly coverage?: CoverageFile;
  readonly file?: YamlFile;
}

/** A YAML declaration file: its entries, or undefined when the file could not be read. */
export interface Declarations<T> {
  /**
   * The declarations; an empty list when the file is absent, undefined when
   * it is present but invalid (checks that depend on it stand down rather
   * than report a cascade).
   */
  readonly entries?: readonly T[];
  /** The parsed file, for locating fields. */
  readonly file?: YamlFile;
}

/** A package as the engine sees it. */
export interface LoadedPackage {
  readonly files: PackageFiles;
  readonly layout: PackageLayout;
  /** From `package.yaml`; absent when that file is missing or invalid. */
  readonly descriptor?: PackageDescriptor;
  readonly channels: Declarations<ChannelDecl>;
  readonly stores: Declarations<DataStoreDecl>;
  /** The package's codecs (built from `schemas/`) and the build's, by URN. */
  readonly codecs: PackageCodecs;
  readonly bpmn: readonly LoadedBpmn[];
  /**
   * Every `.dmn` file under `rules/`, loaded together so models can import
   * each other; absent when the package has none or none is a DMN model.
   */
  readonly decisions?: DmnModels;
  /** Parsed rulesets by key (`fields.srl`); files that do not parse are absent. */
  readonly rulesets: ReadonlyMap<string, Ruleset>;
  /** Output templates (`templates/`) by key. */
  readonly templates: TemplateSet;
  /** Derive/compute templates (`scripts/`) by key. */
  readonly scripts: TemplateSet;
  readonly coverage: readonly LoadedCoverage[];
}

/** What {@link loadPackage} returns. */
export interface LoadPackageResult {
  readonly package: LoadedPackage;
  /** Every problem found while loading, in file order. */
  readonly diagnostics: readonly Diagnostic[];
}

const DECODER = new TextDecoder("utf-8", { fatal: true });

/** Loads every file of a package. */
export async function loadPackage(files: PackageFiles): Promise<LoadPackageResult> {
  const diagnostics: Diagnostic[] = [];
  const { layout, diagnostics: layoutDiagnostics } = classifyLayout(files);
  diagnostics.push(...layoutDiagnostics);

  const descriptor = readPackageYaml(
    layout.packageYaml ? files.get(layout.packageYaml) : undefined,
    [...files.keys()].find((path) => /^[^/]+\/package\.yaml$/.test(path))?.split("/")[0],
  );
  diagnostics.push(...descriptor.diagnostics);

  const channels = declarations(layout.channelsYaml, files, (bytes) => {
    const r = readChannelsYaml(bytes);
    return { entries: r.channels, file: r.file, diagnostics: r.diagnostics };
  });
  diagnostics.push(...channels.diagnostics);
  const stores = declarations(layout.datastoresYaml, files, (bytes) => {
    const r = readDatastoresYaml(bytes);
    return { entries: r.stores, file: r.file, diagnostics: r.diagnostics };
  });
  diagnostics.push(...stores.diagnostics);

  const built = await buildPackageCodecs(files, layout.codecs);
  diagnostics.push(...built.diagnostics);
  const codecs = new PackageCodecs(built.codecs);

  // Payload shapes come from each channel's codec, so FEEL paths in the
  // processes are checked against the messages that will really arrive.
  const shapes = codecs.shapes(channels.entries ?? []);
  const bpmn: LoadedBpmn[] = [];
  for (const artifact of layout.bpmn) {
    const result = await loadBpmn(files.get(artifact.path)!, { uri: artifact.path, shapes });
    bpmn.push({ artifact, result });
    diagnostics.push(...result.diagnostics);
  }

  const decisions = decisionModels(layout.decisions, files, diagnostics);

  const rulesets = new Map<string, Ruleset>();
  for (const artifact of layout.rulesets) {
    const text = textOf(files, artifact.path, diagnostics);
    if (text === undefined) continue;
    const parsed = parseRuleset(text, { uri: artifact.path });
    if (parsed.ruleset) rulesets.set(artifact.key, parsed.ruleset);
    else diagnostics.push(...parsed.diagnostics);
  }

  const templates = templateSet(layout.templates, files, diagnostics);
  const scripts = templateSet(layout.scripts, files, diagnostics);

  const coverage: LoadedCoverage[] = [];
  for (const artifact of layout.coverage) {
    const r = readCoverageYaml(files.get(artifact.path)!, {
      path: artifact.path,
      urn: artifact.urn,
    });
    diagnostics.push(...r.diagnostics);
    coverage.push({
      artifact,
      ...(r.coverage ? { coverage: r.coverage } : {}),
      ...(r.file ? { file: r.file } : {}),
    });
  }

  return {
    package: {
      files,
      layout,
      ...(descriptor.descriptor && descriptor.diagnostics.length === 0
        ? { descriptor: descriptor.descriptor }
        : {}),
      channels: { entries: channels.entries, file: channels.file },
      stores: { entries: stores.entries, file: stores.file },
      codecs,
      bpmn,
      ...(decisions ? { decisions } : {}),
      rulesets,
      templates,
      scripts,
      coverage,
    },
    diagnostics,
  };
}

function declarations<T>(
  path: string | undefined,
  files: PackageFiles,
  read: (bytes: Uint8Array) => {
    entries?: readonly T[];
    file?: YamlFile;
    diagnostics: readonly Diagnostic[];
  },
): Declarations<T> & { diagnostics: readonly Diagnostic[] } {
  if (path === undefined) return { entries: [], diagnostics: [] };
  return read(files.get(path)!);
}

function textOf(files: PackageFiles, path: string, diagnostics: Diagnostic[]): string | undefined {
  try {
    return DECODER.decode(files.get(path)!);
  } catch {
    diagnostics.push(diagnostic(
      "SUTRA.CONFIG.PACKAGE.ENCODING_INVALID",
      `${path} is not UTF-8 text`,
      { source: { uri: path } },
    ));
    return undefined;
  }
}

function decisionModels(
  artifacts: readonly Artifact[],
  files: PackageFiles,
  diagnostics: Diagnostic[],
): DmnModels | undefined {
  const sources = [];
  for (const a of artifacts) {
    const text = textOf(files, a.path, diagnostics);
    if (text !== undefined) sources.push({ uri: a.path, text });
  }
  if (sources.length === 0) return undefined;
  const loaded = loadModels(sources);
  // validate() repeats the load findings and adds the graph checks.
  diagnostics.push(...(loaded.models ? validateDmn(loaded.models) : loaded.diagnostics));
  return loaded.models;
}

function templateSet(
  artifacts: readonly Artifact[],
  files: PackageFiles,
  diagnostics: Diagnostic[],
): TemplateSet {
  const sources = [];
  for (const a of artifacts) {
    const text = textOf(files, a.path, diagnostics);
    if (text !== undefined) sources.push({ key: a.key, text, uri: a.path });
  }
  const loaded = loadTemplates(sources);
  diagnostics.push(...loaded.diagnostics);
  return loaded.templates;
}
