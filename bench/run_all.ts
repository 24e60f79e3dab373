/**
 * Runs every benchmark in `bench/` (each `.ts` file but this one and the
 * `_`-prefixed support modules) in turn with the bench permission set; each
 * prints its own JSON lines, under the V8 settings the engine ships with.
 * Extra arguments are passed to every benchmark.
 *
 * @module
 */
import { ENGINE_V8_FLAGS } from "../tools/flavours.ts";

const dir = new URL(".", import.meta.url).pathname;
const config = new URL("../deno.json", import.meta.url).pathname;
const files: string[] = [];
for await (const e of Deno.readDir(dir)) {
  if (!e.isFile || !e.name.endsWith(".ts") || e.name === "run_all.ts") continue;
  // `_`-prefixed modules are support code the benchmarks import, not benchmarks.
  if (!e.name.startsWith("_")) files.push(e.name);
}
let failed = 0;
for (const name of files.sort()) {
  const status = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-q",
      "--config",
      config,
      "-P=bench",
      ENGINE_V8_FLAGS,
      `${dir}${name}`,
      ...Deno.args,
    ],
    stdout: "inherit",
    stderr: "inherit",
  }).spawn().status;
  if (!status.success) {
    console.error(`${name} failed with exit code ${status.code}`);
    failed++;
  }
}
Deno.exit(failed === 0 ? 0 : 1);
