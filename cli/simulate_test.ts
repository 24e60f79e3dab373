import assert from "node:assert/strict";
import { captureIo } from "../tests/support/cli_io.ts";
import { UsageError } from "./command.ts";
import { simulateCommand } from "./simulate.ts";

const FIXTURES = new URL("../tests/fixtures/bpmn/", import.meta.url).pathname;

async function run(...args: string[]) {
  const c = captureIo();
  const code = await simulateCommand.run(args, c.io);
  return { code, out: c.out(), err: c.err() };
}

Deno.test("simulate names the process and start event a channel routes to", async () => {
  const r = await run(`${FIXTURES}transfer.bpmn`, "--channel", "transfer-request", "--dry-run");
  assert.equal(r.code, 0);
  assert.equal(
    r.out,
    `channel 'transfer-request' (${FIXTURES}transfer.bpmn):
  starts process 'transfer' at startEvent 'Start' "HTTP intake"
    accepts message type TransferRequest; payload bound to 'payload'; ack on-complete
    records e2eId = payload.E2EId
`,
  );
});

Deno.test("simulate shows relays and narrows by message type", async () => {
  const relay = await run(`${FIXTURES}plan.bpmn`, "--channel", "approvals", "--dry-run");
  assert.equal(relay.code, 0);
  assert.match(relay.out, /resumes an instance of process 'orders' parked at userTask 'approve'/);
  assert.match(relay.out, /correlates on orderId = decision\.orderId/);
  const typed = await run(
    `${FIXTURES}plan.bpmn`,
    "--channel",
    "orders",
    "--dry-run",
    "--message-type",
    "OrderV3",
  );
  assert.equal(typed.code, 0);
  assert.match(typed.out, /with message type OrderV3/);
  const wrong = await run(
    `${FIXTURES}plan.bpmn`,
    "--channel",
    "orders",
    "--dry-run",
    "--message-type",
    "Invoice",
  );
  assert.equal(wrong.code, 1);
  assert.match(wrong.err, /no q:source on channel 'orders' accepts message type 'Invoice'/);
});

Deno.test("an unknown channel lists every channel the file declares", async () => {
  const r = await run(`${FIXTURES}plan.bpmn`, "--channel", "order", "--dry-run");
  assert.equal(r.code, 1);
  assert.equal(r.out, "");
  assert.match(r.err, /declared channels: approvals, cancellations, orders\n$/);
  const json = await run(
    `${FIXTURES}plan.bpmn`,
    "--channel",
    "order",
    "--dry-run",
    "--format",
    "json",
  );
  assert.equal(json.code, 1);
  assert.deepEqual(JSON.parse(json.out).declaredChannels, ["approvals", "cancellations", "orders"]);
});

Deno.test("simulate requires --dry-run and --channel", async () => {
  await assert.rejects(() => run(`${FIXTURES}plan.bpmn`, "--channel", "orders"), UsageError);
  await assert.rejects(() => run(`${FIXTURES}plan.bpmn`, "--dry-run"), UsageError);
  await assert.rejects(() => run("--channel", "orders", "--dry-run"), UsageError);
});
