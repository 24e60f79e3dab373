/**
 * TCK result summaries: counts per group as text or JSON, the list of every
 * non-PASS result, and `tck_results.csv` in the TCK's vendor format (one
 * row per test case: SUCCESS when all its result nodes pass, IGNORED when
 * none fails but one is unsupported, ERROR otherwise).
 *
 * @module
 */
import type { TckResult } from "./runner.ts";

/** Counts of one group (or of everything). */
export interface Counts {
  /** Results that matched. */
  pass: number;
  /** Results that did not. */
  fail: number;
  /** Results the engine declared unsupported. */
  unsupported: number;
  /** All results. */
  total: number;
}

/** The JSON summary: counts per group and overall. */
export interface Summary extends Counts {
  /** Counts per group, groups sorted by name. */
  groups: Record<string, Counts>;
}

/** Counts `results` per group and overall. */
export function summarize(results: readonly TckResult[]): Summary {
  const empty = (): Counts => ({ pass: 0, fail: 0, unsupported: 0, total: 0 });
  const groups: Record<string, Counts> = {};
  const all = empty();
  for (const r of [...results].sort((a, b) => a.group.localeCompare(b.group))) {
    const g = groups[r.group] ??= empty();
    const key = r.outcome === "PASS" ? "pass" : r.outcome === "FAIL" ? "fail" : "unsupported";
    g[key]++;
    g.total++;
    all[key]++;
    all.total++;
  }
  return { groups, ...all };
}

/** The identifier of a result in reports: folder, file, case and node. */
export function resultId(r: TckResult): string {
  return `${r.folder}/${r.file}#${r.caseId}/${r.node}`;
}

/** The text report: one line per group, the total, then every non-PASS result. */
export function textReport(results: readonly TckResult[]): string {
  const s = summarize(results);
  const line = (name: string, c: Counts) =>
    `${
      name.padEnd(20)
    } pass ${c.pass}  fail ${c.fail}  unsupported ${c.unsupported}  total ${c.total}` +
    (c.total === 0 ? "" : `  (${(100 * c.pass / c.total).toFixed(2)}% pass)`);
  const lines = Object.entries(s.groups).map(([g, c]) => line(g, c));
  lines.push(line("all", s));
  const other = results.filter((r) => r.outcome !== "PASS");
  if (other.length > 0) {
    lines.push("", "not passing:");
    for (const r of other) lines.push(`${r.outcome.padEnd(11)} ${resultId(r)}: ${r.reason ?? ""}`);
  }
  return lines.join("\n") + "\n";
}

function csvField(s: string): string {
  return `"${s.replace(/"/g, '""')}"`;
}

/** `tck_results.csv`: one row per test case in the TCK's vendor format. */
export function resultsCsv(results: readonly TckResult[]): string {
  const cases = new Map<string, TckResult[]>();
  for (const r of results) {
    const key = `${r.folder}\u0000${r.file}\u0000${r.caseId}`;
    const list = cases.get(key);
    if (list === undefined) cases.set(key, [r]);
    else list.push(r);
  }
  const rows: string[] = [];
  for (const list of cases.values()) {
    const { folder, file, caseId } = list[0];
    const failed = list.filter((r) => r.outcome === "FAIL");
    const unsupported = list.filter((r) => r.outcome === "UNSUPPORTED");
    const status = failed.length > 0 ? "ERROR" : unsupported.length > 0 ? "IGNORED" : "SUCCESS";
    const comment = [...failed, ...unsupported].map((r) => `${r.node}: ${r.reason ?? ""}`).join(
      "; ",
    );
    rows.push([folder, file, caseId, status, comment].map(csvField).join(","));
  }
  return rows.join("\n") + "\n";
}
