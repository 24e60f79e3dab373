/**
 * A package's own codecs: each codec folder under `schemas/` has its
 * `codec-manifest.yaml` read, its `schemaKind` looked up among the schema
 * kinds linked into this build, and is built by that kind (the codec layer
 * owns compilation). The URN is folded from the folder path: `urn:<name>`,
 * or `urn:sutra:codec:<name>` for a bundle kind, which shadows a global
 * codec of that name for this deployment only.
 *
 * @module
 */
import { type Codec, codecs as globalCodecs, type SchemaKind, schemaKinds } from "../core/codec.ts";
import { type Diagnostic, diagnostic } from "../core/diagnostic.ts";
import type { Shape, ShapeProvider } from "../bpmn/mod.ts";
import { parseYaml } from "./_yaml.ts";
import { checkYaml, type Spec } from "./_yaml_schema.ts";
import type { ChannelDecl } from "./channels_yaml.ts";
import type { PackageFiles } from "./files.ts";
import { CODEC_MANIFEST, type CodecFolder } from "./layout.ts";
import { errorMessage } from "../core/errors.ts";

/** A codec folder of the package and what became of it. */
export interface PackageCodec {
  /** Path of the folder (`schemas/hr/employee`). */
  readonly folder: string;
  /** The URN channels and stores bind. */
  readonly urn: string;
  /** The manifest's `schemaKind`, when it could be read. */
  readonly kind?: string;
  /** The built codec; absent when the folder did not build. */
  readonly codec?: Codec;
}

/** The schema of `codec-manifest.yaml` as the package reads it; the kind reads the rest. */
export const CODEC_MANIFEST_SCHEMA: Spec = {
  type: "map",
  fields: { schemaKind: { required: true, spec: { type: "string" } } },
  values: { type: "any" },
};

/** Builds every codec folder; every problem of every folder is reported. */
export async function buildPackageCodecs(
  files: PackageFiles,
  folders: readonly CodecFolder[],
): Promise<{ codecs: PackageCodec[]; diagnostics: Diagnostic[] }> {
  const out: PackageCodec[] = [];
  const diagnostics: Diagnostic[] = [];
  for (const folder of folders) {
    const built = await buildOne(files, folder);
    out.push(built.codec);
    diagnostics.push(...built.diagnostics);
  }
  return { codecs: out, diagnostics };
}

async function buildOne(
  files: PackageFiles,
  folder: CodecFolder,
): Promise<{ codec: PackageCodec; diagnostics: Diagnostic[] }> {
  const plain = { folder: folder.folder, urn: `urn:${folder.name}` };
  const manifestPath = `${folder.folder}/${CODEC_MANIFEST}`;
  const diagnostics: Diagnostic[] = [];
  for (const p of folder.files) {
    if (p.endsWith(`/${CODEC_MANIFEST}`) && p !== manifestPath) {
      diagnostics.push(diagnostic(
        "SUTRA.CONFIG.CODEC_LAYOUT.INVALID",
        `${p} sits inside the codec folder ${folder.folder}/, which already has a manifest; ` +
          "a codec folder is one codec (move the inner one out to its own folder)",
        { source: { uri: p } },
      ));
    }
  }
  const bytes = files.get(manifestPath);
  if (bytes === undefined) {
    diagnostics.push(diagnostic(
      "SUTRA.CONFIG.CODEC_MANIFEST.MISSING",
      `${folder.folder}/ holds schema files but no ${CODEC_MANIFEST} saying what kind of ` +
        "schema they are (schemaKind: xsd, json-schema, or a linked bundle kind)",
      { source: { uri: folder.folder }, attributes: { codec: plain.urn } },
    ));
    return { codec: plain, diagnostics };
  }
  const parsed = parseYaml(manifestPath, bytes);
  if (!parsed.file) return { codec: plain, diagnostics: [...diagnostics, ...parsed.diagnostics] };
  const checked = checkYaml(
    parsed.file,
    CODEC_MANIFEST_SCHEMA,
    "SUTRA.CONFIG.CODEC_MANIFEST.INVALID",
  );
  if (checked.value === undefined) {
    return { codec: plain, diagnostics: [...diagnostics, ...checked.diagnostics] };
  }
  const manifest = checked.value as Record<string, unknown>;
  const kindName = manifest.schemaKind as string;
  const kind: SchemaKind | undefined = schemaKinds.get(kindName);
  if (kind === undefined) {
    const linked = schemaKinds.names();
    diagnostics.push(diagnostic(
      "SUTRA.CONFIG.CODEC_MANIFEST.INVALID",
      `schemaKind '${kindName}' is not linked in this build (linked: ${
        linked.length > 0 ? linked.join(", ") : "none"
      })`,
      { source: parsed.file.locate(["schemaKind"]), attributes: { codec: plain.urn } },
    ));
    return { codec: { ...plain, kind: kindName }, diagnostics };
  }
  const urn = kind.bundle ? `urn:sutra:codec:${folder.name}` : plain.urn;
  const inner = new Map<string, Uint8Array>();
  for (const p of folder.files) {
    if (p !== manifestPath) inner.set(p.slice(folder.folder.length + 1), files.get(p)!);
  }
  let build;
  try {
    build = await kind.build({ path: folder.folder, urn, manifest, files: inner });
  } catch (error) {
    // A kind must report, not throw; the package is refused either way.
    diagnostics.push(diagnostic(
      "SUTRA.RUNTIME.UNEXPECTED",
      `schema kind '${kind.name}' failed on ${folder.folder}/: ${errorMessage(error)}`,
      { source: { uri: folder.folder } },
    ));
    return { codec: { folder: folder.folder, urn, kind: kind.name }, diagnostics };
  }
  if (build.codec === undefined) {
    return {
      codec: { folder: folder.folder, urn, kind: kind.name },
      diagnostics: [...diagnostics, ...build.diagnostics],
    };
  }
  return {
    codec: { folder: folder.folder, urn, kind: kind.name, codec: build.codec },
    diagnostics,
  };
}

/**
 * A package's codecs, and codecs found by URN: the package's own first (a
 * bundle shadows a global name), then the ones linked into this build.
 */
export class PackageCodecs {
  readonly #own: ReadonlyMap<string, PackageCodec>;

  /** @param own the package's codec folders. */
  constructor(own: readonly PackageCodec[]) {
    this.#own = new Map(own.map((c) => [c.urn, c]));
  }

  /** The package's codec folders, in folder order. */
  list(): PackageCodec[] {
    return [...this.#own.values()];
  }

  /**
   * Whether a URN names a codec: a package folder (built or not — a folder
   * that failed to build has its own findings) or a linked global codec.
   */
  declares(urn: string): boolean {
    return this.#own.has(urn) || globalCodecs.has(urn);
  }

  /** The package codec folder behind a URN, if it is one. */
  own(urn: string): PackageCodec | undefined {
    return this.#own.get(urn);
  }

  /** The usable codec behind a URN. */
  codec(urn: string): Codec | undefined {
    const own = this.#own.get(urn);
    return own ? own.codec : globalCodecs.get(urn);
  }

  /** Payload and schema shapes for the BPMN loader's FEEL path checks. */
  shapes(channels: readonly ChannelDecl[]): ShapeProvider {
    const byChannel = new Map(channels.map((c) => [c.name, c.codec]));
    return {
      payload: (channel, messageType): Shape | undefined => {
        const urn = byChannel.get(channel);
        return urn === undefined ? undefined : this.codec(urn)?.shapeOf(messageType);
      },
      schema: (schema, type): Shape | undefined => this.codec(schema)?.shapeOf(type),
    };
  }
}
