import assert from "node:assert/strict";
import { CONSOLE_HTML, CONSOLE_JS } from "./console_app.ts";

Deno.test("the console script parses, and the page loads only the engine's own scripts", () => {
  // A template-literal escape gone wrong shows up here, not as a blank page.
  assert.doesNotThrow(() => new Function(CONSOLE_JS));
  const sources = [...CONSOLE_HTML.matchAll(/<(?:script|link)[^>]+(?:src|href)="([^"]+)"/g)]
    .map((m) => m[1]);
  assert.ok(sources.length > 0);
  assert.deepEqual(sources.filter((s) => !s.startsWith("/console/")), []);
});
