/**
 * The generic machinery of a wrapper-bundle schema kind: a codec module for
 * a message profile calls {@link wrapperBundleKind} with its profile (the
 * closed set of wrapper element names, their namespaces and directions, and
 * optionally base schemas it ships) and registers the result as a schema
 * kind. A package folder naming that kind carries
 * `<kind>-manifest.yaml`, which decides which schema file backs which
 * wrapper for this archive:
 *
 * ```yaml
 * incoming:
 *   OrderConfirmation: edition-2026/OrderConfirmation_v3.xsd
 * outgoing:
 *   ShipmentNotice: edition-2024/ShipmentNotice_v2.xsd
 * ```
 *
 * The message type is the wrapper's local name. A wrapper the manifest does
 * not list falls back to the profile's base schema for it. Deploy-time
 * checks are fail-closed: an unknown wrapper, a wrapper under a direction
 * the profile does not give it, a missing or uncompilable schema file, and a
 * schema that does not declare the wrapper in the profile's namespace all
 * reject the package.
 *
 * @module
 */
import { parse } from "yaml";
import { type SchemaBuild, type SchemaFolder, type SchemaKind } from "../../engine/core/codec.ts";
import { type Diagnostic, diagnostic } from "../../engine/core/diagnostic.ts";
import { manifestFormats, schemaInvalid, unknownKeys } from "./_manifest.ts";
import { decodeText } from "./_text.ts";
import { compileXsdSet, findRoot, type Selection, XsdCodec, type XsdFormat } from "./xsd.ts";

/** A message direction a wrapper may travel in. */
export type Direction = "incoming" | "outgoing";

/** What a profile says about one wrapper. */
export interface WrapperSpec {
  /** The namespace its schema must declare it in ("" for none). */
  readonly namespace: string;
  readonly directions: readonly Direction[];
}

/** The data a profile codec supplies; the machinery reads it generically. */
export interface WrapperProfile {
  /** Every wrapper the profile knows, by element local name. */
  readonly wrappers: Readonly<Record<string, WrapperSpec>>;
  /**
   * Schemas the codec module ships: files by relative path, and the file
   * backing each wrapper a package's manifest does not list.
   */
  readonly base?: {
    readonly files: ReadonlyMap<string, Uint8Array>;
    readonly wrappers: Readonly<Record<string, string>>;
  };
}

/** Options for {@link wrapperBundleKind}. */
export interface WrapperBundleOptions {
  /** The `schemaKind:` value (and the name of the folder's `<kind>-manifest.yaml`). */
  readonly name: string;
  readonly profile: WrapperProfile;
}

const DIRECTIONS: readonly Direction[] = ["incoming", "outgoing"];
const FORMATS: readonly XsdFormat[] = ["xml", "json", "yaml"];
const SCHEMA_LOCATION =
  /<(?:[\w.-]+:)?(?:include|import|redefine)\b[^>]*?\bschemaLocation\s*=\s*["']([^"']+)["']/g;

/** `a/b/../c.xsd` relative to `from`'s folder, or undefined when it leaves the folder. */
function resolvePath(from: string, location: string): string | undefined {
  const parts = from.split("/").slice(0, -1);
  for (const segment of location.split("/")) {
    if (segment === "..") {
      if (parts.length === 0) return undefined;
      parts.pop();
    } else if (segment !== "." && segment !== "") parts.push(segment);
  }
  return parts.join("/");
}

/** `file` and every schema it includes or imports, transitively. */
function closure(files: ReadonlyMap<string, Uint8Array>, file: string): string[] | string {
  const seen = new Set<string>();
  const queue = [file];
  while (queue.length > 0) {
    const next = queue.pop()!;
    if (seen.has(next)) continue;
    const bytes = files.get(next);
    if (bytes === undefined) return next;
    seen.add(next);
    const text = decodeText(bytes).text ?? "";
    for (const m of text.matchAll(SCHEMA_LOCATION)) {
      const target = resolvePath(next, m[1]);
      if (target === undefined) return m[1];
      queue.push(target);
    }
  }
  return [...seen].sort();
}

/** Builds a schema kind serving a wrapper profile. */
export function wrapperBundleKind(options: WrapperBundleOptions): SchemaKind {
  const { name, profile } = options;
  const manifestFile = `${name}-manifest.yaml`;
  const invalid = (folder: SchemaFolder, message: string) =>
    diagnostic("SUTRA.CONFIG.CODEC_MANIFEST.INVALID", message, {
      source: { uri: `${folder.path}/${manifestFile}` },
      attributes: { codec: folder.urn },
    });

  /** Reads the bundle manifest into direction → wrapper → file. */
  function readMapping(folder: SchemaFolder): Map<Direction, Map<string, string>> | Diagnostic[] {
    const bytes = folder.files.get(manifestFile);
    if (bytes === undefined) {
      return [
        diagnostic(
          "SUTRA.CONFIG.CODEC_MANIFEST.MISSING",
          `the ${name} bundle has no ${manifestFile}`,
          {
            source: { uri: folder.path },
            attributes: { codec: folder.urn },
          },
        ),
      ];
    }
    let document: unknown;
    try {
      document = parse(decodeText(bytes).text ?? "", { prettyErrors: false });
    } catch (e) {
      return [invalid(folder, `${manifestFile} is not YAML: ${(e as Error).message}`)];
    }
    if (document === null || typeof document !== "object" || Array.isArray(document)) {
      return [invalid(folder, `${manifestFile} must be a mapping of incoming/outgoing wrappers`)];
    }
    const problems: Diagnostic[] = [];
    const mapping = new Map<Direction, Map<string, string>>();
    for (const [key, entries] of Object.entries(document)) {
      if (!(DIRECTIONS as readonly string[]).includes(key)) {
        problems.push(invalid(folder, `unknown key '${key}' (expected incoming, outgoing)`));
        continue;
      }
      const direction = key as Direction;
      if (entries === null || typeof entries !== "object" || Array.isArray(entries)) {
        problems.push(invalid(folder, `${direction} must map wrapper names to schema files`));
        continue;
      }
      const wrappers = new Map<string, string>();
      for (const [wrapper, file] of Object.entries(entries)) {
        const spec = profile.wrappers[wrapper];
        if (spec === undefined) {
          problems.push(invalid(folder, `'${wrapper}' is not a ${name} wrapper`));
        } else if (!spec.directions.includes(direction)) {
          problems.push(
            invalid(
              folder,
              `wrapper '${wrapper}' is listed under ${direction}, which it never travels`,
            ),
          );
        } else if (typeof file !== "string" || !folder.files.has(file)) {
          problems.push(
            schemaInvalid(folder, String(file), `the schema file for '${wrapper}' does not exist`),
          );
        } else wrappers.set(wrapper, file);
      }
      mapping.set(direction, wrappers);
    }
    return problems.length > 0 ? problems : mapping;
  }

  return {
    name,
    bundle: true,
    async build(folder: SchemaFolder): Promise<SchemaBuild> {
      const problems = unknownKeys(folder, ["schemaKind", "formats"]);
      const { formats, diagnostics } = manifestFormats(folder, FORMATS);
      problems.push(...diagnostics);
      const mapping = readMapping(folder);
      if (Array.isArray(mapping)) problems.push(...mapping);
      if (problems.length > 0 || Array.isArray(mapping)) return { diagnostics: problems };

      const selections = new Map<string, Selection>();
      const compileFor = async (
        source: SchemaFolder,
        direction: Direction | "base",
        wrapper: string,
        file: string,
      ) => {
        const files = closure(source.files, file);
        if (typeof files === "string") {
          problems.push(
            schemaInvalid(source, file, `it includes '${files}', which the folder does not hold`),
          );
          return;
        }
        const compiled = await compileXsdSet(source, files);
        if (compiled.diagnostics) return void problems.push(...compiled.diagnostics);
        const namespace = profile.wrappers[wrapper].namespace;
        const declaration = findRoot(compiled.set.model, { uri: namespace, local: wrapper });
        if (declaration === undefined) {
          problems.push(
            schemaInvalid(
              source,
              file,
              `it does not declare '${wrapper}' in namespace '${namespace}'`,
            ),
          );
          return;
        }
        selections.set(`${direction} ${wrapper}`, { set: compiled.set, declaration });
      };
      for (const [direction, wrappers] of mapping) {
        for (const [wrapper, file] of wrappers) await compileFor(folder, direction, wrapper, file);
      }
      if (profile.base) {
        const base: SchemaFolder = {
          ...folder,
          path: `${folder.path} (${name} base schemas)`,
          files: profile.base.files,
        };
        for (const [wrapper, file] of Object.entries(profile.base.wrappers)) {
          await compileFor(base, "base", wrapper, file);
        }
      }
      if (problems.length > 0) return { diagnostics: problems };
      return {
        codec: new XsdCodec({
          urn: folder.urn,
          formats,
          messageTypes: Object.keys(profile.wrappers).sort(),
          select: (root, direction) => {
            const chosen = selections.get(`${direction} ${root.local}`) ??
              selections.get(`base ${root.local}`);
            if (chosen === undefined) return undefined;
            const wanted = profile.wrappers[root.local]?.namespace;
            return root.uri === undefined || root.uri === wanted ? chosen : undefined;
          },
        }),
      };
    },
  };
}
