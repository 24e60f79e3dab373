/**
 * Coverage checks: declared routes need the reserved `coverage` store to be
 * recorded in, and every cross-process route in a coverage file must be
 * able to complete — its processes, nodes and flows exist, each segment is
 * a contiguous walk, each link is a real channel hop from a sending node to
 * a consuming one, and the correlation key is sent as a header on one end
 * and read back as an alias on the other.
 *
 * @module
 */
import { implementationOf } from "../../bpmn/mod.ts";
import { type Diagnostic, diagnostic } from "../../core/diagnostic.ts";
import type { YamlFile, YamlPath } from "../_yaml.ts";
import type { CoverageCorrelation, CoverageLink, NodeRef } from "../coverage_yaml.ts";
import { COVERAGE_STORE } from "../datastores_yaml.ts";
import { DATASTORES_YAML } from "../layout.ts";
import type { LoadedCoverage } from "../load.ts";
import { bpmnAt, type LintContext, type PackageProcess } from "./context.ts";

/** Runs the coverage checks. */
export function lintCoverage(ctx: LintContext): Diagnostic[] {
  const out = storeMissing(ctx);
  for (const loaded of ctx.pkg.coverage) {
    if (loaded.coverage && loaded.file) out.push(...coverageFile(ctx, loaded, loaded.file));
  }
  return out;
}

function storeMissing(ctx: LintContext): Diagnostic[] {
  const stores = ctx.pkg.stores.entries;
  if (stores === undefined || stores.some((s) => s.name === COVERAGE_STORE)) return [];
  const message = (what: string) =>
    `${what}, but ${DATASTORES_YAML} declares no '${COVERAGE_STORE}' store to record the marks ` +
    `in; declare one (name: ${COVERAGE_STORE}, type: sql, with an sql.url-ref and no migrations)`;
  const out: Diagnostic[] = [];
  for (const { process, index, path } of ctx.processes) {
    const first = process.q.coverage[0];
    if (first === undefined || !index.isExecutable(process)) continue;
    out.push(diagnostic(
      "SUTRA.CONFIG.COVERAGE.STORE_MISSING",
      message(`process '${process.id}' declares coverage paths`),
      { source: bpmnAt(path, first), attributes: { process: process.id } },
    ));
  }
  for (const { artifact } of ctx.pkg.coverage) {
    out.push(diagnostic(
      "SUTRA.CONFIG.COVERAGE.STORE_MISSING",
      message(`${artifact.path} declares cross-process routes`),
      { source: { uri: artifact.path }, attributes: { coverage: artifact.urn } },
    ));
  }
  return out;
}

function coverageFile(ctx: LintContext, loaded: LoadedCoverage, file: YamlFile): Diagnostic[] {
  const out: Diagnostic[] = [];
  const report = (code: string, path: YamlPath, message: string) =>
    out.push(diagnostic(code, message, {
      source: file.locate(path),
      attributes: { coverage: loaded.artifact.urn },
    }));
  const paths = new Set<string>();
  for (const c of loaded.coverage!.correlations) {
    const base: YamlPath = ["correlations", c.index];
    for (const route of c.coverages) {
      const at: YamlPath = [...base, "coverages", route.index];
      if (paths.has(route.path)) {
        report(
          "SUTRA.CONFIG.COVERAGE.PATH_DUPLICATE",
          [...at, "path"],
          `route '${route.path}' is declared twice`,
        );
      }
      paths.add(route.path);
      for (const [processId, flows] of route.segments) {
        const segmentAt: YamlPath = [...at, "segments", processId];
        const p = ctx.processById.get(processId);
        if (!p) {
          report(
            "SUTRA.CONFIG.COVERAGE.PROCESS_UNKNOWN",
            segmentAt,
            `route '${route.path}' has a segment for process '${processId}', which no BPMN file of the package defines`,
          );
          continue;
        }
        checkSegment(p, flows, (k, code, message) => report(code, [...segmentAt, k], message));
      }
    }
    for (const link of c.links) {
      checkLink(
        ctx,
        c,
        link,
        (code, field, message) =>
          report(code, [...base, "links", link.index, ...(field ? [field] : [])], message),
      );
    }
  }
  return out;
}

function checkSegment(
  p: PackageProcess,
  flows: readonly string[],
  report: (k: number, code: string, message: string) => void,
): void {
  let previous: { id: string; targetRef: string } | undefined;
  flows.forEach((id, k) => {
    const entry = p.index.flows.get(id);
    if (!entry || entry.container.process !== p.process) {
      report(
        k,
        "SUTRA.CONFIG.COVERAGE.FLOW_UNKNOWN",
        `process '${p.process.id}' has no sequence flow '${id}'`,
      );
      previous = undefined;
      return;
    }
    if (previous && previous.targetRef !== entry.flow.sourceRef) {
      report(
        k,
        "SUTRA.CONFIG.COVERAGE.NOT_CONTIGUOUS",
        `in process '${p.process.id}', '${previous.id}' ends at '${previous.targetRef}' but the next ` +
          `flow '${id}' starts at '${entry.flow.sourceRef}'`,
      );
    }
    previous = { id, targetRef: entry.flow.targetRef };
  });
}

function checkLink(
  ctx: LintContext,
  correlation: CoverageCorrelation,
  link: CoverageLink,
  report: (code: string, field: "from" | "to" | "key" | undefined, message: string) => void,
): void {
  const resolve = (ref: NodeRef, field: "from" | "to") => {
    const p = ctx.processById.get(ref.process);
    if (!p) {
      report(
        "SUTRA.CONFIG.COVERAGE.PROCESS_UNKNOWN",
        field,
        `link ${field} names process '${ref.process}', which no BPMN file of the package defines`,
      );
      return undefined;
    }
    const entry = p.index.nodes.get(ref.node);
    if (!entry || entry.container.process !== p.process) {
      report(
        "SUTRA.CONFIG.COVERAGE.NODE_UNKNOWN",
        field,
        `process '${ref.process}' has no node '${ref.node}'`,
      );
      return undefined;
    }
    return entry.node;
  };
  const from = resolve(link.from, "from");
  const to = resolve(link.to, "to");
  if (!from || !to) return;
  const implementation = implementationOf(from);
  const sent = new Set([
    ...from.q.sends.flatMap((s) => (s.channel === undefined ? [] : [s.channel])),
    ...(implementation?.kind === "channel-call" ? [implementation.channel] : []),
  ]);
  const sources = to.q.sources.filter((s) => sent.has(s.channel));
  const hop = `${link.from.process}:${link.from.node} → ${link.to.process}:${link.to.node}`;
  if (sources.length === 0) {
    report(
      "SUTRA.CONFIG.COVERAGE.LINK_UNWIRED",
      undefined,
      `link ${hop} is not a channel hop: the sender emits on ${
        sent.size > 0 ? [...sent].map((c) => `'${c}'`).join(", ") : "no channel"
      } and the receiver consumes ${
        to.q.sources.length > 0
          ? to.q.sources.map((s) => `'${s.channel}'`).join(", ")
          : "no channel"
      }`,
    );
    return;
  }
  const key = link.key ?? correlation.key;
  const headers = [...from.q.sends, ...from.q.replies].flatMap((s) => s.headers.map((h) => h.name));
  const aliases = [...sources.flatMap((s) => s.aliases), ...to.q.aliases].map((a) => a.name);
  const missing = [
    ...(headers.includes(key) ? [] : [`'${link.from.node}' sets no q:header '${key}'`]),
    ...(aliases.includes(key) ? [] : [`'${link.to.node}' reads no q:alias '${key}'`]),
  ];
  if (missing.length > 0) {
    report(
      "SUTRA.CONFIG.COVERAGE.KEY_UNRESOLVED",
      link.key === undefined ? undefined : "key",
      `the correlation key '${key}' does not cross link ${hop}: ${missing.join(" and ")}`,
    );
  }
}
