import assert from "node:assert/strict";
import { DEFAULT_LIMITS } from "./files.ts";
import { readPackageDir } from "./read_dir.ts";

async function tree(files: Record<string, string>): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "sutra-pkg-" });
  for (const [path, text] of Object.entries(files)) {
    await Deno.mkdir(`${dir}/${path}`.replace(/\/[^/]+$/, ""), { recursive: true });
    await Deno.writeTextFile(`${dir}/${path}`, text);
  }
  return dir;
}

Deno.test("a directory reads into a file set; hidden entries are skipped", async () => {
  const dir = await tree({
    "package.yaml": "x",
    "bpmn/a/b.bpmn": "y",
    ".git/config": "z",
    "templates/.gitkeep": "",
  });
  try {
    const r = await readPackageDir(dir);
    assert.deepEqual(r.diagnostics, []);
    assert.deepEqual([...r.files!.keys()].sort(), ["bpmn/a/b.bpmn", "package.yaml"]);
    assert.equal(new TextDecoder().decode(r.files!.get("bpmn/a/b.bpmn")), "y");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("symbolic links are refused, not followed, and every one is reported", async () => {
  const dir = await tree({ "package.yaml": "x", "templates/a.hbs": "a" });
  try {
    await Deno.symlink("/etc/passwd", `${dir}/templates/b.hbs`);
    await Deno.symlink(`${dir}/templates`, `${dir}/bpmn`);
    const r = await readPackageDir(dir);
    assert.equal(r.files, undefined);
    assert.deepEqual(r.diagnostics.map((d) => [d.code, d.source?.uri]), [
      ["SUTRA.CONFIG.PACKAGE.ENTRY_INVALID", "bpmn"],
      ["SUTRA.CONFIG.PACKAGE.ENTRY_INVALID", "templates/b.hbs"],
    ]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("size ceilings refuse the package before it is sealed", async () => {
  const dir = await tree({ "package.yaml": "x".repeat(50), "bpmn/a.bpmn": "y".repeat(50) });
  try {
    let r = await readPackageDir(dir, { limits: { ...DEFAULT_LIMITS, maxFileBytes: 40 } });
    assert.deepEqual(r.diagnostics.map((d) => [d.code, d.source?.uri]), [
      ["SUTRA.CONFIG.PACKAGE.TOO_LARGE", "bpmn/a.bpmn"],
      ["SUTRA.CONFIG.PACKAGE.TOO_LARGE", "package.yaml"],
    ]);
    r = await readPackageDir(dir, { limits: { ...DEFAULT_LIMITS, maxTotalBytes: 80 } });
    assert.deepEqual(r.diagnostics.map((d) => d.code), ["SUTRA.CONFIG.PACKAGE.TOO_LARGE"]);
    r = await readPackageDir(dir, { limits: { ...DEFAULT_LIMITS, maxFiles: 1 } });
    assert.match(r.diagnostics[0].message, /2 files; at most 1/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a missing directory or a file given as the directory is unreadable", async () => {
  const dir = await tree({ "package.yaml": "x" });
  try {
    for (const path of [`${dir}/nope`, `${dir}/package.yaml`]) {
      const r = await readPackageDir(path);
      assert.deepEqual(r.diagnostics.map((d) => d.code), ["SUTRA.CONFIG.PACKAGE.UNREADABLE"]);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
