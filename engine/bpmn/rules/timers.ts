/**
 * Timer definitions of executable processes must hold an ISO-8601
 * duration, date or cycle, or a FEEL expression (`=…`). A malformed literal
 * and a well-formed one the engine refuses (cron, calendar-month durations,
 * zone-less dates) get different codes, because they call for different
 * fixes. A FEEL timer is compiled and checked with every other expression
 * (it is an expression site); its value is checked when the timer is armed.
 * A Camunda 7 JUEL timer (`${…}`) is refused as a foreign expression
 * language, naming the FEEL form to write instead. A process's timer start
 * event (a schedule) has no variables to read, so its expression can only
 * give one value: it is evaluated here, and a value that is no timer is
 * refused as the same literal would be.
 *
 * @module
 */
import { evaluate, formatFeel } from "../../../lang/feel/mod.ts";
import { type EventNode, isEvent, type TimerForm } from "../model.ts";
import type { ContainerEntry } from "../model_index.ts";
import {
  isTimerExpression,
  juelTimerHint,
  parseTimer,
  timerFromValue,
  type TimerParse,
} from "../timer.ts";
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
          continue;
        }
        const scheduled = isSchedule(node, container) ? scheduleValue(d.form, text) : undefined;
        if (scheduled && !scheduled.parsed.ok) {
          ctx.report(
            scheduled.parsed.refusal === "malformed"
              ? "SUTRA.CONFIG.BPMN.TIMER_MALFORMED"
              : "SUTRA.CONFIG.BPMN.TIMER_UNSUPPORTED",
            `${d.form} of ${node.kind} '${node.id}' (a schedule, evaluated with no variables) ` +
              `gives ${scheduled.value}: ${scheduled.parsed.reason}`,
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

/** A start event of the process itself, not of an event sub-process: a schedule. */
function isSchedule(node: EventNode, container: ContainerEntry): boolean {
  return node.kind === "startEvent" && container.owner === undefined;
}

/**
 * What a schedule's expression gives, read as its form; undefined when it
 * does not compile (the expression rule reports that).
 */
function scheduleValue(
  form: TimerForm,
  text: string,
): { readonly value: string; readonly parsed: TimerParse } | undefined {
  const r = evaluate(text.slice(1));
  if (r.diagnostics !== undefined) return undefined;
  return { value: formatFeel(r.value), parsed: timerFromValue(form, r.value) };
}
