/**
 * Reference checks: what a process names inside the package exists — the
 * template a task renders, the `.dmn`/`.srl` file a rule task or validator
 * runs, the process a call activity or `q:dispatch` case calls — and no two
 * BPMN files define one process id.
 *
 * @module
 */
import { implementationOf } from "../../bpmn/mod.ts";
import { type Diagnostic, diagnostic } from "../../core/diagnostic.ts";
import type { Artifact } from "../layout.ts";
import { bpmnAt, type LintContext } from "./context.ts";

/** The URN prefix a template may be named by instead of its key. */
const TEMPLATE_URN_PREFIX = "urn:sutra:template:";

/** Runs the reference checks. */
export function lintReferences(ctx: LintContext): Diagnostic[] {
  const out: Diagnostic[] = [];
  const layout = ctx.pkg.layout;
  const templates = templateNames([...layout.templates, ...layout.scripts]);
  const rules = new Set([...layout.decisions, ...layout.rulesets].map((a) => a.key));
  const seen = new Map<string, string>();

  for (const { process, index, path } of ctx.processes) {
    if (!index.isExecutable(process)) continue;
    const firstPath = seen.get(process.id);
    if (firstPath !== undefined) {
      out.push(diagnostic(
        "SUTRA.CONFIG.PACKAGE.PROCESS_DUPLICATE",
        `process '${process.id}' is defined in ${firstPath} and again here; process ids are ` +
          "unique within a package",
        { source: bpmnAt(path, process), attributes: { process: process.id } },
      ));
    } else {
      seen.set(process.id, path);
    }
    const ruleRef = (source: string, what: string, at: { line: number; column: number }) => {
      if (rules.has(source)) return;
      out.push(diagnostic(
        "SUTRA.CONFIG.PACKAGE.RULE_UNKNOWN",
        `${what} runs '${source}', which is not a file under rules/`,
        { source: bpmnAt(path, at), attributes: { rule: source } },
      ));
    };
    const processRef = (id: string, what: string, at: { line: number; column: number }) => {
      if (ctx.processById.has(id)) return;
      out.push(diagnostic(
        "SUTRA.CONFIG.PACKAGE.PROCESS_UNKNOWN",
        `${what} calls process '${id}', which no BPMN file of the package defines`,
        { source: bpmnAt(path, at), attributes: { process: id } },
      ));
    };
    for (const { node } of index.nodesOf(process)) {
      const implementation = implementationOf(node);
      if (implementation?.kind === "template" && !templates.has(implementation.template)) {
        out.push(diagnostic(
          "SUTRA.CONFIG.PACKAGE.TEMPLATE_UNKNOWN",
          `task '${node.id}' renders '${implementation.template}', which is not a template under ` +
            "templates/ or scripts/",
          { source: bpmnAt(path, node), attributes: { template: implementation.template } },
        ));
      }
      if (implementation?.kind === "decision") {
        ruleRef(implementation.source, `task '${node.id}'`, node);
        const decision = implementation.decision;
        if (decision !== undefined && !decisionExists(ctx, implementation.source, decision)) {
          out.push(diagnostic(
            "SUTRA.CONFIG.PACKAGE.DECISION_UNKNOWN",
            `task '${node.id}' evaluates decision '${decision}', which rules/${implementation.source} ` +
              "does not define (by id or name)",
            { source: bpmnAt(path, node), attributes: { rule: implementation.source, decision } },
          ));
        }
      }
      for (const s of node.q.sources) {
        for (const v of s.validators) {
          if (v.kind === "complex" && /\.(dmn|srl)$/i.test(v.source)) {
            ruleRef(v.source, `a validator of '${node.id}'`, v);
          }
        }
      }
      if (node.kind === "callActivity") {
        if (node.calledElement) processRef(node.calledElement, `call activity '${node.id}'`, node);
        for (const d of node.q.dispatches) {
          for (const c of d.cases) processRef(c.calledElement, `a q:case of '${node.id}'`, c);
          if (d.default !== undefined) {
            processRef(d.default, `the q:dispatch default of '${node.id}'`, d);
          }
        }
      }
    }
  }
  return out;
}

/**
 * True when the model loaded from `rules/<source>` has a decision with that
 * id or name, or when the file is not a loaded DMN model (its own load
 * findings, or RULE_UNKNOWN, already say why).
 */
function decisionExists(ctx: LintContext, source: string, decision: string): boolean {
  const model = ctx.pkg.decisions?.models.find((m) => m.uri === `rules/${source}`);
  if (model === undefined) return true;
  return model.elements.some((e) =>
    e.kind === "decision" && (e.id === decision || e.name === decision)
  );
}

/** Every name a template can be referenced by: its key, and its URN. */
function templateNames(artifacts: readonly Artifact[]): Set<string> {
  const names = new Set<string>();
  for (const a of artifacts) {
    names.add(a.key);
    names.add(TEMPLATE_URN_PREFIX + a.key.replace(/\.[^./]+$/, "").replaceAll("/", ":"));
  }
  return names;
}
