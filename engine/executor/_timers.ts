/**
 * When timers come due. All instants are epoch milliseconds and derive from
 * the step's single clock reading, so a step is reproducible.
 *
 * @module
 */
import type { TimerSpec } from "../bpmn/mod.ts";

/** The first due instant of a timer armed at `now`. */
export function firstDue(spec: TimerSpec, now: number): number {
  switch (spec.kind) {
    case "duration":
      return now + spec.millis;
    case "date":
      return spec.epochMillis;
    case "cycle":
      return spec.startEpochMillis ?? now + spec.intervalMillis;
  }
}

/**
 * The next occurrence of a cycle after the one due at `due` (the
 * `fired`-th), or undefined when the cycle is spent. Non-cycles never
 * repeat. Occurrences keep to the cycle's own grid, so a late firing does
 * not shift later ones.
 */
export function nextDue(spec: TimerSpec, due: number, fired: number): number | undefined {
  if (spec.kind !== "cycle") return undefined;
  if (spec.repetitions !== null && fired >= spec.repetitions) return undefined;
  const next = due + spec.intervalMillis;
  if (spec.endEpochMillis !== undefined && next > spec.endEpochMillis) return undefined;
  return next;
}
