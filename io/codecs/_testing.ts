/**
 * Helpers for the codec tests: schema folders from fixtures or inline text.
 *
 * @module
 */
import type { Codec, SchemaFolder, SchemaKind } from "../../engine/core/codec.ts";
import type { Diagnostic } from "../../engine/core/diagnostic.ts";

const FIXTURES = new URL("../../tests/fixtures/codecs/", import.meta.url);

/** The files of a fixture folder (`schemas/orders`), manifest excluded, by relative path. */
export async function fixtureFiles(folder: string): Promise<Map<string, Uint8Array>> {
  const files = new Map<string, Uint8Array>();
  const walk = async (dir: string) => {
    for await (const e of Deno.readDir(new URL(`${folder}/${dir}`, FIXTURES))) {
      const rel = dir === "" ? e.name : `${dir}/${e.name}`;
      if (e.isDirectory) await walk(rel);
      else if (rel !== "codec-manifest.yaml") {
        files.set(rel, await Deno.readFile(new URL(`${folder}/${rel}`, FIXTURES)));
      }
    }
  };
  await walk("");
  return files;
}

/** A fixture file's bytes. */
export function fixture(path: string): Promise<Uint8Array> {
  return Deno.readFile(new URL(path, FIXTURES));
}

/** A schema folder from inline text files. */
export function inlineFolder(
  files: Record<string, string>,
  manifest: Record<string, unknown>,
): SchemaFolder {
  const encoded = new Map(Object.entries(files).map(([k, v]) => [k, new TextEncoder().encode(v)]));
  return { path: "schemas/test", urn: "urn:test", manifest, files: encoded };
}

/** Builds a folder with a kind, failing the test when it does not build. */
export async function buildCodec(kind: SchemaKind, folder: SchemaFolder): Promise<Codec> {
  const built = await kind.build(folder);
  if (built.diagnostics) throw new Error(JSON.stringify(built.diagnostics, null, 2));
  return built.codec;
}

/** Builds a folder that must not build and returns its diagnostics. */
export async function buildErrors(kind: SchemaKind, folder: SchemaFolder): Promise<Diagnostic[]> {
  const built = await kind.build(folder);
  if (built.codec) throw new Error("the folder built, but it should not have");
  return [...built.diagnostics];
}
