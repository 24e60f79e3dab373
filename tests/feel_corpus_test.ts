/**
 * Runs the shared FEEL corpus (`shared/bench/peers/feel-corpus.json`, the
 * expressions the benchmark times) and checks every value against its
 * `expected` field. Skipped, with a notice, where the corpus is not present.
 */
import assert from "node:assert/strict";
import { evaluate, FeelDecimal, type FeelValue, fromJs, valueEquals } from "../lang/feel/mod.ts";

interface CorpusEntry {
  readonly name: string;
  readonly expression: string;
  readonly context: Record<string, unknown>;
  readonly expected: unknown;
}

const corpusUrl = new URL("../../shared/bench/peers/feel-corpus.json", import.meta.url);

function loadCorpus(): CorpusEntry[] | undefined {
  try {
    return JSON.parse(Deno.readTextFileSync(corpusUrl));
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return undefined;
    throw e;
  }
}

const corpus = loadCorpus();
if (corpus === undefined) {
  console.log(`feel corpus not found at ${corpusUrl.pathname}: corpus test skipped`);
}

/** Deep FEEL equality, so `32` expected matches the decimal 32.0 produced. */
function same(actual: FeelValue, expected: unknown): boolean {
  const warnings: string[] = [];
  return valueEquals(actual, fromJs(expected), { warn: (m) => warnings.push(m) }) === true;
}

for (const entry of corpus ?? []) {
  Deno.test(`feel corpus: ${entry.name}`, () => {
    const r = evaluate(entry.expression, entry.context);
    assert.ok(r.diagnostics === undefined, JSON.stringify(r.diagnostics));
    assert.ok(
      same(r.value, entry.expected),
      `${entry.expression} gave ${
        String(r.value instanceof FeelDecimal ? r.value.toString() : JSON.stringify(r.value))
      }, expected ${JSON.stringify(entry.expected)}; warnings: ${r.warnings.join("; ")}`,
    );
  });
}

Deno.test({
  name: "feel corpus: present",
  ignore: corpus === undefined,
  fn: () => assert.ok(corpus !== undefined && corpus.length > 0),
});
