/**
 * The checks a deployment passes at activation: its secret references
 * resolve, its stores open and migrate, and its channels collide with no
 * other slot's. A refusal answers the SUTRA.DEPLOY.* diagnostic, records a
 * failed deploy and leaves what was serving untouched.
 */
import assert from "node:assert/strict";
import "../../io/datastores/mod.ts";
import { type PackageFiles, sealPackage } from "../../engine/package/mod.ts";
import { openDatabase } from "../../engine/persistence/mod.ts";
import { DeploymentError, type DeploymentService } from "../../engine/runtime/deployments/mod.ts";
import { fixtureFiles, TRANSPORTS } from "./_support.ts";
import { withDeploymentService } from "../support/deployment_service.ts";

const enc = new TextEncoder();
const dec = new TextDecoder();

interface Edits {
  /** `module` label (a different one is a different slot). */
  module?: string;
  /** Process name, so revisions of one slot differ. */
  revision?: string;
  /** Extra keys appended under the `greet` channel. */
  channel?: string;
  /** A `datastores.yaml` and files under it. */
  stores?: Record<string, string>;
}

/** The hello fixture with its start event subscribed to `greet`, edited. */
async function seal(edits: Edits = {}): Promise<Uint8Array> {
  const files = await fixtureFiles();
  const bpmn = dec.decode(files.get("bpmn/hello.bpmn"))
    .replace('name="Hello"', `name="${edits.revision ?? "Hello"}"`)
    .replace(
      '<bpmn:startEvent id="Start"/>',
      '<bpmn:startEvent id="Start"><bpmn:extensionElements>' +
        '<q:source channel="greet"/>' +
        "</bpmn:extensionElements></bpmn:startEvent>",
    );
  files.set("bpmn/hello.bpmn", enc.encode(bpmn));
  if (edits.module) {
    const yaml = dec.decode(files.get("package.yaml")).replace(
      "module: hello",
      `module: ${edits.module}`,
    );
    files.set("package.yaml", enc.encode(yaml));
  }
  if (edits.channel) {
    files.set("channels.yaml", enc.encode(dec.decode(files.get("channels.yaml")) + edits.channel));
  }
  for (const [path, text] of Object.entries(edits.stores ?? {})) files.set(path, enc.encode(text));
  const sealed = await sealPackage(files as PackageFiles, { transports: TRANSPORTS });
  if (!sealed.archive) throw new Error(sealed.diagnostics.map((d) => d.message).join("\n"));
  return sealed.archive.bytes;
}

function withService(
  env: Record<string, string>,
  body: (service: DeploymentService) => Promise<void>,
): Promise<void> {
  return withDeploymentService(
    { resolve: { env, secretsDir: "/nonexistent-secrets" } },
    ({ service }) => body(service),
  );
}

async function refusal(promise: Promise<unknown>): Promise<DeploymentError> {
  const error = await promise.then(() => undefined, (e) => e);
  assert.ok(error instanceof DeploymentError, `expected a refusal, got ${error}`);
  return error;
}

const BEARER = "\n    auth:\n      scheme: bearer\n      bearer:\n        token: env:GREET_TOKEN\n";

Deno.test("an unresolvable channel secret refuses the deploy and names channel, option and reference", async () => {
  await withService({}, async (service) => {
    const bytes = await seal({ channel: BEARER });
    const e = await refusal(service.deploy(bytes));
    assert.equal(e.status, 422);
    const [d] = e.diagnostics;
    assert.equal(d.code, "SUTRA.DEPLOY.SECRET_UNRESOLVED");
    assert.deepEqual(d.attributes, {
      channel: "greet",
      option: "auth.bearer.token",
      reference: "env:GREET_TOKEN",
    });
    assert.match(d.message, /GREET_TOKEN is not set/);
    assert.equal(service.registry.list().length, 0);
    const id = await sealPackageId(bytes);
    const status = await service.status(id);
    assert.equal(status?.phase, "Failed");
    assert.equal(status?.failure?.code, "SUTRA.DEPLOY.SECRET_UNRESOLVED");
  });
  await withService({ GREET_TOKEN: "t0k" }, async (service) => {
    const result = await service.deploy(await seal({ channel: BEARER }));
    assert.equal(result.phase, "Active");
  });
});

async function sealPackageId(bytes: Uint8Array): Promise<string> {
  const { readArchive } = await import("../../engine/package/mod.ts");
  const read = await readArchive(bytes, { uri: "test" });
  return read.archive!.deploymentId;
}

Deno.test("a refused revision leaves the active revision of its slot serving", async () => {
  await withService({ GREET_TOKEN: "t0k" }, async (service) => {
    const first = await service.deploy(await seal({ channel: BEARER }));
    const broken = BEARER.replace("env:GREET_TOKEN", "env:ROTATED_TOKEN");
    const e = await refusal(service.deploy(await seal({ revision: "Two", channel: broken })));
    assert.equal(e.diagnostics[0].attributes?.reference, "env:ROTATED_TOKEN");
    assert.deepEqual(
      service.registry.list().map((d) => [d.deploymentId, d.status]),
      [[first.deploymentId, "active"]],
    );
    assert.equal((await service.status(first.deploymentId))?.phase, "Active");
  });
});

Deno.test("a second slot binding the same channel is refused with both named; the same slot hot-deploys", async () => {
  await withService({}, async (service) => {
    const first = await service.deploy(await seal());
    const e = await refusal(service.deploy(await seal({ module: "hello-two" })));
    assert.equal(e.status, 409);
    const [d] = e.diagnostics;
    assert.equal(d.code, "SUTRA.DEPLOY.CHANNEL_COLLISION");
    assert.equal(d.attributes?.channel, "greet");
    assert.equal(d.attributes?.slot, "acme--hello-two--1.0.0");
    assert.equal(d.attributes?.activeSlot, "acme--hello--1.0.0");
    assert.equal(d.attributes?.activeDeploymentId, first.deploymentId);
    assert.match(d.message, /message types any/);
    // A new revision of the same slot replaces the old one: no collision.
    const second = await service.deploy(await seal({ revision: "Two" }));
    assert.deepEqual(second.drained, [first.deploymentId]);
    // Once the slot is undeployed, the other package may bind the channel.
    await service.undeploy("acme--hello--1.0.0");
    assert.equal((await service.deploy(await seal({ module: "hello-two" }))).phase, "Active");
  });
});

Deno.test("two bindings that both declare broadcast share a channel", async () => {
  await withService({}, async (service) => {
    const broadcast = "    broadcast: true\n";
    await service.deploy(await seal({ channel: broadcast }));
    const e = await refusal(service.deploy(await seal({ module: "hello-two" })));
    assert.equal(e.diagnostics[0].code, "SUTRA.DEPLOY.CHANNEL_COLLISION");
    const shared = await service.deploy(await seal({ module: "hello-two", channel: broadcast }));
    assert.equal(shared.phase, "Active");
  });
});

const STORES = (migration: string) => ({
  "datastores.yaml": "datastores:\n  - name: greetings\n    type: sql\n    sql:\n" +
    "      url-ref: env:GREETINGS_DB\n      migrations: migrations/greetings\n",
  "migrations/greetings/V1__greetings.sql": migration,
});

Deno.test("a store that cannot migrate refuses the deploy; a good one is migrated at activation", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const url = `pglite:${dir}`;
    await withService({ GREETINGS_DB: url }, async (service) => {
      const e = await refusal(
        service.deploy(await seal({ stores: STORES("create tabel greeting (id int);") })),
      );
      assert.equal(e.status, 422);
      assert.equal(e.diagnostics[0].code, "SUTRA.DEPLOY.STORE_FAILED");
      assert.equal(e.diagnostics[0].attributes?.store, "greetings");
      assert.equal(service.registry.list().length, 0);
      const ok = await service.deploy(
        await seal({ revision: "Two", stores: STORES("create table greeting (id int);") }),
      );
      assert.equal(ok.phase, "Active");
      // The serving revision may hold its embedded store open (one opener at a time):
      // the next revision of the slot is not refused for it.
      const held = await openDatabase(`file://${dir}`);
      try {
        const three = await service.deploy(
          await seal({ revision: "Three", stores: STORES("create table greeting (id int);") }),
        );
        assert.deepEqual(three.drained, [ok.deploymentId]);
      } finally {
        await held.close();
      }
    });
    // The migration ran at activation, before any instance took a step.
    const db = await openDatabase(`file://${dir}`);
    try {
      const rows = await db.query("select count(*)::int as n from greeting");
      assert.deepEqual(rows.rows, [{ n: 0 }]);
    } finally {
      await db.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("an unresolvable store reference is named with its store and option", async () => {
  await withService({}, async (service) => {
    const e = await refusal(
      service.deploy(await seal({ stores: STORES("create table greeting (id int);") })),
    );
    assert.deepEqual(e.diagnostics.map((d) => [d.code, d.attributes]), [[
      "SUTRA.DEPLOY.SECRET_UNRESOLVED",
      { store: "greetings", option: "sql.url-ref", reference: "env:GREETINGS_DB" },
    ]]);
  });
});

Deno.test("over HTTP, a deploy whose channel secret is unset answers 422 and no channel goes live", async () => {
  const { bootEngine } = await import("../runtime/support.ts");
  await import("../../io/transports/mod.ts");
  const engine = await bootEngine();
  try {
    const bytes = await seal({ channel: BEARER });
    const refused = await fetch(`${engine.url}/admin/deployments`, {
      method: "POST",
      headers: { "content-type": "application/octet-stream" },
      body: new Uint8Array(bytes),
    });
    assert.equal(refused.status, 422);
    const body = await refused.json();
    assert.equal(body.diagnostics[0].code, "SUTRA.DEPLOY.SECRET_UNRESOLVED");
    assert.equal(body.diagnostics[0].attributes.reference, "env:GREET_TOKEN");
    // The channel was never bound: a caller finds no route rather than a 400 on every call.
    const call = await fetch(`${engine.url}/channels/greet`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: "Bearer x" },
      body: "{}",
    });
    await call.body?.cancel();
    assert.equal(call.status, 404);
    assert.equal(engine.deployments.registry.list().length, 0);
  } finally {
    await engine.stop();
  }
});
