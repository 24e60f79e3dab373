import assert from "node:assert/strict";
import { CODES } from "../engine/core/codes.ts";
import { scanSource } from "./support/source_scan.ts";

const root = new URL("..", import.meta.url).pathname;
const CODE = /^SUTRA(\.[A-Z0-9_]+){2,}$/;

async function* sourceFiles(dir: string): AsyncGenerator<string> {
  for await (const e of Deno.readDir(`${root}${dir}`)) {
    const rel = dir ? `${dir}/${e.name}` : e.name;
    if (e.isDirectory) {
      if (e.name.startsWith(".") || ["node_modules", "fixtures", "dist"].includes(e.name)) continue;
      if (dir === "" && !["engine", "io", "cli", "lang"].includes(e.name)) continue;
      yield* sourceFiles(rel);
    } else if (e.name.endsWith(".ts") && !e.name.endsWith("_test.ts")) {
      if (dir === "" && !["main.ts", "cli.ts"].includes(e.name)) continue;
      yield rel;
    }
  }
}

Deno.test("every SUTRA.* code the source emits is in the catalogue", async () => {
  const unknown: string[] = [];
  for await (const file of sourceFiles("")) {
    for (const piece of scanSource(await Deno.readTextFile(`${root}${file}`))) {
      if (piece.kind === "string" && CODE.test(piece.text) && !Object.hasOwn(CODES, piece.text)) {
        unknown.push(`${file}:${piece.line}: ${piece.text}`);
      }
    }
  }
  assert.deepEqual(unknown, []);
});

Deno.test("the docs/ pages document every catalogued code", async () => {
  let doc = "";
  for await (const e of Deno.readDir(`${root}docs`)) {
    if (e.name.endsWith(".md")) doc += await Deno.readTextFile(`${root}docs/${e.name}`);
  }
  const missing = Object.keys(CODES).filter((code) => !doc.includes(`\`${code}\``));
  assert.deepEqual(missing, []);
});
