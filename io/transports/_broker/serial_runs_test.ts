import assert from "node:assert/strict";
import { SerialRuns } from "./serial_runs.ts";

/** Polls `condition` every few milliseconds until it holds. */
async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 2));
}

/** Runs that record their start and end in `events`, winding down `windDown` after the abort. */
function runsOf(events: string[], windDown: { release?: () => void }): SerialRuns {
  let n = 0;
  return new SerialRuns(async (signal) => {
    const id = ++n;
    events.push(`start ${id} (aborted: ${signal.aborted})`);
    await new Promise<void>((resolve) => {
      signal.addEventListener("abort", () => {
        windDown.release = resolve;
      }, { once: true });
    });
    events.push(`end ${id}`);
  });
}

Deno.test("SerialRuns: a start during a stop begins only once the stopped run ended", async () => {
  const events: string[] = [];
  const windDown: { release?: () => void } = {};
  const runs = runsOf(events, windDown);
  runs.start();
  runs.start();
  await until(() => events.length === 1);
  const stopped = runs.stop();
  runs.start();
  await until(() => windDown.release !== undefined);
  assert.deepEqual(events, ["start 1 (aborted: false)"]);
  windDown.release!();
  await stopped;
  await until(() => events.length === 3);
  assert.deepEqual(events, ["start 1 (aborted: false)", "end 1", "start 2 (aborted: false)"]);
});

Deno.test("SerialRuns: a stop while none runs waits for the last run's end", async () => {
  const events: string[] = [];
  const windDown: { release?: () => void } = {};
  const runs = runsOf(events, windDown);
  runs.start();
  await until(() => events.length === 1);
  const first = runs.stop();
  let second = false;
  const again = runs.stop().then(() => second = true);
  await until(() => windDown.release !== undefined);
  assert.equal(second, false);
  windDown.release!();
  await Promise.all([first, again]);
  assert.deepEqual(events, ["start 1 (aborted: false)", "end 1"]);
});
