/**
 * Fixture packages for the lint tests: `tests/fixtures/package/base` is a
 * clean package; each folder under `rules/` is an overlay on it (files that
 * replace or add to the base, plus `fixture.json` naming files to remove and
 * the findings expected).
 *
 * @module
 */
import { readPackageDir } from "../../engine/package/mod.ts";

/** Root of the package fixtures. */
export const FIXTURES = new URL("../fixtures/package/", import.meta.url).pathname;

/** One expected finding: code, file, and line (null: any line). */
export type Expected = [code: string, uri: string, line: number | null];

/** What a rule fixture declares. */
export interface FixtureMeta {
  readonly expect: Expected[];
  readonly remove?: string[];
}

/** Reads a fixture directory into a file set, failing the test on any read problem. */
export async function readFiles(dir: string): Promise<Map<string, Uint8Array>> {
  const read = await readPackageDir(dir);
  if (!read.files) throw new Error(`cannot read ${dir}: ${JSON.stringify(read.diagnostics)}`);
  return new Map(read.files);
}

/** The base package with a rule fixture's overlay applied, and what the fixture expects. */
export async function overlay(
  name: string,
): Promise<{ files: Map<string, Uint8Array>; meta: FixtureMeta }> {
  const files = await readFiles(`${FIXTURES}base`);
  const extra = await readFiles(`${FIXTURES}rules/${name}`);
  const meta = JSON.parse(new TextDecoder().decode(extra.get("fixture.json"))) as FixtureMeta;
  extra.delete("fixture.json");
  for (const path of meta.remove ?? []) files.delete(path);
  for (const [path, bytes] of extra) files.set(path, bytes);
  return { files, meta };
}

/** Names of every rule fixture. */
export async function ruleFixtures(): Promise<string[]> {
  const names: string[] = [];
  for await (const e of Deno.readDir(`${FIXTURES}rules`)) if (e.isDirectory) names.push(e.name);
  return names.sort();
}
