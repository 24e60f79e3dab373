/**
 * `sutra lint` on a package whose call activities call processes of
 * another of its BPMN files: by plain id and by import-qualified QName it
 * is clean; a call that resolves nowhere is refused with the file and line.
 */
import assert from "node:assert/strict";
import "../../io/codecs/mod.ts";
import "../../io/secrets/mod.ts";
import { transportCatalog } from "../../engine/package/mod.ts";
import { captureIo } from "../support/cli_io.ts";
import { lintCommand } from "../../cli/lint.ts";

const PACKAGE = new URL("../fixtures/runtime/call_across_files", import.meta.url).pathname;
const lint = lintCommand({ transports: transportCatalog(["http", "local"]) });

Deno.test("sutra lint accepts calls into another BPMN file of the package, by id and by QName", async () => {
  const c = captureIo();
  assert.equal(await lint.run([PACKAGE], c.io), 0, c.out());
  assert.equal(c.out(), "");
});

Deno.test("sutra lint refuses a QName whose namespace no BPMN file of the package has, naming file and line", async () => {
  const dir = await Deno.makeTempDir({ prefix: "sutra-called-" });
  try {
    await copyTree(PACKAGE, `${dir}/pkg`);
    const main = `${dir}/pkg/bpmn/main.bpmn`;
    const text = await Deno.readTextFile(main);
    await Deno.writeTextFile(
      main,
      text.replace('xmlns:kid="urn:test:caf:child"', 'xmlns:kid="urn:test:caf:other"'),
    );
    const c = captureIo();
    assert.equal(await lint.run([`${dir}/pkg`], c.io), 1);
    assert.match(
      c.out(),
      /bpmn\/main\.bpmn:20:\d+: ERROR SUTRA\.CONFIG\.PACKAGE\.PROCESS_UNKNOWN: call activity 'CallQualified' calls process 'kid:child', which no BPMN file of the package with targetNamespace 'urn:test:caf:other' defines/,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

async function copyTree(from: string, to: string): Promise<void> {
  await Deno.mkdir(to, { recursive: true });
  for await (const e of Deno.readDir(from)) {
    if (e.isDirectory) await copyTree(`${from}/${e.name}`, `${to}/${e.name}`);
    else await Deno.copyFile(`${from}/${e.name}`, `${to}/${e.name}`);
  }
}
