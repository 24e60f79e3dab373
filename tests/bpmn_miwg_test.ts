/**
 * Acceptance: every file of the BPMN Model Interchange Working Group test
 * suite either loads, or is refused with diagnostics that each carry a code
 * and a line — and every construct the engine does not support is named on
 * its own line. Nothing throws. Skipped with a notice when the corpus is not
 * present (set SUTRA_BPMN_MIWG_DIR to point elsewhere).
 */
import assert from "node:assert/strict";
import { loadBpmn } from "../engine/bpmn/mod.ts";
import type { Diagnostic } from "../engine/core/diagnostic.ts";

const root = Deno.env.get("SUTRA_BPMN_MIWG_DIR") ??
  new URL("../../shared/bpmn-miwg/", import.meta.url).pathname;

function corpus(): string[] {
  try {
    const files: string[] = [];
    for (const dir of Deno.readDirSync(root)) {
      if (!dir.isDirectory) continue;
      for (const f of Deno.readDirSync(`${root}/${dir.name}`)) {
        if (f.name.endsWith(".bpmn")) files.push(`${dir.name}/${f.name}`);
      }
    }
    return files.sort();
  } catch {
    return [];
  }
}

const EVENT =
  /<(\w+:)?(startEvent|endEvent|intermediateCatchEvent|intermediateThrowEvent|boundaryEvent)\b[^>]*?(\/?)>/g;
const UNSUPPORTED_ELEMENT =
  /<(?:\w+:)?(choreography|choreographyTask|subChoreography|callChoreography|complexBehaviorDefinition)\b/g;

function lineOf(text: string, index: number): number {
  let line = 1;
  for (let i = 0; i < index; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

/** Lines where the file uses a construct the engine refuses, found without the loader. */
function unsupportedLines(text: string): number[] {
  const lines: number[] = [];
  for (const m of text.matchAll(EVENT)) {
    if (m[3] === "/") continue;
    const close = text.indexOf(`</${m[1] ?? ""}${m[2]}>`, m.index);
    const body = text.slice(m.index, close);
    const definitions = body.match(/<(?:\w+:)?\w+EventDefinition\b/g)?.length ?? 0;
    if (definitions > 1 || /parallelMultiple="true"/.test(m[0])) lines.push(lineOf(text, m.index!));
  }
  for (const m of text.matchAll(UNSUPPORTED_ELEMENT)) lines.push(lineOf(text, m.index!));
  return lines;
}

const files = corpus();
const tally = { loaded: 0, refused: 0 };

if (files.length === 0) {
  console.log(`bpmn_miwg_test: corpus not found at ${root}; skipping`);
}

for (const file of files) {
  Deno.test(`MIWG ${file} loads or is refused with located diagnostics`, async () => {
    const bytes = await Deno.readFile(`${root}/${file}`);
    const result = await loadBpmn(bytes, { uri: file });
    const check = (d: Diagnostic) => {
      assert.match(d.code, /^SUTRA\.CONFIG\.BPMN\.[A-Z0-9_]+$/, `${d.code}: ${d.message}`);
      assert.equal(d.source?.uri, file);
      assert.ok((d.source?.line ?? 0) >= 1, `${d.code} has no line: ${d.message}`);
    };
    result.diagnostics.forEach(check);
    const errors = result.diagnostics.filter((d) => d.severity === "ERROR");
    assert.equal(result.ok, errors.length === 0);
    if (result.ok) {
      assert.ok(result.plan, "a loaded file has a plan");
      tally.loaded++;
    } else {
      assert.equal(result.plan, undefined);
      tally.refused++;
    }
    const text = new TextDecoder(
      /ISO-8859-1/i.test(new TextDecoder().decode(bytes.subarray(0, 100))) ? "latin1" : "utf-8",
    )
      .decode(bytes);
    for (const line of unsupportedLines(text)) {
      assert.ok(
        result.diagnostics.some((d) =>
          d.code === "SUTRA.CONFIG.BPMN.ELEMENT_UNSUPPORTED" && d.source?.line === line
        ),
        `the unsupported construct on line ${line} is not named`,
      );
    }
  });
}

Deno.test({
  name: "MIWG corpus summary",
  ignore: files.length === 0,
  fn() {
    assert.equal(tally.loaded + tally.refused, files.length);
    console.log(
      `MIWG: ${files.length} files, ${tally.loaded} loaded, ${tally.refused} refused with diagnostics`,
    );
  },
});
