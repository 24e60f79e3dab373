/**
 * Runs the DMN TCK: finds every folder holding `*-test-NN.xml` files, loads
 * all `.dmn` files of the folder once (so imports resolve), runs each test
 * case and classifies every result node:
 *
 * - PASS: the engine's value matches the expected one;
 * - UNSUPPORTED: the value is null and the evaluation reached a construct
 *   the engine declares it does not evaluate (a wrong non-null value is
 *   never counted here);
 * - FAIL: anything else, including a model that does not load.
 *
 * @module
 */
import {
  DmnCode,
  type DmnModels,
  type DmnResult,
  evaluateDecision,
  evaluateDecisionService,
  loadModels,
} from "../../lang/dmn/mod.ts";
import type { FeelValue } from "../../lang/feel/mod.ts";
import { readTestFile, type TckCase, type TckFile } from "./test_file.ts";
import { same, show, toFeel } from "./values.ts";

/** The classification of one result node. */
export type Outcome = "PASS" | "FAIL" | "UNSUPPORTED";

/** One result node's outcome. */
export interface TckResult {
  /** The group: the nearest `compliance-level-*` or `non-compliant` folder ("other" if none). */
  readonly group: string;
  /** The test folder's path relative to the TCK root. */
  readonly folder: string;
  /** The test file's name without `.xml`. */
  readonly file: string;
  /** The test case id. */
  readonly caseId: string;
  /** The result node (decision) name. */
  readonly node: string;
  /** The outcome. */
  readonly outcome: Outcome;
  /** Why, for anything but PASS. */
  readonly reason?: string;
  /** Whether the engine refused with an internal defect (a crash caught at the API). */
  readonly crashed?: boolean;
}

const TEST_FILE = /-test-\d+\.xml$/;
const GROUP = /^(compliance-level-\d+|non-compliant)$/;

/** Every folder under `root` (itself included) holding TCK test files, sorted. */
export async function testFolders(root: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (dir: string) => {
    let hasTests = false;
    const subdirs: string[] = [];
    for await (const e of Deno.readDir(dir)) {
      if (e.isDirectory) subdirs.push(`${dir}/${e.name}`);
      else if (e.isFile && TEST_FILE.test(e.name)) hasTests = true;
    }
    if (hasTests) out.push(dir);
    for (const d of subdirs) await walk(d);
  };
  await walk(root.replace(/\/+$/, ""));
  return out.sort();
}

/** The group of a folder path relative to the TCK root. */
export function groupOf(relative: string): string {
  const parts = relative.split("/");
  for (let i = parts.length - 1; i >= 0; i--) if (GROUP.test(parts[i])) return parts[i];
  return "other";
}

/** Runs every test file of one folder. */
export async function runFolder(root: string, dir: string): Promise<TckResult[]> {
  const folder = dir === root ? "." : dir.slice(root.replace(/\/+$/, "").length + 1);
  const group = groupOf(folder);
  const names: string[] = [];
  for await (const e of Deno.readDir(dir)) if (e.isFile) names.push(e.name);
  names.sort();
  const sources = await Promise.all(
    names.filter((n) => n.endsWith(".dmn")).map(async (n) => ({
      uri: `${folder}/${n}`,
      text: await Deno.readTextFile(`${dir}/${n}`),
    })),
  );
  const results: TckResult[] = [];
  for (const name of names.filter((n) => TEST_FILE.test(n))) {
    const file = name.slice(0, -4);
    const base = { group, folder, file };
    const parsed = readTestFile(await Deno.readTextFile(`${dir}/${name}`));
    if (typeof parsed === "string") {
      results.push({ ...base, caseId: "-", node: "-", outcome: "FAIL", reason: parsed });
      continue;
    }
    const loaded = loadModels(sources, mainOption(parsed, folder));
    if (loaded.models === undefined) {
      const reason = `the models do not load: ${
        loaded.diagnostics.map((d) => d.message).join("; ")
      }`;
      for (const c of parsed.cases) {
        for (const r of c.results) {
          results.push({ ...base, caseId: c.id, node: r.name, outcome: "FAIL", reason });
        }
      }
      continue;
    }
    for (const c of parsed.cases) {
      results.push(...runCase(loaded.models, c).map((r) => ({ ...base, caseId: c.id, ...r })));
    }
  }
  return results;
}

function mainOption(file: TckFile, folder: string): { main?: string } {
  return file.modelName === undefined ? {} : { main: `${folder}/${file.modelName}` };
}

type CaseResult = Pick<TckResult, "node" | "outcome" | "reason" | "crashed">;

/** Runs one test case against loaded models. */
export function runCase(models: DmnModels, c: TckCase): CaseResult[] {
  const main = models.main.namespace;
  const inputs = new Map<string, FeelValue>();
  const importedInputs: Record<string, Map<string, FeelValue>> = {};
  for (const i of c.inputs) {
    const ns = i.namespace === undefined || i.namespace === main ? undefined : i.namespace;
    const value = toFeel(i.value, models.declaredType(i.name, ns));
    if (ns === undefined) inputs.set(i.name, value);
    else (importedInputs[ns] ??= new Map()).set(i.name, value);
  }
  const options = { importedInputs };
  if (c.type === "decisionService") {
    const r = evaluateDecisionService(models, c.invocableName ?? "", inputs, options);
    return c.results.map((node) => {
      const expected = toFeel(node.expected, models.declaredType(node.name));
      if (r.diagnostics !== undefined) return refused(node.name, r);
      if (r.outputs.has(node.name)) {
        return classify(node.name, r.outputs.get(node.name)!, expected, r);
      }
      if (node.name === c.invocableName) return classify(node.name, r.value, expected, r);
      return { node: node.name, outcome: "FAIL", reason: "not an output of the service" };
    });
  }
  if (c.type !== "decision") {
    return c.results.map((node) => ({
      node: node.name,
      outcome: "FAIL",
      reason: `test case type '${c.type}' is not run by this runner`,
    }));
  }
  return c.results.map((node) => {
    const ns = node.namespace === main ? undefined : node.namespace;
    const expected = toFeel(node.expected, models.declaredType(node.name, ns));
    const r = evaluateDecision(models, node.name, inputs, {
      ...options,
      ...(ns === undefined ? {} : { namespace: ns }),
    });
    if (r.diagnostics !== undefined) return refused(node.name, r);
    return classify(node.name, r.value, expected, r);
  });
}

function refused(node: string, r: DmnResult): CaseResult {
  const diagnostics = r.diagnostics ?? [];
  return {
    node,
    outcome: "FAIL",
    reason: `refused: ${diagnostics.map((d) => `${d.code} ${d.message}`).join("; ")}`,
    ...(diagnostics.some((d) => d.code === DmnCode.INTERNAL) ? { crashed: true } : {}),
  };
}

function classify(
  node: string,
  actual: FeelValue,
  expected: FeelValue,
  r: { warnings: readonly string[]; unsupported: readonly string[] },
): CaseResult {
  if (same(actual, expected)) return { node, outcome: "PASS" };
  if (actual === null && r.unsupported.length > 0) {
    return { node, outcome: "UNSUPPORTED", reason: `not supported: ${r.unsupported.join(", ")}` };
  }
  const why = r.warnings.length === 0 ? "" : ` (warnings: ${r.warnings.slice(0, 3).join("; ")})`;
  return { node, outcome: "FAIL", reason: `expected ${show(expected)}, got ${show(actual)}${why}` };
}
