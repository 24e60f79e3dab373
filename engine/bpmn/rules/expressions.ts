/**
 * Every expression must be FEEL and must compile; a FEEL error points at
 * its own line and column in the file. Compiled expressions are kept for
 * the planner. Non-executable processes are documentation and are skipped.
 *
 * @module
 */
import { compile } from "../../../lang/feel/mod.ts";
import type { ExpressionSite } from "../expression_sites.ts";
import { isTask } from "../model.ts";
import type { RuleContext } from "./context.ts";

const HEADER_NAME = /\bheader\.([A-Za-z_][\w-]*)/g;

/** True when a language URI or script format names FEEL (or none was named). */
export function isFeel(language: string | undefined): boolean {
  return language === undefined || language === "" || /feel/i.test(language);
}

function checkLanguage(ctx: RuleContext, site: ExpressionSite): boolean {
  const language = site.expression.language ?? ctx.index.definitions.expressionLanguage;
  if (site.role !== "script" && !isFeel(language)) {
    ctx.report(
      "SUTRA.CONFIG.BPMN.EXPRESSION_LANGUAGE_UNSUPPORTED",
      `expressions are FEEL; '${language}' is not supported`,
      site.expression,
      { attributes: { language: language ?? "", role: site.role } },
    );
    return false;
  }
  const node = site.node;
  if (site.role === "script" && node && isTask(node) && !isFeel(node.scriptFormat)) {
    ctx.report(
      "SUTRA.CONFIG.BPMN.SCRIPT_FORMAT_UNSUPPORTED",
      `script tasks run FEEL; scriptFormat '${node.scriptFormat}' is not supported`,
      node,
      { attributes: { scriptFormat: node.scriptFormat ?? "", node: node.id } },
    );
    return false;
  }
  return true;
}

/** Compiles every expression of every executable process, reporting each failure. */
export function checkExpressions(ctx: RuleContext): void {
  for (const site of ctx.sites) {
    if (!ctx.executable(site.process)) continue;
    const { expression } = site;
    // An empty required q: attribute is the schema check's finding.
    if (expression.text === "") {
      if (site.role === "condition" || site.role === "script") {
        ctx.report(
          "SUTRA.CONFIG.BPMN.EXPRESSION_EMPTY",
          site.role === "condition" ? "the condition expression is empty" : "the script is empty",
          expression,
          { attributes: { role: site.role } },
        );
      }
      continue;
    }
    if (!checkLanguage(ctx, site)) continue;
    const names = [...expression.text.matchAll(HEADER_NAME)].map((m) => m[1]);
    const result = compile(expression.text, { names });
    if (result.diagnostics) {
      for (const d of result.diagnostics) {
        ctx.reportInExpression(
          expression,
          d.source?.offset ?? 0,
          "SUTRA.CONFIG.BPMN.FEEL_SYNTAX",
          `${site.role} '${expression.text}': ${
            d.message.replace(/ \(line \d+, column \d+\)$/, "")
          }`,
          { attributes: { role: site.role, feelCode: d.code } },
        );
      }
      continue;
    }
    if (site.isTarget && !isPathTarget(result.compiled.paths, expression.text)) {
      ctx.report(
        "SUTRA.CONFIG.BPMN.ASSIGNMENT_TARGET_INVALID",
        `an assignment target must be a variable or a path such as a.b, not '${expression.text}'`,
        expression,
      );
      continue;
    }
    ctx.compiled.set(expression, result.compiled);
  }
}

function isPathTarget(paths: readonly string[], text: string): boolean {
  return paths.length === 1 && paths[0] === text.replace(/\s*\.\s*/g, ".");
}
