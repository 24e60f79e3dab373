import assert from "node:assert/strict";
import { createLogger } from "../core/log.ts";
import { diagnostic, DiagnosticError } from "../core/diagnostic.ts";
import { jsonResponse, Router } from "./http_router.ts";

function router(lines: string[] = []) {
  return new Router(createLogger("test", { write: (l) => lines.push(l) }))
    .add("GET", "/sutra/deployments/{id}", (_req, p) => jsonResponse(200, { id: p.id }))
    .add("POST", "/sutra/deployments/{id}", () => {
      throw new DiagnosticError(diagnostic("SUTRA.CLI.USAGE", "bad body"));
    })
    .add("GET", "/boom", () => {
      throw new Error("internal detail");
    });
}

const req = (method: string, path: string) => new Request(`http://x${path}`, { method });

Deno.test("routes match literal segments and decode parameters", async () => {
  const res = await router().handle(req("GET", "/sutra/deployments/a%20b"));
  assert.equal(res.status, 200);
  assert.deepEqual(await res.json(), { id: "a b" });
  const head = await router().handle(req("HEAD", "/sutra/deployments/x"));
  assert.equal(head.status, 200);
  await head.body?.cancel();
});

Deno.test("misses answer JSON diagnostics: 404 and 405 with Allow", async () => {
  const miss = await router().handle(req("GET", "/nope"));
  assert.equal(miss.status, 404);
  assert.equal((await miss.json()).diagnostics[0].code, "SUTRA.HTTP.NOT_FOUND");
  const wrong = await router().handle(req("DELETE", "/sutra/deployments/x"));
  assert.equal(wrong.status, 405);
  const body = await wrong.json();
  assert.equal(body.diagnostics[0].code, "SUTRA.HTTP.METHOD_NOT_ALLOWED");
  assert.equal(body.diagnostics[0].attributes.allow, "GET, POST");
  assert.equal(wrong.headers.get("allow"), "GET, POST");
});

Deno.test("a DiagnosticError is a 400; any other throw is a logged 500 without details", async () => {
  const bad = await router().handle(req("POST", "/sutra/deployments/x"));
  assert.equal(bad.status, 400);
  assert.equal((await bad.json()).diagnostics[0].message, "bad body");

  const lines: string[] = [];
  const boom = await router(lines).handle(req("GET", "/boom"));
  assert.equal(boom.status, 500);
  const text = await boom.text();
  assert.match(text, /SUTRA\.RUNTIME\.UNEXPECTED/);
  assert.doesNotMatch(text, /internal detail/);
  assert.match(lines[0], /internal detail/);
});

Deno.test("a listener serving one surface answers the other's paths as unknown routes", async () => {
  const all = router()
    .add("GET", "/admin/deployments", () => jsonResponse(200, { admin: true }))
    .add("GET", "/console", () => jsonResponse(200, { console: true }));
  const admin = all.handler("admin");
  const open = all.handler("public");
  for (const path of ["/admin/deployments", "/console", "//admin/deployments"]) {
    assert.equal((await admin(req("GET", path))).status, 200, path);
    const hidden = await open(req("GET", path));
    assert.equal(hidden.status, 404, path);
    // Exactly what a path no route matches gets: nothing says an admin route exists.
    assert.deepEqual(await hidden.json(), {
      diagnostics: [{
        code: "SUTRA.HTTP.NOT_FOUND",
        severity: "ERROR",
        message: `no route for ${path}`,
      }],
    });
  }
  assert.equal((await open(req("GET", "/sutra/deployments/x"))).status, 200);
  assert.equal((await admin(req("GET", "/sutra/deployments/x"))).status, 404);
  assert.equal((await all.handler("all")(req("GET", "/admin/deployments"))).status, 200);
  assert.equal((await all.handler("all")(req("GET", "/sutra/deployments/x"))).status, 200);
});
