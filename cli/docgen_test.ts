import assert from "node:assert/strict";
import "../io/codecs/mod.ts";
import "../io/secrets/mod.ts";
import { everyTransport } from "./_authoring_test_support.ts";
import { captureIo } from "../tests/support/cli_io.ts";
import { DiagnosticError, UsageError } from "./command.ts";
import { docgenCommand } from "./docgen.ts";

const docgen = docgenCommand({
  transports: everyTransport,
});
const example = (name: string) => new URL(`../examples/${name}/package`, import.meta.url).pathname;

async function generate(dir: string): Promise<string> {
  const c = captureIo();
  assert.equal(await docgen.run(["--input", dir], c.io), 0, c.err());
  return c.out();
}

Deno.test("docgen: the catalogue names processes, waits, channels, types, stores and coverage", async () => {
  const transfer = await generate(example("money-transfer"));
  assert.match(transfer, /^# default\/money-transfer 1\.0\.0\n/);
  for (
    const line of [
      "### transfer — Transfer",
      "| `Start` | HTTP intake | startEvent | message | `transfer-request` | TransferRequest | – |",
      "| `transfer-queue` | rabbitmq | – | `urn:transfer` | on-complete | none | transfer#StartQueue (start) |",
      "| `urn:transfer` | xsd | `schemas/transfer` | BalanceQuery, TransferRequest |",
      "| `Amount` | number |",
      "| `accounts` | sql | financial | key/value |",
    ]
  ) assert.ok(transfer.includes(line), line);
  const approval = await generate(example("approval-hold"));
  assert.ok(
    approval.includes(
      "| `Hold` | Await decision | userTask | message | `approval-decision` | ApprovalDecision | – |",
    ),
  );
  const reminder = await generate(example("timer-reminder"));
  assert.match(reminder, /\| `ADayLater` \| A day later \| intermediateCatchEvent \| timer \|/);
  // Nothing in it depends on when or where it ran.
  assert.equal(await generate(example("money-transfer")), transfer);
});

Deno.test("docgen: --output writes the catalogue; --check passes on it and fails when it is stale", async () => {
  const dir = example("quote-reply");
  const out = await Deno.makeTempDir();
  const file = `${out}/CATALOGUE.md`;
  try {
    const c = captureIo();
    assert.equal(await docgen.run(["--input", dir, "--check", "--output", file], c.io), 1);
    assert.match(c.err(), /SUTRA\.DOCGEN\.STALE: .*does not exist/);
    assert.equal(await docgen.run(["--input", dir, "--output", file], c.io), 0);
    assert.equal(await Deno.readTextFile(file), await generate(dir));
    const ok = captureIo();
    assert.equal(await docgen.run(["--input", dir, "--output", file, "--check"], ok.io), 0);
    assert.equal(ok.err() + ok.out(), "");

    const stale = (await Deno.readTextFile(file)).replace("quote-request", "quote-requests");
    await Deno.writeTextFile(file, stale);
    const failed = captureIo();
    assert.equal(await docgen.run(["--input", dir, "--output", file, "--check"], failed.io), 1);
    assert.match(failed.err(), /ERROR SUTRA\.DOCGEN\.STALE: .*is not the catalogue of/);
    // --check writes nothing.
    assert.equal(await Deno.readTextFile(file), stale);
  } finally {
    await Deno.remove(out, { recursive: true });
  }
});

Deno.test("docgen: arguments are checked; a package with errors is refused", async () => {
  const c = captureIo();
  await assert.rejects(() => docgen.run([], c.io), UsageError);
  await assert.rejects(
    () => docgen.run(["--input", example("quote-reply"), "--check"], c.io),
    UsageError,
  );
  await assert.rejects(() => docgen.run(["--input", "/nonexistent-dir"], c.io), DiagnosticError);
  const faulty = new URL("../tests/fixtures/package/multi_fault", import.meta.url).pathname;
  await assert.rejects(() => docgen.run(["--input", faulty], c.io), DiagnosticError);
  assert.equal(c.out(), "");
});
