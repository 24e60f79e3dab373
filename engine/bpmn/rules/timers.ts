/**
 * Timer definitions of executable processes must hold an ISO-8601
 * duration, date or cycle. A malformed expression and a well-formed one
 * the engine refuses (cron, calendar-month durations, zone-less dates) get
 * different codes, because they call for different fixes.
 *
 * @module
 */
import { isEvent } from "../model.ts";
import { parseTimer } from "../timer.ts";
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
      const parsed = parseTimer(d.form, d.expression.text);
      if (parsed.ok) continue;
      ctx.report(
        parsed.refusal === "malformed"
          ? "SUTRA.CONFIG.BPMN.TIMER_MALFORMED"
          : "SUTRA.CONFIG.BPMN.TIMER_UNSUPPORTED",
        `${d.form} of ${node.kind} '${node.id}': ${parsed.reason}`,
        d.expression,
        { attributes: { node: node.id, form: d.form, value: d.expression.text } },
      );
    }
  }
}
