import assert from "node:assert/strict";
import { ManualClock } from "./clock.ts";
import { createLogger, levelFor, parseLogFilter } from "./log.ts";

Deno.test("log records are JSON lines with the stable field set", () => {
  const lines: string[] = [];
  const logger = createLogger("engine", {
    write: (l) => lines.push(l),
    clock: new ManualClock("2026-01-02T03:04:05.000Z"),
  });
  logger.child("runtime").info("booted", { port: 8080 });
  assert.equal(lines.length, 1);
  assert.deepEqual(JSON.parse(lines[0]), {
    timestamp: "2026-01-02T03:04:05.000Z",
    level: "INFO",
    loggerName: "engine/runtime",
    message: "booted",
    "service.name": "sutra-engine",
    port: 8080,
  });
});

Deno.test("the filter applies a default level and longest-prefix overrides", () => {
  const filter = parseLogFilter("warn,engine/runtime=debug,engine/runtime/http=error");
  assert.ok(typeof filter !== "string");
  assert.equal(levelFor(filter, "engine"), "warn");
  assert.equal(levelFor(filter, "engine/runtime"), "debug");
  assert.equal(levelFor(filter, "engine/runtime/lanes"), "debug");
  assert.equal(levelFor(filter, "engine/runtime/http"), "error");
  assert.equal(levelFor(filter, "engine/runtimeX"), "warn");

  const lines: string[] = [];
  const root = createLogger("engine", { filter, write: (l) => lines.push(l) });
  root.info("hidden");
  root.warn("shown");
  root.child("runtime").debug("shown too");
  root.child("runtime").trace("hidden");
  assert.deepEqual(lines.map((l) => JSON.parse(l).message), ["shown", "shown too"]);
});

Deno.test("a malformed filter is reported, not guessed", () => {
  assert.equal(typeof parseLogFilter("loud"), "string");
  assert.equal(typeof parseLogFilter("=debug"), "string");
  assert.throws(() => createLogger("x", { filter: "verbose" }));
});

Deno.test("reserved fields cannot be overwritten and errors log their message", () => {
  const lines: string[] = [];
  createLogger("x", { write: (l) => lines.push(l) }).error("failed", {
    level: "TRACE",
    error: new Error("boom"),
  });
  const record = JSON.parse(lines[0]);
  assert.equal(record.level, "ERROR");
  assert.equal(record.error, "boom");
});
