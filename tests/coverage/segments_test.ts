import assert from "node:assert/strict";
import { transports } from "../../engine/core/transport.ts";
import { DEFAULT_LIMITS } from "../../engine/package/mod.ts";
import {
  declaredRoutes,
  routeIds,
  withCoverageSegments,
} from "../../engine/runtime/coverage/mod.ts";
import { compileArchive } from "../../engine/runtime/deployments/compile.ts";
import { sealDir } from "../runtime/support.ts";

async function compiled(dir: string) {
  const r = await compileArchive(await sealDir(dir), {
    transports,
    limits: DEFAULT_LIMITS,
    uri: dir,
  });
  assert.ok(r.ok);
  return r.compiled;
}

Deno.test("segments of a coverage file become paths of their processes, keyed by route id", async () => {
  const { package: pkg, plans } = await compiled("tests/coverage/fixtures/relay");
  const plan = withCoverageSegments(plans.get("fulfil")!, pkg);
  const fulfil = plan.processById.get("fulfil")!;
  const paths = fulfil.coverage.map((c) => [c.path, c.flows.map((f) => fulfil.flows[f].id)]);
  assert.deepEqual(paths, [
    ["urn:sutra:coverage:e2e:accepted", ["f1", "f_ok", "f_ok_end"]],
    ["urn:sutra:coverage:e2e:rejected", ["f1", "f_no", "f_no_end"]],
  ]);
  assert.equal(plan.processes.find((p) => p.id === "fulfil"), fulfil);
  assert.deepEqual(
    plan.processById.get("intake")!.coverage.map((c) => c.path),
    ["urn:sutra:coverage:e2e:accepted", "urn:sutra:coverage:e2e:rejected"],
  );
});

Deno.test("a package without coverage files keeps its plans as they are", async () => {
  const { package: pkg, plans } = await compiled("tests/coverage/fixtures/gate");
  const plan = plans.get("decide")!;
  assert.equal(withCoverageSegments(plan, pkg), plan);
});

Deno.test("planned segments are not counted again as intra-process paths", async () => {
  const { package: pkg, plans } = await compiled("tests/coverage/fixtures/relay");
  const planned = [...new Set(plans.values())].map((p) => withCoverageSegments(p, pkg));
  const declared = declaredRoutes(pkg, planned);
  assert.deepEqual(declared.paths, []);
  assert.deepEqual(routeIds(declared), [
    "urn:sutra:coverage:e2e:accepted",
    "urn:sutra:coverage:e2e:rejected",
  ]);
});
