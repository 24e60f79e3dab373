/**
 * The dir deployment source converges the active set to a directory of
 * archives: added, replaced and removed archives deploy, flip and drain
 * their slots; a refused archive changes nothing and is not retried until
 * its bytes change.
 */
import assert from "node:assert/strict";
import { DEFAULT_LIMITS } from "../../engine/package/mod.ts";
import { startDirSource } from "../../engine/runtime/deployments/dir_source.ts";
import { sealLintFailure, sealRevision, SLOT } from "./_support.ts";
import { type ServiceUnderTest, withDeploymentService } from "../support/deployment_service.ts";

/** A dir source on `dir` that never polls by itself: the test converges it. */
function manualDirSource(
  dir: string,
  service: ServiceUnderTest["service"],
  logger: ServiceUnderTest["logger"],
): ReturnType<typeof startDirSource> {
  return startDirSource({ dir, service, logger, limits: DEFAULT_LIMITS, intervalMs: 0 });
}

Deno.test("the dir source deploys, flips and drains as archives are added, replaced and removed", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await withDeploymentService({}, async ({ service, logger, lines }) => {
      const source = await manualDirSource(dir, service, logger);
      const active = () =>
        service.registry.list().filter((d) => d.status === "active").map((d) => d.deploymentId);
      try {
        assert.deepEqual(await source.converge(), { deployed: [], undeployed: [], refused: [] });
        const one = await sealRevision("One");
        await Deno.writeFile(`${dir}/hello.sutra`, one.bytes);
        await Deno.writeTextFile(`${dir}/README.txt`, "not an archive");
        assert.deepEqual((await source.converge()).deployed, [one.deploymentId]);
        assert.deepEqual(active(), [one.deploymentId]);
        // Nothing changed: nothing to do.
        assert.deepEqual(await source.converge(), { deployed: [], undeployed: [], refused: [] });

        // Replaced by another revision of the slot: it flips, the first drains.
        const two = await sealRevision("Two");
        await Deno.writeFile(`${dir}/hello.sutra`, two.bytes);
        assert.deepEqual((await source.converge()).deployed, [two.deploymentId]);
        assert.deepEqual(active(), [two.deploymentId]);
        assert.equal((await service.status(one.deploymentId))?.phase, "Draining");

        // A refused replacement leaves the slot serving and is reported once.
        const broken = await sealLintFailure();
        await Deno.writeFile(`${dir}/hello.sutra`, broken.bytes);
        assert.deepEqual((await source.converge()).refused, ["hello.sutra"]);
        assert.deepEqual(await source.converge(), { deployed: [], undeployed: [], refused: [] });
        assert.deepEqual(active(), [two.deploymentId]);
        assert.equal(
          lines().filter((l) => l.code === "SUTRA.DEPLOY.LINT_FAILED" && l.file === "hello.sutra")
            .length,
          1,
        );
        // Corrupt bytes are refused too, without touching the slot.
        await Deno.writeFile(`${dir}/hello.sutra`, new TextEncoder().encode("PK not a zip"));
        assert.deepEqual((await source.converge()).refused, ["hello.sutra"]);
        assert.deepEqual(active(), [two.deploymentId]);

        // Removed: the slot drains.
        await Deno.remove(`${dir}/hello.sutra`);
        assert.deepEqual((await source.converge()).undeployed, [SLOT]);
        assert.deepEqual(active(), []);
        assert.equal((await service.status(two.deploymentId))?.phase, "Draining");
      } finally {
        await source.stop();
      }
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("two archives of one slot are ambiguous and deploy neither", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await withDeploymentService({}, async ({ service, logger, lines }) => {
      await Deno.writeFile(`${dir}/a.sutra`, (await sealRevision("One")).bytes);
      await Deno.writeFile(`${dir}/b.sutra`, (await sealRevision("Two")).bytes);
      // The first pass runs as the source starts.
      const source = await manualDirSource(dir, service, logger);
      try {
        assert.equal(service.registry.list().length, 0);
        assert.deepEqual((await source.converge()).refused, ["a.sutra", "b.sutra"]);
        // Reported once while it stands, not on every pass.
        const logged = lines().filter((l) => l.code === "SUTRA.DEPLOY.SOURCE_AMBIGUOUS");
        assert.deepEqual(logged.map((l) => l.files), [["a.sutra", "b.sutra"]]);
        await Deno.remove(`${dir}/a.sutra`);
        assert.equal((await source.converge()).deployed.length, 1);
      } finally {
        await source.stop();
      }
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("an engine with sutra.deployments.source=dir serves the directory and follows it", async () => {
  const { bootEngine, until } = await import("../runtime/support.ts");
  await import("../../io/transports/mod.ts");
  const dir = await Deno.makeTempDir();
  try {
    const one = await sealRevision("One");
    await Deno.writeFile(`${dir}/hello.sutra`, one.bytes);
    const engine = await bootEngine({
      env: {
        SUTRA_DEPLOYMENTS_SOURCE: "dir",
        SUTRA_DEPLOYMENTS_DIR: dir,
        SUTRA_DEPLOYMENTS_DIR_POLL_INTERVAL: "PT0.1S",
      },
    });
    try {
      // The first pass runs before the engine answers.
      assert.equal((await engine.deployments.status(one.deploymentId))?.phase, "Active");
      await Deno.remove(`${dir}/hello.sutra`);
      await until(async () =>
        (await engine.deployments.status(one.deploymentId))?.phase === "Draining"
      );
    } finally {
      await engine.stop();
    }
    const refused = await bootEngine({ env: { SUTRA_DEPLOYMENTS_SOURCE: "dir" } }).then(
      () => undefined,
      (e) => e,
    );
    assert.match(String(refused?.diagnostics?.[0]?.message), /sutra\.deployments\.dir must be set/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
