/**
 * The Dockerfile: every task, flag and path it names exists, its final stage
 * is the scratch image docs/install.md describes, and the build context keeps
 * what the build needs. Where a container builder answers (`docker info`),
 * the image is built too.
 */
import assert from "node:assert/strict";
import { readRequest } from "../../tools/compile.ts";
import { ROOT, spawn } from "./_spawn.ts";

const dockerfile = await Deno.readTextFile(`${ROOT}Dockerfile`);
const ignore = (await Deno.readTextFile(`${ROOT}.dockerignore`)).split("\n")
  .map((l) => l.trim()).filter((l) => l !== "" && !l.startsWith("#"));
const tasks = JSON.parse(await Deno.readTextFile(`${ROOT}deno.json`)).tasks as Record<
  string,
  string
>;

/** Instructions, with continuation lines joined. */
function instructions(): string[] {
  return dockerfile.replace(/\\\n/g, " ").split("\n").map((l) => l.trim())
    .filter((l) => l !== "" && !l.startsWith("#"));
}

Deno.test("the Dockerfile's tasks and compile options exist, and its paths agree", async () => {
  const runs = instructions().filter((l) => l.startsWith("RUN "));
  const taskRuns = runs.flatMap((l) => [...l.matchAll(/deno task (\S+)((?: [^;&]*)?)/g)]);
  assert.ok(taskRuns.length > 0);
  for (const [, task, args] of taskRuns) {
    assert.ok(task in tasks, `deno task ${task} is not in deno.json`);
    if (task === "compile") {
      const request = await readRequest(args.trim().split(/\s+/));
      assert.deepEqual(request.flavours.map((f) => f.name), ["full"]);
      assert.deepEqual(request.settings.listen, { host: "0.0.0.0", port: 8080 });
      assert.match(
        dockerfile,
        new RegExp(`SUTRA_DATASOURCE_EMBEDDED_DIR=${request.settings.dataDir}`),
      );
      assert.match(dockerfile, new RegExp(`cp ${request.out}/sutra-engine `));
    }
  }
  assert.match(dockerfile, /^FROM denoland\/deno:2\.9\.6 AS build$/m);
  const stages = instructions().filter((l) => l.startsWith("FROM "));
  assert.equal(stages.at(-1), "FROM scratch");
  for (
    const line of [
      "USER 10001:10001",
      "EXPOSE 8080",
      "VOLUME /data",
      'ENTRYPOINT ["/sutra-engine"]',
    ]
  ) {
    assert.ok(instructions().includes(line), line);
  }
  assert.match(dockerfile, /SUTRA_HTTP_HOST=0\.0\.0\.0/);
  assert.match(dockerfile, /sutra:x:10001:10001:/);
  assert.match(dockerfile, /ca-certificates\.crt/);
  assert.match(dockerfile, /ldd \/out\/sutra-engine/);
});

Deno.test(".dockerignore keeps what the build compiles", () => {
  for (
    const needed of [
      "deno.json",
      "deno.lock",
      "main.ts",
      "cli.ts",
      "tools/compile.ts",
      "engine/",
      "io/",
      "lang/",
      "xsd/",
    ]
  ) {
    assert.ok(
      // Glob patterns (`**/*_test.ts`) only drop tests.
      !ignore.filter((p) => !p.includes("*")).some((p) => needed.startsWith(p)),
      `${needed} is ignored`,
    );
    assert.ok(Deno.statSync(`${ROOT}${needed}`), needed);
  }
  for (const kept of ["node_modules/", ".sutra/", "dist/", ".git/"]) {
    assert.ok(ignore.includes(kept), kept);
  }
});

async function builderAnswers(): Promise<boolean> {
  try {
    return (await spawn("docker", ["info"]).exited).code === 0;
  } catch {
    return false; // No docker command at all.
  }
}

const builder = await builderAnswers();
if (!builder) {
  console.error("notice: no container builder (docker info fails): the image is not built");
}
Deno.test({
  name: "the image builds",
  ignore: !builder,
  async fn() {
    const built = await spawn("docker", ["build", "-t", `sutra-engine-test-${Date.now()}`, "."])
      .exited;
    assert.equal(built.code, 0, built.output);
  },
});
