import assert from "node:assert/strict";
import { diagnostic, DiagnosticError } from "../../../engine/core/diagnostic.ts";
import { createLogger } from "../../../engine/core/log.ts";
import { keepConnected } from "./backoff.ts";

/** Runs `keepConnected` with a session that always throws `error`; answers the first log line. */
async function firstFailure(error: Error): Promise<Record<string, unknown>> {
  const lines: Record<string, unknown>[] = [];
  const stop = new AbortController();
  const loop = keepConnected(() => Promise.reject(error), {
    logger: createLogger("test", { write: (line) => lines.push(JSON.parse(line)) }),
    what: "test channel 'orders'",
    signal: stop.signal,
    initialMs: 1,
    maxMs: 2,
  });
  while (lines.length === 0) await new Promise((resolve) => setTimeout(resolve, 1));
  stop.abort();
  await loop;
  return lines[0];
}

Deno.test("a session that cannot connect is logged as a lost connection", async () => {
  const line = await firstFailure(new Error("ECONNREFUSED"));
  assert.equal(line.code, "SUTRA.BROKER.CONNECTION_LOST");
  assert.equal(line.error, "ECONNREFUSED");
});

Deno.test("a session failing with a diagnostic is logged with its code", async () => {
  const refused = diagnostic("SUTRA.BROKER.OPTIONS_INVALID", "channel 'orders': wrong");
  const line = await firstFailure(new DiagnosticError(refused));
  assert.equal(line.code, "SUTRA.BROKER.OPTIONS_INVALID");
});
