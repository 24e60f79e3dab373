/**
 * The xmllint worker: compiles libxml2's WebAssembly once and runs one fresh
 * instance per request. The stock xmllint-wasm entry starts a worker and
 * recompiles the module for every call (~70 ms); a fresh instance of an
 * already compiled module costs well under a millisecond, and a fresh
 * instance per run keeps libxml2's global state from leaking across runs.
 *
 * Runs only as a `node:worker_threads` worker: xmllint-wasm's script expects
 * a parent port and, like any Emscripten program, records its exit status on
 * `process`, which must not be the engine's.
 *
 * @module
 */
import { parentPort } from "node:worker_threads";
import xmllint from "xmllint-wasm/xmllint-node.js";
import type { XmllintReply, XmllintRequest } from "./_xmllint.ts";
import { errorMessage } from "../../engine/core/errors.ts";

/** The Emscripten module factory xmllint-wasm builds; its options are Emscripten's. */
type Factory = (options: Record<string, unknown>) => Promise<unknown>;

const port = parentPort!;
const factory = xmllint as Factory;
const PAGES_INITIAL = 256;
const PAGES_MAX = 16384;

function reply(message: Omit<XmllintReply, "sutraXmllint">): void {
  port.postMessage({ sutraXmllint: true, ...message });
}

function run(compiled: WebAssembly.Module, request: XmllintRequest): void {
  let stderr = "";
  let done = false;
  const finish = (exitCode: number) => {
    if (done) return;
    done = true;
    reply({ id: request.id, exitCode, stderr });
  };
  factory({
    inputFiles: request.files,
    arguments: request.args,
    print() {},
    printErr(text: string) {
      stderr += text + "\n";
    },
    onExit: finish,
    onAbort(reason: unknown) {
      stderr += `libxml2 aborted: ${String(reason)}\n`;
      finish(-1);
    },
    wasmMemory: new WebAssembly.Memory({ initial: PAGES_INITIAL, maximum: PAGES_MAX }),
    instantiateWasm(
      imports: WebAssembly.Imports,
      ready: (instance: WebAssembly.Instance) => void,
    ) {
      WebAssembly.instantiate(compiled, imports).then(ready, (e) => {
        stderr += `libxml2 could not start: ${String(e)}\n`;
        finish(-1);
      });
      return {};
    },
  }).catch((e) => {
    stderr += `libxml2 failed: ${String(e)}\n`;
    finish(-1);
  });
}

try {
  const wasm = await Deno.readFile(new URL(import.meta.resolve("xmllint-wasm/xmllint.wasm")));
  const compiled = await WebAssembly.compile(wasm);
  port.on("message", (message: XmllintRequest) => {
    if (message?.sutraXmllint === true) run(compiled, message);
  });
  reply({ ready: true });
} catch (e) {
  reply({ failed: errorMessage(e) });
}
