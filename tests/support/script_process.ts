/**
 * Test servers that run as a script of this repository in a child process
 * (an SQS emulator, the Pub/Sub double): started with every permission and
 * the project's configuration, stdin and stdout piped for the parent to
 * drive and read.
 *
 * @module
 */

const CONFIG = new URL("../../deno.json", import.meta.url).pathname;

/** Starts `script` (an absolute path) with `args`; stderr goes to the parent's. */
export function startScript(script: string, args: readonly string[] = []): Deno.ChildProcess {
  return new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "-q", "--config", CONFIG, script, ...args],
    env: { DENO_NO_UPDATE_CHECK: "1", NO_COLOR: "1" },
    stdin: "piped",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
}

/** Splits a text stream into its lines (a last line without a newline included). */
export function textLines(): TransformStream<string, string> {
  let rest = "";
  return new TransformStream({
    transform(chunk, out) {
      const parts = (rest + chunk).split("\n");
      rest = parts.pop()!;
      for (const part of parts) out.enqueue(part);
    },
    flush(out) {
      if (rest !== "") out.enqueue(rest);
    },
  });
}
