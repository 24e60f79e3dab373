/**
 * FEEL evaluation benchmark over a corpus of expressions.
 *
 *     deno run -P=bench bench/feel_bench.ts [--corpus FILE] [--iterations N]
 *
 * For each corpus entry (`{name, expression, context, expected}`) the
 * expression is compiled once, warmed up with 500 evaluations, then timed
 * over N evaluations against the same context object. Prints one JSON line
 * per entry: `{"engine":"sutra","name":…,"evalsPerSec":…,"value":…}`, the
 * same shape as the feelin peer script in `shared/bench/peers/`.
 *
 * @module
 */
import { compile, toJs } from "../lang/feel/mod.ts";

interface CorpusEntry {
  readonly name: string;
  readonly expression: string;
  readonly context: Record<string, unknown>;
}

const WARM_UP = 500;

function option(args: readonly string[], flag: string): string | undefined {
  const i = args.indexOf(flag);
  return i >= 0 ? args[i + 1] : undefined;
}

/** Runs the benchmark; returns the process exit code. */
function main(args: readonly string[]): number {
  const corpusPath = option(args, "--corpus") ??
    new URL("../../shared/bench/peers/feel-corpus.json", import.meta.url).pathname;
  const iterations = Number(option(args, "--iterations") ?? 20000);
  if (!Number.isInteger(iterations) || iterations <= 0) {
    console.error(`--iterations must be a positive integer, got ${option(args, "--iterations")}`);
    return 2;
  }
  let corpus: CorpusEntry[];
  try {
    corpus = JSON.parse(Deno.readTextFileSync(corpusPath));
  } catch (e) {
    console.error(`cannot read corpus ${corpusPath}: ${e instanceof Error ? e.message : e}`);
    return 2;
  }
  let failures = 0;
  for (const entry of corpus) {
    const c = compile(entry.expression);
    if (c.diagnostics !== undefined) {
      console.error(`${entry.name}: ${c.diagnostics.map((d) => d.message).join("; ")}`);
      failures++;
      continue;
    }
    const expr = c.compiled;
    const first = expr.evaluate(entry.context);
    if (first.diagnostics !== undefined) {
      console.error(`${entry.name}: ${first.diagnostics.map((d) => d.message).join("; ")}`);
      failures++;
      continue;
    }
    for (let i = 0; i < WARM_UP; i++) expr.evaluate(entry.context);
    const t0 = performance.now();
    for (let i = 0; i < iterations; i++) expr.evaluate(entry.context);
    const seconds = (performance.now() - t0) / 1000;
    console.log(JSON.stringify({
      engine: "sutra",
      name: entry.name,
      evalsPerSec: Math.round(iterations / seconds),
      value: toJs(first.value),
    }));
  }
  return failures === 0 ? 0 : 1;
}

Deno.exit(main(Deno.args));
