/**
 * The XSD validator's WebAssembly reaches `deno compile`d binaries: the
 * engine's root imports libxml2-wasm (lazily, with a literal specifier, so
 * the compiler follows it), and the package carries its wasm inside its
 * JavaScript instead of reading a `.wasm` file by path.
 */
import assert from "node:assert/strict";

const root = new URL("../../", import.meta.url);

Deno.test("the compiled root's module graph reaches libxml2-wasm and its embedded wasm", async () => {
  const info = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", "main.ts"],
    cwd: root,
    env: { DENO_NO_UPDATE_CHECK: "1" },
    stdout: "piped",
    stderr: "null",
  }).output();
  assert.equal(info.code, 0);
  const graph = JSON.parse(new TextDecoder().decode(info.stdout)) as {
    modules: {
      specifier: string;
      dependencies?: { specifier: string; code?: { specifier: string } }[];
    }[];
  };
  const validator = graph.modules.find((m) =>
    m.specifier.endsWith("/engine/bpmn/xsd_validator.ts")
  );
  assert.ok(validator, "main.ts does not reach the XSD validator");
  const lib = validator.dependencies?.find((d) => d.specifier === "libxml2-wasm");
  assert.match(lib?.code?.specifier ?? "", /^npm:libxml2-wasm@/);

  const raw = await Deno.readFile(
    new URL(
      "lib/libxml2raw.mjs",
      `file://${Deno.realPathSync(new URL("node_modules/libxml2-wasm", root))}/`,
    ),
  );
  const text = new TextDecoder("latin1").decode(raw);
  assert.ok(text.includes("\0asm"), "the wasm module is no longer embedded in the package's JS");
  assert.doesNotMatch(text, /\.wasm["'`]/, "the package now reads a .wasm file by path");
});
