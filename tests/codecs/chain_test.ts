/**
 * Codecs, the BPMN loader and intake together: a package XSD codec gives the
 * loader its payload shape, the q:source's mixed .dmn + .srl chain compiles
 * from the package's rules, and one message runs the whole intake stage.
 */
import assert from "node:assert/strict";
import "../../io/codecs/mod.ts";
import { loadBpmn } from "../../engine/bpmn/mod.ts";
import { ManualClock } from "../../engine/core/clock.ts";
import { type Codec, schemaKinds } from "../../engine/core/codec.ts";
import {
  admitInbound,
  compileValidatorChain,
  type IntakeSource,
  screenInbound,
} from "../../engine/intake/mod.ts";

const fixtures = new URL("../fixtures/codecs/", import.meta.url);
const read = (path: string) => Deno.readFile(new URL(path, fixtures));

async function ordersCodec(): Promise<Codec> {
  const files = new Map<string, Uint8Array>([
    ["order.xsd", await read("schemas/orders/order.xsd")],
    ["common/types.xsd", await read("schemas/orders/common/types.xsd")],
  ]);
  const built = await schemaKinds.get("xsd")!.build({
    path: "schemas/orders",
    urn: "urn:orders",
    manifest: { schemaKind: "xsd", formats: ["xml", "json"] },
    files,
  });
  assert.ok(built.codec, JSON.stringify(built.diagnostics));
  return built.codec;
}

const packageFiles = async () =>
  new Map([
    ["rules/intake-timing.dmn", await read("rules/intake-timing.dmn")],
    ["rules/intake-fields.srl", await read("rules/intake-fields.srl")],
  ]);

async function intakeSource(bpmn: string, codec: Codec): Promise<IntakeSource> {
  const loaded = await loadBpmn(new TextEncoder().encode(bpmn), {
    uri: "bpmn/orders.bpmn",
    shapes: { payload: (_channel, type) => codec.shapeOf(type) },
  });
  assert.ok(loaded.ok, JSON.stringify(loaded.diagnostics, null, 1));
  const [subscription] = loaded.plan!.subscriptionsByChannel.get("orders-in")!;
  const built = compileValidatorChain(subscription.validators, {
    files: await packageFiles(),
    variable: subscription.variable,
    uri: "bpmn/orders.bpmn",
  });
  assert.ok(built.chain, JSON.stringify(built.diagnostics));
  return {
    variable: subscription.variable,
    chain: built.chain,
    onValidation: subscription.onValidation,
    redactors: subscription.redactors,
  };
}

const order = (amount: string, currency: string, placed: string) =>
  new TextEncoder().encode(`<Order xmlns="urn:example:orders" channel="web">
  <id>AB-12345</id>
  <placed>${placed}</placed>
  <amount currency="${currency}">${amount}</amount>
  <customer><name>Ada</name></customer>
  <line><sku>WIDGET-1</sku><qty>1</qty><price currency="EUR">1.00</price></line>
</Order>`);

async function run(bpmn: string, body: Uint8Array, now: string) {
  const codec = await ordersCodec();
  const source = await intakeSource(bpmn, codec);
  const admission = await admitInbound({
    channel: "orders-in",
    body,
    contentType: "application/xml",
  }, {
    channel: { codec },
    capBytes: 1 << 20,
  });
  assert.ok(admission.admitted);
  return await screenInbound(admission, { source, clock: new ManualClock(now) });
}

Deno.test("a mixed .dmn + .srl chain accumulates in declaration order; firstReasonCode follows it", async () => {
  const bpmn = await Deno.readTextFile(new URL("orders.bpmn", fixtures));
  // Stale (the DMN's clock rule) and an unknown currency (the .srl's field rule).
  const v = await run(bpmn, order("20.00", "GBP", "2026-03-01T06:00:00Z"), "2026-03-01T10:00:00Z");
  assert.equal(v.kind, "accept");
  assert.equal(v.validation.outcome, "SOFT_ERRORS");
  assert.equal(v.validation.tier, "content");
  assert.deepEqual(v.validation.issues.map((i) => [i.code, i.path]), [
    ["SUTRA.VALIDATE.STALE", "/placed"],
    ["SUTRA.VALIDATE.CURRENCY_UNKNOWN", "/amount/currency"],
  ]);
  assert.equal(v.validation.firstReasonCode, "SUTRA.VALIDATE.STALE");

  const swapped = bpmn.replace(
    /(<q:complexValidator source="intake-timing.dmn"\/>)(\s*)(<q:complexValidator source="intake-fields.srl"\/>)/,
    "$3$2$1",
  );
  assert.notEqual(swapped, bpmn);
  const w = await run(
    swapped,
    order("20.00", "GBP", "2026-03-01T06:00:00Z"),
    "2026-03-01T10:00:00Z",
  );
  assert.deepEqual(w.validation.issues.map((i) => i.code), [
    "SUTRA.VALIDATE.CURRENCY_UNKNOWN",
    "SUTRA.VALIDATE.STALE",
  ]);
  assert.equal(w.validation.firstReasonCode, "SUTRA.VALIDATE.CURRENCY_UNKNOWN");
});

Deno.test("the DMN validator reads the injected clock as now", async () => {
  const bpmn = await Deno.readTextFile(new URL("orders.bpmn", fixtures));
  const fresh = await run(
    bpmn,
    order("20.00", "EUR", "2026-03-01T09:30:00Z"),
    "2026-03-01T10:00:00Z",
  );
  assert.equal(fresh.validation.outcome, "OK");
  const future = await run(
    bpmn,
    order("20.00", "EUR", "2026-03-01T09:30:00Z"),
    "2026-03-01T09:00:00Z",
  );
  assert.deepEqual(future.validation.issues.map((i) => i.code), ["SUTRA.VALIDATE.FUTURE_DATED"]);
});

Deno.test("schema issues come first, as the structural tier, ahead of the chain's", async () => {
  const bpmn = await Deno.readTextFile(new URL("orders.bpmn", fixtures));
  const v = await run(bpmn, order("-5", "EUR", "2026-03-01T09:30:00Z"), "2026-03-01T10:00:00Z");
  assert.deepEqual(v.validation.issues.map((i) => i.code), [
    "SUTRA.VALIDATE.XSD.VIOLATION",
    "SUTRA.VALIDATE.AMOUNT_NOT_POSITIVE",
  ]);
  assert.equal(v.validation.tier, "structural");
  assert.equal(v.validation.firstReasonCode, "SUTRA.VALIDATE.XSD.VIOLATION");
});

Deno.test("the codec's shape lets the loader refuse a FEEL path the schema does not have", async () => {
  const bpmn = (await Deno.readTextFile(new URL("orders.bpmn", fixtures)))
    .replace("payload.amount.value", "payload.amount.amount");
  const codec = await ordersCodec();
  const loaded = await loadBpmn(new TextEncoder().encode(bpmn), {
    shapes: { payload: (_channel, type) => codec.shapeOf(type) },
  });
  assert.equal(loaded.ok, false);
  assert.deepEqual(loaded.diagnostics.map((d) => d.code), ["SUTRA.CONFIG.BPMN.FEEL_PATH_INVALID"]);
});
