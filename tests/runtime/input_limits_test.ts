/**
 * Input limits at a real HTTP channel (docs/limits.md): a body nested past the
 * shared depth limit, a key holding a lone surrogate, an alias value too long
 * or holding a NUL. Each is refused with a 4xx diagnostic and writes nothing.
 */
import "../../io/datastores/mod.ts";
import assert from "node:assert/strict";
import { bootEngine, codeOf, post, sealDir } from "./support.ts";
import type { RunningEngine } from "../../engine/runtime/mod.ts";

const FIXTURE = "tests/fixtures/runtime/typed_hold";
const START = {
  amount: 1,
  approved: true,
  tags: ["a", "b"],
  due: "2026-05-01",
};

async function rowCount(engine: RunningEngine): Promise<number> {
  const { rows } = await engine.database.query<{ n: number }>(
    "select (select count(*) from instances)::int + (select count(*) from inbox)::int" +
      " + (select count(*) from aliases)::int as n",
  );
  return rows[0].n;
}

async function withTypedHold(run: (engine: RunningEngine) => Promise<void>): Promise<void> {
  const engine = await bootEngine();
  try {
    await engine.deployments.deploy(await sealDir(FIXTURE));
    await run(engine);
  } finally {
    await engine.stop();
  }
}

Deno.test("a body nested deeper than the limit is refused at decode with 400", async () => {
  await withTypedHold(async (engine) => {
    const deep = await post(
      engine,
      "/channels/typed-request",
      "[".repeat(10_000) + "]".repeat(10_000),
    );
    assert.deepEqual([deep.status, codeOf(deep)], [400, "SUTRA.PARSE.JSON.TOO_DEEP"]);
    const closed = "[".repeat(600) + "]".repeat(600);
    const wellFormed = await post(engine, "/channels/typed-request", closed);
    assert.deepEqual([wellFormed.status, codeOf(wellFormed)], [400, "SUTRA.PARSE.JSON.TOO_DEEP"]);
    assert.equal(await rowCount(engine), 0);
  });
});

Deno.test("keys differing only in lone surrogates are refused, never merged", async () => {
  await withTypedHold(async (engine) => {
    const start = await post(
      engine,
      "/channels/typed-request",
      `{"ref":"\\uD800","amount":1,"approved":true,"tags":["a","b"],"due":"2026-05-01"}`,
    );
    assert.deepEqual([start.status, codeOf(start)], [400, "SUTRA.PARSE.TEXT.LONE_SURROGATE"]);
    const diagnostic = (start.body.diagnostics as { message: string }[])[0];
    assert.match(diagnostic.message, /\/ref/);
    const resume = await post(engine, "/channels/typed-decision", `{"ref":"\\uDBFF"}`);
    assert.deepEqual([resume.status, codeOf(resume)], [400, "SUTRA.PARSE.TEXT.LONE_SURROGATE"]);
    assert.equal(await rowCount(engine), 0);
  });
});

Deno.test("an alias value too long or holding a NUL is refused with 422 and nothing written", async () => {
  await withTypedHold(async (engine) => {
    const long = await post(engine, "/channels/typed-request", {
      ...START,
      ref: "x".repeat(10_000),
    });
    assert.deepEqual([long.status, codeOf(long)], [422, "SUTRA.INPUT.ALIAS.TOO_LONG"]);
    const nul = await post(engine, "/channels/typed-request", { ...START, ref: "a\u0000b" });
    assert.deepEqual([nul.status, codeOf(nul)], [422, "SUTRA.INPUT.ALIAS.NUL"]);
    const resume = await post(engine, "/channels/typed-decision", { ref: "y".repeat(10_000) });
    assert.deepEqual([resume.status, codeOf(resume)], [422, "SUTRA.INPUT.ALIAS.TOO_LONG"]);
    assert.equal(await rowCount(engine), 0);
    // A multi-byte value is measured in UTF-8 bytes: 300 × "é" is 600 bytes.
    const wide = await post(engine, "/channels/typed-request", { ...START, ref: "é".repeat(300) });
    assert.deepEqual([wide.status, codeOf(wide)], [422, "SUTRA.INPUT.ALIAS.TOO_LONG"]);
    const fits = await post(engine, "/channels/typed-request", { ...START, ref: "x".repeat(512) });
    assert.equal(fits.status, 200, JSON.stringify(fits.body));
  });
});

Deno.test("a relay whose correlation value holds a NUL is refused with 422", async () => {
  await withTypedHold(async (engine) => {
    const resume = await post(engine, "/channels/typed-decision", { ref: "a\u0000b" });
    assert.deepEqual([resume.status, codeOf(resume)], [422, "SUTRA.INPUT.ALIAS.NUL"]);
    assert.equal(await rowCount(engine), 0);
  });
});

Deno.test("a store key too long or holding a NUL is refused with 422 before any write", async () => {
  const engine = await bootEngine();
  try {
    await engine.deployments.deploy(await sealDir("tests/fixtures/runtime/store_keys"));
    const long = await post(engine, "/channels/store-put", { key: "k".repeat(600), text: "t" });
    assert.deepEqual([long.status, codeOf(long)], [422, "SUTRA.INPUT.STORE_KEY.TOO_LONG"]);
    assert.doesNotMatch(JSON.stringify(long.body), /character varying/);
    const nul = await post(engine, "/channels/store-put", { key: "a\u0000b", text: "t" });
    assert.deepEqual([nul.status, codeOf(nul)], [422, "SUTRA.INPUT.STORE_KEY.NUL"]);
    assert.equal(await rowCount(engine), 0);
    // A key no store can hold finds nothing when read, rather than failing the reader.
    const read = await post(engine, "/channels/store-get", { key: "a\u0000b" });
    assert.deepEqual(read.body.instances, [{
      instanceId: (read.body.instances as { instanceId: string }[])[0].instanceId,
      status: "COMPLETED",
    }]);
    const fits = await post(engine, "/channels/store-put", { key: "k".repeat(512), text: "t" });
    assert.equal(fits.status, 200, JSON.stringify(fits.body));
  } finally {
    await engine.stop();
  }
});
