import assert from "node:assert/strict";
import "../io/codecs/mod.ts";
import "../io/secrets/mod.ts";
import { captureIo } from "../tests/support/cli_io.ts";
import { everyTransport } from "./_authoring_test_support.ts";
import { DiagnosticError, UsageError } from "./command.ts";
import { compatBaselineCommand } from "./compat_baseline.ts";

const compat = compatBaselineCommand({ transports: everyTransport });
const APPROVAL = new URL("../examples/approval-hold/package", import.meta.url).pathname;
const BPMN = "bpmn/approval.bpmn";
const CHANNELS = "channels.yaml";
const DECISION = "schemas/approval/decision/ApprovalDecision.json";

/** A copy of approval-hold with each file's text passed through its edit. */
async function variant(edits: Record<string, (text: string) => string>): Promise<string> {
  const dir = await Deno.makeTempDir();
  const copy = async (from: string, to: string) => {
    for await (const e of Deno.readDir(from)) {
      if (e.isDirectory) {
        await Deno.mkdir(`${to}/${e.name}`);
        await copy(`${from}/${e.name}`, `${to}/${e.name}`);
      } else await Deno.copyFile(`${from}/${e.name}`, `${to}/${e.name}`);
    }
  };
  await copy(APPROVAL, dir);
  for (const [file, edit] of Object.entries(edits)) {
    const path = `${dir}/${file}`;
    const before = await Deno.readTextFile(path);
    const after = edit(before);
    assert.notEqual(after, before, `the edit of ${file} changes nothing`);
    await Deno.writeTextFile(path, after);
  }
  return dir;
}

async function compare(baseline: string, current: string) {
  const c = captureIo();
  const exit = await compat.run(
    ["--baseline", baseline, "--current", current, "--format", "json"],
    c.io,
  );
  const report = JSON.parse(c.out());
  assert.equal(exit, report.compatible ? 0 : 1);
  return report.breaking.map((d: { code: string; attributes: Record<string, string> }) => [
    d.code,
    d.attributes,
  ]);
}

const extraChannel = (text: string) =>
  text + `  - name: approval-audit
    transport: http
    codec: urn:approval:decision
`;
const optionalNote = (text: string) =>
  text.replace(
    '"Decision": { "enum": ["APPROVE", "DECLINE"] }',
    '"Decision": { "enum": ["APPROVE", "DECLINE"] },\n        "Note": { "type": "string" }',
  );

Deno.test("compat-baseline: identical and additive revisions are compatible (exit 0)", async () => {
  const wider = await variant({ [CHANNELS]: extraChannel, [DECISION]: optionalNote });
  try {
    assert.deepEqual(await compare(APPROVAL, APPROVAL), []);
    assert.deepEqual(await compare(APPROVAL, wider), []);
    const c = captureIo();
    assert.equal(await compat.run(["--baseline", APPROVAL, "--current", wider], c.io), 0);
    assert.match(c.out(), /^compatible: nothing in .* breaks /);
  } finally {
    await Deno.remove(wider, { recursive: true });
  }
});

Deno.test("compat-baseline: every breaking change is listed with its code (exit 1)", async () => {
  const dirs: string[] = [];
  const make = async (edits: Record<string, (text: string) => string>) => {
    dirs.push(await variant(edits));
    return dirs.at(-1)!;
  };
  try {
    // The user task instances are parked on is renamed: they cannot resume.
    const renamedWait = await make({ [BPMN]: (t) => t.replaceAll('"Hold"', '"Wait"') });
    assert.deepEqual(await compare(APPROVAL, renamedWait), [[
      "SUTRA.COMPAT.WAIT_NODE_REMOVED",
      { process: "approval", node: "Hold" },
    ]]);
    const renamedProcess = await make({
      [BPMN]: (t) => t.replace('process id="approval"', 'process id="approval2"'),
    });
    assert.deepEqual(await compare(APPROVAL, renamedProcess), [[
      "SUTRA.COMPAT.PROCESS_REMOVED",
      { process: "approval" },
    ]]);
    const wider = await make({ [CHANNELS]: extraChannel });
    assert.deepEqual(await compare(wider, APPROVAL), [[
      "SUTRA.COMPAT.CHANNEL_REMOVED",
      { channel: "approval-audit" },
    ]]);
    const newHeader = await make({
      [CHANNELS]: (t) => t.replace(/header: X-Api-Key\n$/, "header: X-Approval-Key\n"),
    });
    assert.deepEqual(await compare(APPROVAL, newHeader), [[
      "SUTRA.COMPAT.CHANNEL_CHANGED",
      { channel: "approval-decision" },
    ]]);
    // Taking any type and then pinning one narrows what the node accepts; the reverse widens.
    const anyType = await make({
      [BPMN]: (t) =>
        t.replace(
          'channel="approval-decision" messageTypeValue="ApprovalDecision"',
          'channel="approval-decision"',
        ),
    });
    assert.deepEqual(await compare(anyType, APPROVAL), [[
      "SUTRA.COMPAT.MESSAGE_TYPE_CHANGED",
      { process: "approval", node: "Hold", channel: "approval-decision" },
    ]]);
    assert.deepEqual(await compare(APPROVAL, anyType), []);
    const numberId = await make({
      [DECISION]: (t) =>
        t.replace(
          '"E2EId": { "type": "string", "minLength": 1, "maxLength": 35 },\n        "Decision"',
          '"E2EId": { "type": "integer" },\n        "Decision"',
        ),
    });
    assert.deepEqual(await compare(APPROVAL, numberId), [[
      "SUTRA.COMPAT.SCHEMA_NARROWED",
      { channel: "approval-decision", messageType: "ApprovalDecision" },
    ]]);
    // A field removed from a record that takes no others narrows it; from an open one it does not.
    const closed = (t: string) =>
      t.replace(
        '"required": ["E2EId", "Decision"],',
        '"required": ["E2EId", "Decision"],\n      "additionalProperties": false,',
      );
    const withNote = await make({ [DECISION]: optionalNote });
    assert.deepEqual(await compare(withNote, APPROVAL), []);
    const closedWithNote = await make({ [DECISION]: (t) => closed(optionalNote(t)) });
    const closedWithout = await make({ [DECISION]: closed });
    const c = captureIo();
    assert.equal(
      await compat.run(["--baseline", closedWithNote, "--current", closedWithout], c.io),
      1,
    );
    assert.match(
      c.out(),
      /ERROR SUTRA\.COMPAT\.SCHEMA_NARROWED: message type 'ApprovalDecision' of channel 'approval-decision' accepts less: field 'ApprovalDecision\/Note' was removed/,
    );
    assert.match(c.out(), /\n1 breaking change\(s\)\n$/);
  } finally {
    for (const dir of dirs) await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("compat-baseline: arguments are checked; a revision with errors is refused", async () => {
  const c = captureIo();
  await assert.rejects(() => compat.run(["--baseline", APPROVAL], c.io), UsageError);
  await assert.rejects(() => compat.run(["--current", APPROVAL], c.io), UsageError);
  await assert.rejects(
    () => compat.run(["--baseline", APPROVAL, "--current", APPROVAL, "x"], c.io),
    UsageError,
  );
  const faulty = new URL("../tests/fixtures/package/multi_fault", import.meta.url).pathname;
  await assert.rejects(
    () => compat.run(["--baseline", APPROVAL, "--current", faulty], c.io),
    DiagnosticError,
  );
  assert.equal(c.out(), "");
});
