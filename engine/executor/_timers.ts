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

/** The slot a fire at `now` stands for, and the next one after it. */
export interface Coalesced {
  /** Grid index (1-based) of the slot fired: every slot up to it is spent. */
  readonly slot: number;
  /** The next slot's due instant; undefined when the grid is spent. */
  readonly next?: number;
}

/**
 * Coalesces the slots due by `now`, starting at the slot due at `due`
 * (grid index `slots + 1`): one fire covers all of them, and the next due
 * instant is the first slot after `now`.
 */
export function coalesce(spec: TimerSpec, due: number, slots: number, now: number): Coalesced {
  let at = due;
  let slot = slots + 1;
  for (;;) {
    const next = nextDue(spec, at, slot);
    if (next === undefined || next > now) return next === undefined ? { slot } : { slot, next };
    at = next;
    slot++;
  }
}
