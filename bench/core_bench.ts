/**
 * engine/core hot paths against their physical baseline in the same run:
 * id generation vs `crypto.randomUUID()`, and a filtered-in log record vs a
 * bare `JSON.stringify` of the same fields. Prints one JSON line per case.
 *
 * @module
 */
import { newId } from "../engine/core/ids.ts";
import { createLogger } from "../engine/core/log.ts";

function rate(iterations: number, fn: () => void): number {
  for (let i = 0; i < Math.min(iterations, 10_000); i++) fn();
  const t0 = performance.now();
  for (let i = 0; i < iterations; i++) fn();
  return Math.round(iterations / ((performance.now() - t0) / 1000));
}

const iterations = Number(Deno.args.find((a) => /^\d+$/.test(a)) ?? 200_000);
let sink = 0;

const ids = rate(iterations, () => {
  sink += newId().length;
});
const uuids = rate(iterations, () => {
  sink += crypto.randomUUID().length;
});
console.log(
  JSON.stringify({
    bench: "core.newId",
    opsPerSec: ids,
    baseline: "crypto.randomUUID",
    baselineOpsPerSec: uuids,
    ratio: +(ids / uuids).toFixed(2),
  }),
);

const logger = createLogger("bench", { write: (l) => (sink += l.length) });
const logs = rate(iterations, () => logger.info("delivered", { instanceId: "i-1", attempt: 2 }));
const raw = rate(iterations, () => {
  sink += JSON.stringify({
    timestamp: new Date().toISOString(),
    level: "INFO",
    loggerName: "bench",
    message: "delivered",
    "service.name": "sutra-engine",
    instanceId: "i-1",
    attempt: 2,
  }).length;
});
console.log(
  JSON.stringify({
    bench: "core.log.info",
    opsPerSec: logs,
    baseline: "JSON.stringify",
    baselineOpsPerSec: raw,
    ratio: +(logs / raw).toFixed(2),
  }),
);

const filtered = rate(iterations, () => logger.debug("hidden", { instanceId: "i-1" }));
console.log(JSON.stringify({ bench: "core.log.filtered-out", opsPerSec: filtered }));
if (sink < 0) console.log(sink);
