/**
 * Loading and planning a generated 500-node process, against a bare saxes
 * parse of the same XML measured in the same run.
 *
 *     deno run -P=bench bench/bpmn_plan_bench.ts [RUNS]
 *
 * The process is a realistic mix: a q:source start, exclusive and
 * inclusive split/join segments with FEEL conditions, registered and
 * channel-call service tasks with retry policies, FEEL script tasks, timer
 * catches and boundary events, and declared variables so every FEEL path
 * is checked. Prints JSON lines: the whole `loadBpmn` (median of RUNS), the
 * in-process phases without the q: schema check (which runs libxml2 in a
 * worker and costs a roughly constant start-up), and their ratios to the
 * saxes baseline.
 *
 * @module
 */
import { SaxesParser } from "saxes";
import { loadBpmn } from "../engine/bpmn/load.ts";
import { ModelIndex } from "../engine/bpmn/model_index.ts";
import { buildPlan } from "../engine/bpmn/plan_builder.ts";
import { validateQElements } from "../engine/bpmn/q_schema.ts";
import { readBpmn } from "../engine/bpmn/reader.ts";
import { validateModel } from "../engine/bpmn/validate.ts";

const NODES = Number(Deno.env.get("BPMN_BENCH_NODES") ?? 500);
const runs = Number(Deno.args.find((a) => /^\d+$/.test(a)) ?? 15);

/** Builds a process with exactly `NODES` flow nodes. */
function generate(): { xml: string; nodes: number; flows: number } {
  const nodes: string[] = [];
  const flows: string[] = [];
  let flowId = 0;
  const flow = (from: string, to: string, condition?: string) => {
    const id = `f${flowId++}`;
    flows.push(
      condition
        ? `<sequenceFlow id="${id}" sourceRef="${from}" targetRef="${to}"><conditionExpression>${condition}</conditionExpression></sequenceFlow>`
        : `<sequenceFlow id="${id}" sourceRef="${from}" targetRef="${to}"/>`,
    );
    return id;
  };
  nodes.push(
    `<startEvent id="start"><extensionElements><q:source channel="orders" messageTypeValue="Order"><q:alias name="orderId" expression="payload.id" unique="true" onConflict="correlate"/></q:source></extensionElements></startEvent>`,
  );
  let previous = "start";
  let segment = 0;
  // Each segment adds 8 nodes; the end event makes the total exact.
  while (nodes.length + 8 + 1 <= NODES) {
    const s = segment++;
    const kind = s % 2 === 0 ? "exclusiveGateway" : "inclusiveGateway";
    nodes.push(`<${kind} id="split${s}" default="d${s}"/>`);
    flow(previous, `split${s}`);
    nodes.push(
      `<serviceTask id="score${s}" implementation="channel:scoring"><extensionElements><q:timeout duration="PT30S"/><q:retry maxAttempts="3" initialDelay="PT1S" maxDelay="PT1M"/></extensionElements></serviceTask>`,
    );
    nodes.push(`<serviceTask id="book${s}" implementation="registered:book"/>`);
    flow(`split${s}`, `score${s}`, `payload.total &gt; ${s * 10} and limit &lt; 1000`);
    flows.push(`<sequenceFlow id="d${s}" sourceRef="split${s}" targetRef="book${s}"/>`);
    nodes.push(
      `<boundaryEvent id="late${s}" attachedToRef="book${s}" cancelActivity="false"><timerEventDefinition><timeDuration>PT${
        s + 1
      }M</timeDuration></timerEventDefinition></boundaryEvent>`,
    );
    nodes.push(`<endEvent id="lateEnd${s}"/>`);
    flow(`late${s}`, `lateEnd${s}`);
    nodes.push(`<${kind} id="join${s}"/>`);
    flow(`score${s}`, `join${s}`);
    flow(`book${s}`, `join${s}`);
    nodes.push(
      `<scriptTask id="calc${s}" scriptFormat="feel"><script>sum(for l in payload.lines return l.qty * l.price) + limit</script></scriptTask>`,
    );
    flow(`join${s}`, `calc${s}`);
    nodes.push(
      `<intermediateCatchEvent id="pause${s}"><timerEventDefinition><timeCycle>R3/PT${
        s + 1
      }S</timeCycle></timerEventDefinition></intermediateCatchEvent>`,
    );
    flow(`calc${s}`, `pause${s}`);
    previous = `pause${s}`;
  }
  for (let pad = 0; nodes.length < NODES - 1; pad++) {
    nodes.push(`<task id="pad${pad}"/>`);
    flow(previous, `pad${pad}`);
    previous = `pad${pad}`;
  }
  nodes.push(`<endEvent id="end"/>`);
  flow(previous, "end");
  const xml = `<?xml version="1.0" encoding="UTF-8"?>
<definitions xmlns="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:q="urn:sutra:q:1.0" id="bench" targetNamespace="urn:bench">
  <process id="large" isExecutable="true">
    <extensionElements>
      <q:process idempotent="true"/>
      <q:variables><q:variable name="payload" type="context"/><q:variable name="limit" type="number"/></q:variables>
    </extensionElements>
    ${nodes.join("\n    ")}
    ${flows.join("\n    ")}
  </process>
</definitions>
`;
  return { xml, nodes: nodes.length, flows: flows.length };
}

function median(samples: number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

async function time(fn: () => unknown | Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

const { xml, nodes, flows } = generate();
let sink = 0;

const saxes = () => {
  const parser = new SaxesParser({ xmlns: true, position: true });
  parser.on("opentag", () => sink++);
  parser.write(xml).close();
};
const full = async () => {
  const result = await loadBpmn(xml, { uri: "bench.bpmn" });
  if (!result.ok) throw new Error(result.diagnostics.map((d) => d.message).join("\n"));
  sink += result.plan!.processes[0].nodes.length;
};
const phases = {
  read: [] as number[],
  qSchema: [] as number[],
  validate: [] as number[],
  plan: [] as number[],
};
const inProcess = async () => {
  let read!: ReturnType<typeof readBpmn>;
  phases.read.push(await time(() => read = readBpmn(xml, { uri: "bench.bpmn" })));
  const index = new ModelIndex(read.definitions!);
  phases.qSchema.push(
    await time(() => validateQElements(read.source!, read.qElements, { uri: "bench.bpmn" })),
  );
  let validation!: ReturnType<typeof validateModel>;
  phases.validate.push(
    await time(() => validation = validateModel(index, read.source!, { uri: "bench.bpmn" })),
  );
  phases.plan.push(await time(() => buildPlan(index, { compiled: validation.compiled })));
};

// Warm up every path (module compilation, JIT) before measuring.
saxes();
await full();
await inProcess();
for (const list of Object.values(phases)) list.length = 0;

const saxesMs: number[] = [];
const fullMs: number[] = [];
for (let i = 0; i < runs; i++) {
  saxesMs.push(await time(saxes));
  fullMs.push(await time(full));
  await inProcess();
}
const baseline = median(saxesMs);
const round = (n: number) => +n.toFixed(3);
const loadMs = median(fullMs);
console.log(JSON.stringify({
  bench: "bpmn.loadAndPlan",
  nodes,
  flows,
  bytes: xml.length,
  runs,
  medianMs: round(loadMs),
  maxMs: round(Math.max(...fullMs)),
  baseline: "saxes parse",
  baselineMedianMs: round(baseline),
  ratio: round(loadMs / baseline),
}));
const inProcessMs = median(phases.read) + median(phases.validate) + median(phases.plan);
console.log(JSON.stringify({
  bench: "bpmn.loadAndPlan.inProcess",
  nodes,
  readMs: round(median(phases.read)),
  validateMs: round(median(phases.validate)),
  planMs: round(median(phases.plan)),
  qSchemaWorkerMs: round(median(phases.qSchema)),
  medianMs: round(inProcessMs),
  baseline: "saxes parse",
  baselineMedianMs: round(baseline),
  ratio: round(inProcessMs / baseline),
}));
if (sink < 0) console.log(sink);
