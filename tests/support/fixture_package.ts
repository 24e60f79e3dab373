/**
 * Seals test packages: from files in memory, or from a fixture directory
 * under `tests/fixtures/runtime/` with its `@NAME@` placeholders filled in
 * for one test (a unique queue prefix, an ack mode, …). A package that does
 * not seal fails the test with every diagnostic.
 *
 * @module
 */
import assert from "node:assert/strict";
import { transports } from "../../engine/core/transport.ts";
import { readPackageDir, sealPackage } from "../../engine/package/mod.ts";

/** Seals `files` (path inside the package → bytes) with the registered transports. */
export async function sealFiles(files: ReadonlyMap<string, Uint8Array>): Promise<Uint8Array> {
  const sealed = await sealPackage(new Map(files), { transports });
  assert.ok(sealed.archive, sealed.diagnostics.map((d) => `${d.code} ${d.message}`).join("\n"));
  return sealed.archive.bytes;
}

/**
 * Reads the fixture package `tests/fixtures/runtime/<fixture>`, replaces
 * every `placeholder` key in each file with its value (in the order given),
 * and seals the result.
 */
export async function sealFixture(
  fixture: string,
  placeholders: Readonly<Record<string, string>> = {},
): Promise<Uint8Array> {
  const path = new URL(`../fixtures/runtime/${fixture}`, import.meta.url).pathname;
  const read = await readPackageDir(path);
  assert.ok(read.files, read.diagnostics.map((d) => d.message).join("\n"));
  const files = new Map<string, Uint8Array>();
  for (const [name, bytes] of read.files) {
    let text = new TextDecoder().decode(bytes);
    for (const [placeholder, value] of Object.entries(placeholders)) {
      text = text.replaceAll(placeholder, value);
    }
    files.set(name, new TextEncoder().encode(text));
  }
  return await sealFiles(files);
}
