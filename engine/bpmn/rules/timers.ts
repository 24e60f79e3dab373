/**
 * Timer definitions of executable processes must hold an ISO-8601
 * duration, date or cycle, or a FEEL expression (`=…`). A malformed literal
 * and a well-formed one the engine refuses (cron, calendar-month durations,
 * zone-less dates) get different codes, because they call for different
 * fixes. A FEEL timer is compiled and checked with every other expression
 * (it is an expression site); its value is checked when the timer is armed.
 * A Camunda 7 JUEL timer (`${…}`) is refused as a foreign expression
 * language, naming the FEEL form to write instead.
 *
 * @module
 */
import { isEvent } from "../model.ts";
import { isTimerExpression, juelTimerHint, parseTimer } from "../timer.ts";
import type { RuleContext } from "./context.ts";

/** Checks every timer event definition. */
export function checkTimers(ctx: RuleContext): void {
  for (const { node, container } of ctx.index.nodes.values()) {
    if (!isEvent(node) || !ctx.executable(container.process)) continue;
    for (const d of node.definitions) {
      if (d.type !== "timer") continue;
      if (!d.form || !d.expression || d.expression.text === "") {
        ctx.report(
          "SUTRA.CONFIG.BPMN.TIMER_MISSING",
          `timer on ${node.kind} '${node.id}' has no timeDate, timeDuration or timeCycle value`,
          d,
          { attributes: { node: node.id } },
        );
        continue;
      }
      const text = d.expression.text;
      const attributes = { node: node.id, form: d.form, value: text };
      if (isTimerExpression(text)) {
        if (text.slice(1).trim() === "") {
          ctx.report(
            "SUTRA.CONFIG.BPMN.TIMER_MISSING",
            `${d.form} of ${node.kind} '${node.id}' is '=' with no FEEL expression after it`,
            d.expression,
            { attributes },
          );
        }
        continue;
      }
      const hint = juelTimerHint(text);
      if (hint !== undefined) {
        ctx.report(
          "SUTRA.CONFIG.BPMN.EXPRESSION_LANGUAGE_UNSUPPORTED",
          `${d.form} of ${node.kind} '${node.id}': '${text}' is a JUEL expression, which the ` +
            `engine does not evaluate; timer expressions are FEEL, written after '=': ${hint}`,
          d.expression,
          { attributes: { ...attributes, language: "JUEL", role: "timer", suggestion: hint } },
        );
        continue;
      }
      const parsed = parseTimer(d.form, text);
      if (parsed.ok) continue;
      ctx.report(
        parsed.refusal === "malformed"
          ? "SUTRA.CONFIG.BPMN.TIMER_MALFORMED"
          : "SUTRA.CONFIG.BPMN.TIMER_UNSUPPORTED",
        `${d.form} of ${node.kind} '${node.id}': ${parsed.reason}`,
        d.expression,
        { attributes },
      );
    }
  }
}
