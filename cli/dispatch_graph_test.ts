import assert from "node:assert/strict";
import { captureIo } from "../tests/support/cli_io.ts";
import { UsageError } from "./command.ts";
import { dispatchGraphCommand } from "./dispatch_graph.ts";

const FIXTURES = new URL("../tests/fixtures/bpmn/", import.meta.url).pathname;

async function run(...args: string[]): Promise<string> {
  const c = captureIo();
  assert.equal(await dispatchGraphCommand.run(args, c.io), 0);
  return c.out();
}

Deno.test("mermaid: flows, channel sources, sub-process content and escaped conditions", async () => {
  const text = await run(`${FIXTURES}transfer.bpmn`, "--format", "mermaid");
  const lines = text.split("\n");
  assert.equal(lines[0], "flowchart LR");
  const key = (label: string) =>
    lines.find((l) => l.includes(`"${label}"`))!.trim().match(/^(n\d+)/)![1];
  const tx = lines.find((l) => l.endsWith('[["Transfer"]]'))!.trim().slice(0, -14);
  const [start, channel, valid, decide] = [
    key("HTTP intake"),
    key("channel transfer-request"),
    key("X Valid?"),
    key("DecideReason"),
  ];
  assert.ok(lines.includes(`  ${channel} -.->|"TransferRequest"| ${start}`));
  assert.ok(lines.includes(`  ${start} --> ${tx}`));
  assert.ok(lines.includes(`    ${tx}[["Transfer"]]`));
  assert.ok(
    lines.includes(
      `  ${valid} -->|"fromAccount.frozen or fromAccount.balance #lt; payload.amount"| ${decide}`,
    ),
  );
  assert.ok(lines.some((l) => /^\s+n\d+\(\(\("End"\)\)\)$/.test(l)));
  assert.ok(lines.some((l) => /-->\|"default"\|/.test(l)));
});

Deno.test("dot: clusters per process and sub-process, dashed routing edges, quoted labels", async () => {
  const text = await run(`${FIXTURES}plan.bpmn`, "--format", "dot");
  assert.match(text, /^digraph dispatch \{\n {2}rankdir=LR;/);
  assert.match(text, /subgraph cluster_n\d+ \{\n {4}label="orders";/);
  assert.match(text, /-> n\d+ \[label="payload\.region = \\"EU\\"", style=dashed\];/);
  assert.match(text, /\[label="channel cancellations", shape=parallelogram\];/);
  assert.match(text, /\[label="send", style=dashed\];/);
  assert.equal(text.trimEnd().at(-1), "}");
});

Deno.test("dispatch-graph needs --format dot or mermaid", async () => {
  const { io } = captureIo();
  await assert.rejects(
    () => dispatchGraphCommand.run([`${FIXTURES}transfer.bpmn`], io),
    UsageError,
  );
  await assert.rejects(
    () => dispatchGraphCommand.run([`${FIXTURES}transfer.bpmn`, "--format", "svg"], io),
    UsageError,
  );
});
