/**
 * Reference checks: what a process names inside the package exists — the
 * template a task renders, the `.dmn`/`.srl` file a rule task or validator
 * runs, the process a call activity or `q:dispatch` case calls — and no two
 * BPMN files define one process id.
 *
 * A called element resolves across every BPMN file of the package: a plain
 * id names the package's executable process of that id (ids are unique, so
 * there is never a choice); a QName (`ns:child`) names process `child` of
 * the file whose `targetNamespace` its prefix is bound to.
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
    const processRef = (
      ref: string,
      namespace: string | undefined,
      what: string,
      at: { line: number; column: number },
    ) => {
      const why = unresolved(ctx, ref, namespace);
      if (why === undefined) return;
      out.push(diagnostic(
        "SUTRA.CONFIG.PACKAGE.PROCESS_UNKNOWN",
        `${what} calls process '${ref}', ${why}`,
        {
          source: bpmnAt(path, at),
          attributes: { process: ref, ...(namespace === undefined ? {} : { namespace }) },
        },
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
        if (node.calledElement) {
          processRef(node.calledElement, node.calledNamespace, `call activity '${node.id}'`, node);
        }
        for (const d of node.q.dispatches) {
          // q:dispatch names processes by plain id (xsd/q.xsd: NCName).
          for (const c of d.cases) {
            processRef(c.calledElement, undefined, `a q:case of '${node.id}'`, c);
          }
          if (d.default !== undefined) {
            processRef(d.default, undefined, `the q:dispatch default of '${node.id}'`, d);
          }
        }
      }
    }
  }
  return out;
}

/**
 * Why a called element (`ref`, with the namespace its prefix is bound to)
 * names no executable process of the package; undefined when it does.
 */
function unresolved(
  ctx: LintContext,
  ref: string,
  namespace: string | undefined,
): string | undefined {
  const colon = ref.indexOf(":");
  if (colon >= 0 && namespace === undefined) {
    return `whose prefix '${ref.slice(0, colon)}' is bound to no namespace there`;
  }
  const id = ref.slice(colon + 1);
  const found = ctx.processes.filter((p) =>
    p.process.id === id &&
    (namespace === undefined || p.index.definitions.targetNamespace === namespace)
  );
  if (found.length === 0) {
    return namespace === undefined
      ? "which no BPMN file of the package defines"
      : `which no BPMN file of the package with targetNamespace '${namespace}' defines`;
  }
  if (!found.some((p) => p.index.isExecutable(p.process))) {
    return `which is documentation (isExecutable="false") in ${found[0].path} and never runs`;
  }
  return undefined;
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
