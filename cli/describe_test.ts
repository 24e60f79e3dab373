import assert from "node:assert/strict";
import { captureIo as capture } from "../tests/support/cli_io.ts";
import { DiagnosticError, UsageError } from "./command.ts";
import { describeCommand } from "./describe.ts";

const FIXTURES = new URL("../tests/fixtures/bpmn/", import.meta.url).pathname;

Deno.test("describe prints processes, events, tasks, gateways, sources and replies", async () => {
  const c = capture();
  assert.equal(await describeCommand.run([`${FIXTURES}transfer.bpmn`], c.io), 0);
  const text = c.out();
  assert.match(text, /^process transfer "Transfer" \(executable, idempotent\)$/m);
  assert.match(text, /^ {4}Start "HTTP intake" +message, channel transfer-request$/m);
  assert.match(
    text,
    /^ {4}OkReply +serviceTask +template transfer-result\.hbs, reply native application\/xml$/m,
  );
  assert.match(
    text,
    /^ {4}Valid "Valid\?" +exclusiveGateway +2 outgoing, default Flow_Ok, in Transfer$/m,
  );
  assert.match(
    text,
    /^ {4}transfer-request → Start \(start\) +type TransferRequest → payload; ack on-complete; validators iso-4217-currency\(payload\.amount\.currency\); redactors pci; aliases e2eId$/m,
  );
  assert.match(
    text,
    /^ {2}replies\n {4}OkReply +native application\/xml\n {4}RejectReply +native$/m,
  );
  assert.equal(c.err(), "");
});

Deno.test("describe --format json carries the same facts as data", async () => {
  const c = capture();
  assert.equal(
    await describeCommand.run([`${FIXTURES}transfer.bpmn`, "--format", "json"], c.io),
    0,
  );
  const report = JSON.parse(c.out());
  const [p] = report.processes;
  assert.equal(report.definitions, "transfer-definitions");
  assert.deepEqual(p.startEvents.map((e: { id: string }) => e.id), [
    "Start",
    "StartQueue",
    "SubStart",
  ]);
  assert.deepEqual(p.sources.map((s: { channel: string; role: string }) => [s.channel, s.role]), [
    ["transfer-request", "start"],
    ["transfer-queue", "start"],
  ]);
  const load = p.tasks.find((t: { id: string }) => t.id === "LoadFrom");
  assert.deepEqual([load.kind, load.implementation, load.in], [
    "serviceTask",
    "data task",
    "Transfer",
  ]);
});

Deno.test("describe works on a file that does not validate", async () => {
  const c = capture();
  assert.equal(await describeCommand.run([`${FIXTURES}five_violations.bpmn`], c.io), 0);
  assert.match(c.out(), /score +serviceTask +registered:score, retry 3 attempts/);
});

Deno.test("describe refuses what it cannot read, with a diagnostic or a usage error", async () => {
  await assert.rejects(
    () => describeCommand.run([`${FIXTURES}no-such-file.bpmn`], capture().io),
    (e: unknown) =>
      e instanceof DiagnosticError && e.diagnostics[0].code === "SUTRA.CLI.FILE_UNREADABLE",
  );
  await assert.rejects(
    () => describeCommand.run([`${FIXTURES}rules/xml_malformed.bpmn`], capture().io),
    (e: unknown) =>
      e instanceof DiagnosticError && e.diagnostics[0].code === "SUTRA.CONFIG.BPMN.XML_MALFORMED" &&
      e.diagnostics[0].source?.line === 4,
  );
  await assert.rejects(() => describeCommand.run([], capture().io), UsageError);
  await assert.rejects(
    () => describeCommand.run([`${FIXTURES}transfer.bpmn`, "--format", "yaml"], capture().io),
    UsageError,
  );
});
