import assert from "node:assert/strict";
import { loadBpmn } from "./load.ts";

const RULES = new URL("../../tests/fixtures/bpmn/rules/", import.meta.url);
const MARKER = /<!--expect:(SUTRA\.[A-Z0-9_.]+)-->/g;

/** `code@line` for every marker: the finding expected on that line. */
function expectations(text: string): string[] {
  const found: string[] = [];
  text.split("\n").forEach((line, i) => {
    for (const m of line.matchAll(MARKER)) found.push(`${m[1]}@${i + 1}`);
  });
  return found.sort();
}

const fixtures = [...Deno.readDirSync(RULES)].map((e) => e.name).filter((n) => n.endsWith(".bpmn"))
  .sort();

for (const name of fixtures) {
  Deno.test(`rule fixture ${name}: reports exactly the marked findings, each on its line`, async () => {
    const bytes = await Deno.readFile(new URL(name, RULES));
    const expected = expectations(new TextDecoder().decode(bytes));
    assert.ok(expected.length > 0, "a fixture marks at least one finding");
    const result = await loadBpmn(bytes, { uri: name });
    const actual = result.diagnostics
      .filter((d) => d.severity !== "INFO")
      .map((d) => `${d.code}@${d.source?.line}`)
      .sort();
    assert.deepEqual(actual, expected);
    assert.equal(result.ok, !result.diagnostics.some((d) => d.severity === "ERROR"));
  });
}

Deno.test("every SUTRA.CONFIG.BPMN code the loader emits has a rule fixture", async () => {
  const emitted = new Set<string>();
  const walk = async (dir: URL) => {
    for await (const e of Deno.readDir(dir)) {
      if (e.isDirectory) await walk(new URL(`${e.name}/`, dir));
      else if (e.name.endsWith(".ts") && !e.name.endsWith("_test.ts")) {
        const text = await Deno.readTextFile(new URL(e.name, dir));
        for (const m of text.matchAll(/"(SUTRA\.CONFIG\.BPMN\.[A-Z0-9_]+)"/g)) emitted.add(m[1]);
      }
    }
  };
  await walk(new URL("./", import.meta.url));
  const covered = new Set<string>();
  for (const name of fixtures) {
    const text = await Deno.readTextFile(new URL(name, RULES));
    for (const m of text.matchAll(MARKER)) covered.add(m[1]);
  }
  // The validator-unavailable path needs a broken runtime; the INFO note on
  // non-executable processes is asserted in load_test.ts.
  const exempt = [
    "SUTRA.CONFIG.BPMN.Q_SCHEMA_UNAVAILABLE",
    "SUTRA.CONFIG.BPMN.PROCESS_NOT_EXECUTABLE",
  ];
  assert.deepEqual([...emitted].filter((c) => !covered.has(c) && !exempt.includes(c)).sort(), []);
});
