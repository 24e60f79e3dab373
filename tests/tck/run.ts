/**
 * `deno task tck DIR [--format json] [--results-dir D]`: runs the DMN TCK
 * found under DIR and prints PASS/FAIL/UNSUPPORTED counts per group (text,
 * or JSON with `--format json`), then every non-PASS result (text only).
 * With `--results-dir`, writes `tck_results.csv` there. Exits 2 on bad
 * arguments, 1 when a result crashed the engine, 0 otherwise.
 *
 * @module
 */
import { resultsCsv, summarize, textReport } from "./report.ts";
import { runFolder, type TckResult, testFolders } from "./runner.ts";

/** Parsed command-line arguments. */
export interface TckArgs {
  /** The TCK root. */
  readonly dir: string;
  /** Output format. */
  readonly format: "text" | "json";
  /** Where to write `tck_results.csv`, when asked. */
  readonly resultsDir?: string;
}

/** Parses the arguments; a message when they are wrong. */
export function parseArgs(args: readonly string[]): TckArgs | string {
  let dir: string | undefined;
  let format: "text" | "json" = "text";
  let resultsDir: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === "--format") {
      const f = args[++i];
      if (f !== "json" && f !== "text") return `--format takes text or json, not '${f}'`;
      format = f;
    } else if (a === "--results-dir") {
      resultsDir = args[++i];
      if (resultsDir === undefined) return "--results-dir needs a directory";
    } else if (a.startsWith("--")) return `unknown option '${a}'`;
    else if (dir === undefined) dir = a;
    else return `unexpected argument '${a}'`;
  }
  if (dir === undefined) return "usage: tck DIR [--format json] [--results-dir D]";
  return resultsDir === undefined ? { dir, format } : { dir, format, resultsDir };
}

/** Runs every test folder under `dir`. */
export async function runTck(dir: string): Promise<TckResult[]> {
  const results: TckResult[] = [];
  for (const folder of await testFolders(dir)) results.push(...await runFolder(dir, folder));
  return results;
}

async function main(): Promise<number> {
  const args = parseArgs(Deno.args);
  if (typeof args === "string") {
    console.error(args);
    return 2;
  }
  try {
    if (!(await Deno.stat(args.dir)).isDirectory) throw new Deno.errors.NotFound();
  } catch {
    console.error(`'${args.dir}' is not a directory`);
    return 2;
  }
  const results = await runTck(args.dir);
  if (args.format === "json") console.log(JSON.stringify(summarize(results)));
  else console.log(textReport(results).trimEnd());
  if (args.resultsDir !== undefined) {
    await Deno.mkdir(args.resultsDir, { recursive: true });
    await Deno.writeTextFile(`${args.resultsDir}/tck_results.csv`, resultsCsv(results));
  }
  return results.some((r) => r.crashed === true) ? 1 : 0;
}

if (import.meta.main) Deno.exit(await main());
