/**
 * Random mutations of valid JSON, XML, YAML and CSV payloads, each fed to
 * every codec: no decode may throw or reject, and every result must keep the
 * three-outcome contract and the five issue slots. The generator is seeded,
 * so a failure names the seed and input that reproduce it.
 */
import assert from "node:assert/strict";
import "../../io/codecs/mod.ts";
import { type Codec, codecs, type DecodeResult, schemaKinds } from "../../engine/core/codec.ts";
import { wrapperBundleKind } from "../../io/codecs/mod.ts";

const MUTATIONS_PER_FORMAT = 2000;
const SEED = Number(Deno.env.get("SUTRA_FUZZ_SEED") ?? 20260301);

const fixtures = new URL("../fixtures/codecs/", import.meta.url);
const read = (path: string) => Deno.readFile(new URL(path, fixtures));

/** mulberry32: small, fast, seedable. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const TOKENS = [
  "<",
  ">",
  "</",
  "/>",
  '"',
  "'",
  "{",
  "}",
  "[",
  "]",
  ",",
  ":",
  "\n",
  "\r\n",
  "&",
  "&amp;",
  "&#0;",
  "]]>",
  "<![CDATA[",
  "<!DOCTYPE x>",
  "<?xml version='1.0'?>",
  'xmlns="urn:x"',
  "---",
  "- ",
  "*a",
  "&a ",
  "!!binary",
  "? ",
  "\t",
  "\u0000",
  "\uFFFF",
  "null",
  "true",
  "-1e999",
  "0x1F",
  '""',
  "\\",
  "\\u12",
  "#",
  "%YAML 1.2\n",
  "__proto__",
  'xsi:nil="true"',
].map((t) => new TextEncoder().encode(t));

const BAD_BYTES = [[0xc3, 0x28], [0xff], [0xfe, 0xff], [0xef, 0xbb, 0xbf], [0xed, 0xa0, 0x80]];

function mutate(seedBytes: readonly Uint8Array[], base: Uint8Array, rnd: () => number): Uint8Array {
  let bytes = [...base];
  const at = () => Math.floor(rnd() * (bytes.length + 1));
  const times = 1 + Math.floor(rnd() * 4);
  for (let n = 0; n < times; n++) {
    const i = at();
    switch (Math.floor(rnd() * 8)) {
      case 0: // flip a byte
        if (bytes.length > 0) bytes[Math.min(i, bytes.length - 1)] ^= 1 << Math.floor(rnd() * 8);
        break;
      case 1: // insert a structural token
        bytes.splice(i, 0, ...TOKENS[Math.floor(rnd() * TOKENS.length)]);
        break;
      case 2: { // delete a range
        const len = Math.floor(rnd() * 40);
        bytes.splice(i, len);
        break;
      }
      case 3: { // duplicate a range
        const len = Math.floor(rnd() * 60);
        bytes.splice(i, 0, ...bytes.slice(i, i + len));
        break;
      }
      case 4: // truncate
        bytes = bytes.slice(0, i);
        break;
      case 5: // bytes that are not UTF-8
        bytes.splice(i, 0, ...BAD_BYTES[Math.floor(rnd() * BAD_BYTES.length)]);
        break;
      case 6: { // splice in a piece of another format
        const other = seedBytes[Math.floor(rnd() * seedBytes.length)];
        const from = Math.floor(rnd() * other.length);
        bytes.splice(i, 0, ...other.slice(from, from + Math.floor(rnd() * 80)));
        break;
      }
      default: { // nest deeply
        const open = TOKENS[Math.floor(rnd() * 8)];
        for (let k = 0; k < 1 + Math.floor(rnd() * 300); k++) bytes.splice(i, 0, ...open);
      }
    }
  }
  return new Uint8Array(bytes);
}

const CODE = /^SUTRA(\.[A-Z0-9_]+){2,}$/;

function checkContract(r: DecodeResult, where: string): void {
  assert.ok(["OK", "SOFT_ERRORS", "FATAL"].includes(r.outcome), `${where}: outcome ${r.outcome}`);
  assert.ok(Array.isArray(r.issues), where);
  for (const i of r.issues) {
    assert.match(i.code, CODE, where);
    assert.ok(["ERROR", "WARNING", "INFO"].includes(i.severity), where);
    assert.equal(typeof i.path, "string", where);
    assert.ok(typeof i.message === "string" && i.message !== "", where);
    const t = i.value === null ? "null" : typeof i.value;
    assert.ok(["undefined", "null", "string", "number", "boolean"].includes(t), where);
  }
  const errors = r.issues.some((i) => i.severity === "ERROR");
  if (r.outcome === "OK") assert.ok(!errors, `${where}: OK with errors`);
  else assert.ok(errors, `${where}: ${r.outcome} without an error`);
  if (r.outcome === "FATAL") assert.equal(r.payload, undefined, where);
}

async function everyCodec(): Promise<Codec[]> {
  const list = [...codecs.list()];
  const orders = await schemaKinds.get("xsd")!.build({
    path: "schemas/orders",
    urn: "urn:orders",
    manifest: { schemaKind: "xsd", formats: ["xml", "json", "yaml"] },
    files: new Map([
      ["order.xsd", await read("schemas/orders/order.xsd")],
      ["common/types.xsd", await read("schemas/orders/common/types.xsd")],
    ]),
  });
  const events = await schemaKinds.get("json-schema")!.build({
    path: "schemas/events",
    urn: "urn:events",
    manifest: { schemaKind: "json-schema", formats: ["json", "yaml"], discriminator: "type" },
    files: new Map([
      ["payment.json", await read("schemas/events/payment.json")],
      ["common.json", await read("schemas/events/common.json")],
      ["refund.json", await read("schemas/events/refund.json")],
    ]),
  });
  const venue = await wrapperBundleKind({
    name: "fuzz-venue",
    profile: { wrappers: { Order: { namespace: "urn:example:orders", directions: ["incoming"] } } },
  }).build({
    path: "schemas/fuzz-venue",
    urn: "urn:sutra:codec:fuzz-venue",
    manifest: { schemaKind: "fuzz-venue" },
    files: new Map([
      ["fuzz-venue-manifest.yaml", new TextEncoder().encode("incoming:\n  Order: order.xsd\n")],
      ["order.xsd", await read("schemas/orders/order.xsd")],
      ["common/types.xsd", await read("schemas/orders/common/types.xsd")],
    ]),
  });
  for (const b of [orders, events, venue]) {
    assert.ok(b.codec, JSON.stringify(b.diagnostics));
    list.push(b.codec);
  }
  return list;
}

Deno.test(`${MUTATIONS_PER_FORMAT} mutations per format through every codec keep the decode contract`, async () => {
  const codecsUnderTest = await everyCodec();
  assert.equal(codecsUnderTest.length, 9);
  const seeds: [string, Uint8Array, string][] = [
    ["json", await read("order.json"), "application/json"],
    ["xml", await read("order.xml"), "application/xml"],
    ["yaml", await read("order.yaml"), "application/yaml"],
    ["csv", await read("orders.csv"), "text/csv"],
  ];
  const seedBytes = seeds.map(([, b]) => b);
  const rnd = random(SEED);
  const outcomes = new Map<string, number>();
  for (const [format, base, contentType] of seeds) {
    for (let n = 0; n < MUTATIONS_PER_FORMAT; n++) {
      const input = mutate(seedBytes, base, rnd);
      const type = rnd() < 0.5 ? contentType : undefined;
      for (const codec of codecsUnderTest) {
        const where = `seed ${SEED}, ${format} #${n}, ${codec.name}, input ${
          JSON.stringify(new TextDecoder().decode(input).slice(0, 200))
        }`;
        let result: DecodeResult;
        try {
          result = await codec.decode(input, type);
        } catch (e) {
          assert.fail(`${where}: decode threw ${e instanceof Error ? e.stack : e}`);
        }
        checkContract(result, where);
        outcomes.set(result.outcome, (outcomes.get(result.outcome) ?? 0) + 1);
      }
    }
  }
  // The mutations must exercise all three outcomes, or the test proves little.
  assert.deepEqual([...outcomes.keys()].sort(), ["FATAL", "OK", "SOFT_ERRORS"]);
});
