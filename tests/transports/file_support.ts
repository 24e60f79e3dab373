/**
 * Helpers for the file-transport tests: the `file_channel` fixture package
 * sealed with its channel pointed at a temporary inbox and its `q:send` at
 * a temporary outbox directory, and small directory readers.
 *
 * @module
 */
import "../../io/codecs/mod.ts";
import "../../io/transports/mod.ts";
import assert from "node:assert/strict";
import { join } from "node:path";
import { transports } from "../../engine/core/transport.ts";
import { readPackageDir, sealPackage } from "../../engine/package/mod.ts";

/** A test's directories: the watched inbox (with its folders) and the sink's outbox. */
export interface FileDirs {
  readonly root: string;
  readonly inbox: string;
  readonly outbox: string;
}

/** Fresh temporary directories for one test. */
export async function fileDirs(): Promise<FileDirs> {
  const root = await Deno.makeTempDir({ prefix: "sutra-file-" });
  const inbox = join(root, "in");
  const outbox = join(root, "out");
  await Deno.mkdir(inbox);
  await Deno.mkdir(outbox);
  return { root, inbox, outbox };
}

/** The fixture package `fixture` (under tests/fixtures/runtime) sealed for `dirs`. */
export async function filePackage(dirs: FileDirs, fixture = "file_channel"): Promise<Uint8Array> {
  const path = new URL(`../fixtures/runtime/${fixture}`, import.meta.url).pathname;
  const read = await readPackageDir(path);
  assert.ok(read.files, read.diagnostics.map((d) => d.message).join("\n"));
  const files = new Map<string, Uint8Array>();
  for (const [name, bytes] of read.files) {
    const text = new TextDecoder().decode(bytes).replaceAll("@IN@", dirs.inbox)
      .replaceAll("@OUT@", dirs.outbox);
    files.set(name, new TextEncoder().encode(text));
  }
  const sealed = await sealPackage(files, { transports });
  assert.ok(sealed.archive, sealed.diagnostics.map((d) => `${d.code} ${d.message}`).join("\n"));
  return sealed.archive.bytes;
}

/** The names of the plain files in `dir` (none when it does not exist), sorted. */
export async function filesIn(dir: string): Promise<string[]> {
  const names: string[] = [];
  try {
    for await (const e of Deno.readDir(dir)) if (e.isFile) names.push(e.name);
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  return names.sort();
}

/** The files a sink has finished writing in `dir`: its dot-named temporaries are still in flight. */
export async function emitted(dir: string): Promise<string[]> {
  return (await filesIn(dir)).filter((n) => !n.startsWith("."));
}

/** The message files left in every claim folder under `processing`. */
export async function claimed(processing: string): Promise<string[]> {
  const names: string[] = [];
  for await (const e of Deno.readDir(processing)) {
    if (e.isDirectory) {
      names.push(...(await filesIn(join(processing, e.name))).filter((n) => !n.startsWith(".")));
    }
  }
  return names.sort();
}

/** Drops a file into `dir` the way the contract asks: written under a `.tmp` name, then renamed. */
export async function drop(dir: string, name: string, body: unknown): Promise<void> {
  const temp = join(dir, `${name}.tmp`);
  await Deno.writeTextFile(temp, typeof body === "string" ? body : JSON.stringify(body));
  await Deno.rename(temp, join(dir, name));
}
