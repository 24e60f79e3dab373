import assert from "node:assert/strict";
import { readArchive, sealArchive } from "./archive.ts";
import { writeZip } from "./_zip_write.ts";
import { MANIFEST_PATH } from "./manifest.ts";
import { readPackageYaml } from "./package_yaml.ts";
import { DEFAULT_LIMITS } from "./files.ts";

const enc = new TextEncoder();
const PACKAGE =
  "labels:\n  tenant: acme\n  module: orders\n  version: 1.2.0\nengine:\n  minContract: 1\n";

function files(extra: Record<string, string> = {}): Map<string, Uint8Array> {
  const m = new Map<string, Uint8Array>();
  m.set("package.yaml", enc.encode(PACKAGE));
  m.set("templates/reply.hbs", enc.encode("<ok>{{id}}</ok>\n".repeat(100)));
  m.set("bpmn/orders/checkout.bpmn", enc.encode("<definitions/>"));
  for (const [k, v] of Object.entries(extra)) m.set(k, enc.encode(v));
  return m;
}

async function seal(extra: Record<string, string> = {}) {
  const f = files(extra);
  const d = readPackageYaml(f.get("package.yaml")).descriptor!;
  return await sealArchive(f, d);
}

/** Rebuilds an archive from entries (name → bytes) in the given order. */
function rezip(entries: [string, Uint8Array][]): Uint8Array {
  return writeZip(entries.map(([name, bytes]) => ({ name, bytes })));
}

Deno.test("sealing the same files twice gives identical bytes and the same deploymentId", async () => {
  const a = await seal();
  const b = await seal();
  assert.deepEqual(a.bytes, b.bytes);
  assert.equal(a.deploymentId, b.deploymentId);
  assert.match(a.deploymentId, /^[0-9a-f]{64}$/);
  assert.equal(a.fileName, "acme--orders--1.2.0.sutra");
  assert.equal(a.slot, "acme--orders--1.2.0");
});

Deno.test("a sealed archive reads back with every file and the same id", async () => {
  const a = await seal();
  const r = await readArchive(a.bytes, { uri: a.fileName });
  assert.deepEqual(r.diagnostics, []);
  assert.equal(r.archive!.deploymentId, a.deploymentId);
  assert.deepEqual([...r.archive!.files.keys()].sort(), [...a.files.keys()].sort());
  assert.deepEqual(r.archive!.manifest.labels, {
    tenant: "acme",
    module: "orders",
    version: "1.2.0",
  });
  assert.deepEqual(r.archive!.manifest.files.map((f) => f.path), [
    "bpmn/orders/checkout.bpmn",
    "package.yaml",
    "templates/reply.hbs",
  ]);
});

Deno.test("a changed file changes the deploymentId", async () => {
  const a = await seal();
  const b = await seal({ "templates/other.hbs": "x" });
  assert.notEqual(a.deploymentId, b.deploymentId);
});

Deno.test("a flipped byte in any entry is refused, naming the entry", async () => {
  const a = await seal();
  // Flip one byte inside each entry's data region (local header is 30 bytes + name).
  const view = new DataView(a.bytes.buffer);
  let at = 0;
  const names: string[] = [];
  while (view.getUint32(at, true) === 0x04034b50) {
    const csize = view.getUint32(at + 18, true);
    const nlen = view.getUint16(at + 26, true);
    const name = new TextDecoder().decode(a.bytes.subarray(at + 30, at + 30 + nlen));
    names.push(name);
    const copy = a.bytes.slice();
    copy[at + 30 + nlen + Math.floor(csize / 2)] ^= 0x01;
    const r = await readArchive(copy, { uri: "t.sutra" });
    assert.equal(r.archive, undefined, name);
    assert.equal(r.diagnostics.length, 1, name);
    assert.equal(r.diagnostics[0].code, "SUTRA.DEPLOY.ARCHIVE_INVALID");
    assert.equal(r.diagnostics[0].attributes?.entry, name);
    at += 30 + nlen + csize;
  }
  assert.equal(names.length, 4);
});

Deno.test("a file replaced consistently inside the zip still fails its manifest digest", async () => {
  const a = await seal();
  const r = await readArchive(a.bytes);
  const entries: [string, Uint8Array][] = [...r.archive!.files.entries()];
  entries.push([
    MANIFEST_PATH,
    (await import("./manifest.ts")).encodeManifest(r.archive!.manifest),
  ]);
  const tampered = entries.map(([n, b]): [string, Uint8Array] =>
    n === "templates/reply.hbs" ? [n, enc.encode("<evil/>")] : [n, b]
  );
  const out = await readArchive(rezip(tampered));
  assert.equal(out.diagnostics.length, 1);
  assert.equal(out.diagnostics[0].attributes?.reason, "digest");
  assert.equal(out.diagnostics[0].attributes?.entry, "templates/reply.hbs");
});

Deno.test("an edited manifest is refused", async () => {
  const a = await seal();
  const r = await readArchive(a.bytes);
  const { encodeManifest } = await import("./manifest.ts");
  const base: [string, Uint8Array][] = [...r.archive!.files.entries()];
  // Re-labelled manifest (canonical, but disagrees with package.yaml).
  const relabelled = encodeManifest({
    ...r.archive!.manifest,
    labels: { ...r.archive!.manifest.labels, tenant: "other" },
  });
  let out = await readArchive(rezip([...base, [MANIFEST_PATH, relabelled]]));
  assert.equal(out.diagnostics[0].attributes?.reason, "manifest");
  assert.match(out.diagnostics[0].message, /labels or minContract differ/);
  // Same content, not canonical (pretty-printed).
  const pretty = enc.encode(JSON.stringify(r.archive!.manifest, null, 2));
  out = await readArchive(rezip([...base, [MANIFEST_PATH, pretty]]));
  assert.equal(out.diagnostics[0].attributes?.entry, MANIFEST_PATH);
  assert.match(out.diagnostics[0].message, /canonical/);
  // A digest edited to match nothing.
  const wrongDigest = encodeManifest({
    ...r.archive!.manifest,
    files: r.archive!.manifest.files.map((f) =>
      f.path === "package.yaml" ? { ...f, sha256: "0".repeat(64) } : f
    ),
  });
  out = await readArchive(rezip([...base, [MANIFEST_PATH, wrongDigest]]));
  assert.equal(out.diagnostics[0].attributes?.reason, "digest");
  assert.equal(out.diagnostics[0].attributes?.entry, "package.yaml");
  // No manifest at all.
  out = await readArchive(rezip(base));
  assert.match(out.diagnostics[0].message, /no sutra\/manifest\.json/);
});

Deno.test("an extra entry and a missing entry are each refused by name", async () => {
  const a = await seal();
  const r = await readArchive(a.bytes);
  const { encodeManifest } = await import("./manifest.ts");
  const manifest = encodeManifest(r.archive!.manifest);
  const base: [string, Uint8Array][] = [...r.archive!.files.entries()];
  let out = await readArchive(
    rezip([...base, [MANIFEST_PATH, manifest], ["bpmn/extra.bpmn", enc.encode("x")]]),
  );
  assert.deepEqual(out.diagnostics.map((d) => [d.attributes?.reason, d.attributes?.entry]), [[
    "extra",
    "bpmn/extra.bpmn",
  ]]);
  out = await readArchive(
    rezip([...base.filter(([n]) => n !== "templates/reply.hbs"), [MANIFEST_PATH, manifest]]),
  );
  assert.deepEqual(out.diagnostics.map((d) => [d.attributes?.reason, d.attributes?.entry]), [[
    "missing",
    "templates/reply.hbs",
  ]]);
});

Deno.test("../ paths, absolute paths and duplicates are refused, all at once", async () => {
  const x = enc.encode("x");
  const out = await readArchive(rezip([
    ["../evil.txt", x],
    ["bpmn/../../evil.txt", x],
    ["/etc/passwd", x],
    ["C:/evil", x],
    ["bpmn/a.bpmn", x],
    ["bpmn/a.bpmn", x],
    ["bpmn/A.bpmn", x],
    ["bpmn\\win.bpmn", x],
  ]));
  assert.deepEqual(out.diagnostics.map((d) => [d.attributes?.reason, d.attributes?.entry]), [
    ["traversal", "../evil.txt"],
    ["traversal", "bpmn/../../evil.txt"],
    ["absolute", "/etc/passwd"],
    ["absolute", "C:/evil"],
    ["duplicate", "bpmn/a.bpmn"],
    ["duplicate", "bpmn/A.bpmn"],
    ["name", "bpmn\\win.bpmn"],
  ]);
});

Deno.test("symbolic links and directory entries are refused", async () => {
  const bytes = rezip([["bpmn/link.bpmn", enc.encode("/etc/passwd")], ["bpmn/", new Uint8Array()]]);
  // Mark the first central record as a symlink (mode 0120777).
  const view = new DataView(bytes.buffer);
  let at = bytes.length - 22;
  at = view.getUint32(at + 16, true);
  view.setUint32(at + 38, (0o120777 << 16) >>> 0, true);
  const out = await readArchive(bytes);
  assert.deepEqual(out.diagnostics.map((d) => [d.attributes?.reason, d.attributes?.entry]), [
    ["symlink", "bpmn/link.bpmn"],
    ["directory", "bpmn/"],
  ]);
});

Deno.test("archives and entries over the caps are refused before inflating", async () => {
  const a = await seal();
  let out = await readArchive(a.bytes, { limits: { ...DEFAULT_LIMITS, maxArchiveBytes: 100 } });
  assert.equal(out.diagnostics[0].attributes?.reason, "oversize");
  out = await readArchive(a.bytes, { limits: { ...DEFAULT_LIMITS, maxFileBytes: 1000 } });
  assert.deepEqual(out.diagnostics.map((d) => [d.attributes?.reason, d.attributes?.entry]), [[
    "oversize",
    "templates/reply.hbs",
  ]]);
  out = await readArchive(a.bytes, { limits: { ...DEFAULT_LIMITS, maxFiles: 2 } });
  assert.equal(out.diagnostics[0].attributes?.reason, "oversize");
  out = await readArchive(a.bytes, { limits: { ...DEFAULT_LIMITS, maxTotalBytes: 1500 } });
  assert.equal(out.diagnostics[0].attributes?.reason, "oversize");
  // A bomb: an entry whose header understates what its data inflates to.
  const bomb = rezip([["templates/big.hbs", new Uint8Array(100_000)]]);
  const view = new DataView(bomb.buffer);
  const cd = view.getUint32(bomb.length - 22 + 16, true);
  view.setUint32(cd + 24, 10, true);
  view.setUint32(22, 10, true);
  out = await readArchive(bomb);
  assert.equal(out.diagnostics[0].attributes?.reason, "corrupt");
});

Deno.test("trailing bytes and truncation are refused", async () => {
  const a = await seal();
  const longer = new Uint8Array(a.bytes.length + 1);
  longer.set(a.bytes);
  for (const bytes of [longer, a.bytes.subarray(0, a.bytes.length - 5), new Uint8Array(3)]) {
    const out = await readArchive(bytes);
    assert.equal(out.diagnostics[0].attributes?.reason, "format");
  }
});
