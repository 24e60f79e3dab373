/**
 * Instances per second of the token executor, in memory, start to end.
 *
 *     deno run -P=bench bench/executor_bench.ts [--bpmn FILE] [--instances N] [--peer FILE]
 *
 * Line 1 runs `--bpmn` (default: the shared peer file `gateway-feel.bpmn`,
 * else the copy in `tests/fixtures/executor/`) with `amount = i % 200`.
 * Line 2 runs a generated 50-node process with a parallel split, an
 * inclusive join and a multi-instance body. With `--peer` (the path of
 * `bpmn-engine.mjs`), the peer runs in the same session and a third line
 * gives its figure and the ratio. Every instance must complete; anything
 * else fails the benchmark. Another line encodes and decodes the snapshot
 * of a finished fifty-node instance (what a durable step writes and a
 * resume reads back).
 *
 * @module
 */
import { type ExecutionPlan, loadBpmn } from "../engine/bpmn/mod.ts";
import { ManualClock } from "../engine/core/mod.ts";
import {
  decodeSnapshot,
  encodeSnapshot,
  type InstanceState,
  step,
} from "../engine/executor/mod.ts";

const args = parseArgs(Deno.args);
const instances = Number(args.get("instances") ?? 100_000);
const clock = new ManualClock("2026-01-01T00:00:00Z");

const gatewayPath = args.get("bpmn") ?? await defaultBpmn();
const gateway = await load(gatewayPath);
const sutra = await measure(gateway, instances, (i) => ({ amount: i % 200 }));
console.log(
  JSON.stringify({
    engine: "sutra",
    bench: "gateway",
    bpmn: gatewayPath,
    instances,
    instancesPerSec: sutra,
  }),
);

const fifty = await load(fiftyNodeProcess(), "fifty-node.bpmn");
if (fifty.processes[0].nodes.length !== 50) fail("the generated process must have 50 nodes");
const fiftyInstances = Math.max(1000, Math.round(instances / 10));
const fiftyRate = await measure(
  fifty,
  fiftyInstances,
  (i) => ({ amount: i % 200, items: [1, 2, 3, 4, 5] }),
);
console.log(JSON.stringify({
  engine: "sutra",
  bench: "fifty-node",
  nodes: fifty.processes[0].nodes.length,
  instances: fiftyInstances,
  instancesPerSec: fiftyRate,
}));

// Every durable step writes its instance's snapshot and every resume reads one back.
const snapshots = Math.max(5000, Math.round(instances / 2));
const snapshotRate = snapshotRoundTrips(fifty, snapshots, await finalState(fifty));
console.log(JSON.stringify({
  engine: "sutra",
  bench: "snapshot-round-trip",
  process: "fifty-node",
  snapshots,
  roundTripsPerSec: snapshotRate.perSecond,
  bytes: snapshotRate.bytes,
}));

const peer = args.get("peer");
if (peer !== undefined) {
  const out = await new Deno.Command("node", { args: [peer, args.get("peer-instances") ?? "5000"] })
    .output();
  if (!out.success) fail(`the peer failed: ${new TextDecoder().decode(out.stderr)}`);
  const line = JSON.parse(new TextDecoder().decode(out.stdout).trim().split("\n").at(-1)!);
  console.log(JSON.stringify({ ...line, ratio: Math.round(sutra / line.instancesPerSec) }));
}

async function defaultBpmn(): Promise<string> {
  const shared = new URL("../../shared/bench/peers/gateway-feel.bpmn", import.meta.url).pathname;
  try {
    await Deno.stat(shared);
    return shared;
  } catch {
    return new URL("../tests/fixtures/executor/gateway_feel.bpmn", import.meta.url).pathname;
  }
}

async function load(source: string, uri = source): Promise<ExecutionPlan> {
  const bytes = source.startsWith("<")
    ? new TextEncoder().encode(source)
    : await Deno.readFile(source);
  const r = await loadBpmn(bytes, { uri });
  if (!r.ok) {
    fail(
      `${uri} does not load:\n${
        r.diagnostics.map((d) => `  ${d.code} line ${d.source?.line}: ${d.message}`).join("\n")
      }`,
    );
  }
  return r.plan!;
}

/** The state a fifty-node instance ends in: every variable and record a snapshot carries. */
async function finalState(plan: ExecutionPlan): Promise<InstanceState> {
  const r = await step(plan, undefined, {
    type: "start",
    instanceId: "bench",
    variables: { amount: 7, items: [1, 2, 3, 4, 5] },
  }, { clock });
  if (!r.state) fail(`the instance did not run: ${r.refusal?.message}`);
  return r.state;
}

/** Encodes `state` and decodes it again `n` times; the rate and the snapshot's size. */
function snapshotRoundTrips(
  plan: ExecutionPlan,
  n: number,
  state: InstanceState,
): { perSecond: number; bytes: number } {
  const once = () => {
    const bytes = encodeSnapshot(plan, state);
    const back = decodeSnapshot(plan, bytes);
    if (!back.state) fail(`the snapshot does not read back: ${back.diagnostics[0].message}`);
    return bytes.length;
  };
  for (let i = 0; i < Math.min(n, 2000); i++) once();
  const t0 = performance.now();
  let bytes = 0;
  for (let i = 0; i < n; i++) bytes = once();
  return { perSecond: Math.round(n / ((performance.now() - t0) / 1000)), bytes };
}

async function measure(
  plan: ExecutionPlan,
  n: number,
  variables: (i: number) => Record<string, unknown>,
): Promise<number> {
  const run = async (count: number) => {
    for (let i = 0; i < count; i++) {
      const r = await step(plan, undefined, {
        type: "start",
        instanceId: "bench",
        variables: variables(i),
      }, { clock });
      if (r.state?.status !== "COMPLETED") {
        fail(
          `instance ${i} ended ${r.state?.status}: ${
            r.state?.failure?.message ?? r.refusal?.message
          }`,
        );
      }
    }
  };
  await run(Math.min(n, 5000));
  const t0 = performance.now();
  await run(n);
  return Math.round(n / ((performance.now() - t0) / 1000));
}

/**
 * A 50-node process: start, a parallel split into three branches (a chain
 * of FEEL script tasks; a chain of exclusive gateways and tasks; a
 * multi-instance body over `items` followed by tasks), an inclusive join,
 * then a tail of tasks and the end.
 */
function fiftyNodeProcess(): string {
  const nodes: string[] = [];
  const flows: string[] = [];
  let f = 0;
  const flow = (from: string, to: string, condition?: string) => {
    const body = condition
      ? `<bpmn:conditionExpression>${condition}</bpmn:conditionExpression>`
      : "";
    flows.push(
      `<bpmn:sequenceFlow id="f${++f}" sourceRef="${from}" targetRef="${to}">${body}</bpmn:sequenceFlow>`,
    );
    return `f${f}`;
  };
  const chain = (from: string, ids: string[], make: (id: string) => string) => {
    let prev = from;
    for (const id of ids) {
      nodes.push(make(id));
      flow(prev, id);
      prev = id;
    }
    return prev;
  };
  const range = (prefix: string, n: number) =>
    Array.from({ length: n }, (_, i) => `${prefix}${i + 1}`);
  const script = (v: string) => (id: string) =>
    `<bpmn:scriptTask id="${id}" scriptFormat="feel"><bpmn:script>{${v}: ${v} + 1}</bpmn:script></bpmn:scriptTask>`;

  nodes.push(
    `<bpmn:startEvent id="start"/>`,
    `<bpmn:parallelGateway id="split"/>`,
    `<bpmn:inclusiveGateway id="join"/>`,
  );
  flow("start", "split");
  // Branch A: FEEL script tasks.
  nodes.push(
    `<bpmn:scriptTask id="a0" scriptFormat="feel"><bpmn:script>{a: 0}</bpmn:script></bpmn:scriptTask>`,
  );
  flow("split", "a0");
  flow(chain("a0", range("a", 11), script("a")), "join");
  // Branch B: exclusive gateways routing on amount, each to a task.
  let prev = "split";
  for (const id of range("b", 6)) {
    nodes.push(`<bpmn:exclusiveGateway id="${id}g" default="${id}d"/>`, `<bpmn:task id="${id}"/>`);
    flow(prev, `${id}g`);
    flows.push(`<bpmn:sequenceFlow id="${id}d" sourceRef="${id}g" targetRef="${id}"/>`);
    flow(`${id}g`, id, "amount &gt; 1000");
    prev = id;
  }
  flow(prev, "join");
  // Branch C: a multi-instance body over items, then tasks.
  nodes.push(
    `<bpmn:scriptTask id="mi" scriptFormat="feel"><bpmn:multiInstanceLoopCharacteristics>` +
      `<bpmn:loopDataInputRef>items</bpmn:loopDataInputRef>` +
      `<bpmn:inputDataItem id="item" name="item"/></bpmn:multiInstanceLoopCharacteristics>` +
      `<bpmn:script>{last: item * 2}</bpmn:script></bpmn:scriptTask>`,
  );
  flow("split", "mi");
  flow(chain("mi", range("c", 10), (id) => `<bpmn:task id="${id}"/>`), "join");
  // Tail.
  const tail = chain("join", range("t", 11), (id) => `<bpmn:task id="${id}"/>`);
  nodes.push(`<bpmn:endEvent id="end"/>`);
  flow(tail, "end");
  return `<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" id="fifty-definitions" targetNamespace="urn:bench">
<bpmn:process id="fifty" isExecutable="true"><bpmn:dataObject id="items" name="items"/>${
    nodes.join("\n")
  }${flows.join("\n")}</bpmn:process>
</bpmn:definitions>`;
}

function parseArgs(argv: readonly string[]): Map<string, string> {
  const out = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    if (!argv[i].startsWith("--")) fail(`unexpected argument '${argv[i]}'`);
    out.set(argv[i].slice(2), argv[++i] ?? fail(`${argv[i - 1]} needs a value`));
  }
  return out;
}

function fail(message: string): never {
  console.error(message);
  Deno.exit(1);
}
