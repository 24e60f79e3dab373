/**
 * Decodes per second of 2 KB payloads, each against a physical baseline
 * measured in the same run:
 *
 * - `codecs.json.decode-2kb`: the built-in JSON codec, against
 *   `TextDecoder` + `JSON.parse` of the same bytes;
 * - `codecs.xsd.decode-xml-2kb`: an XSD package codec (parse, typed view,
 *   libxml2 validation), against a bare libxml2-wasm parse + validation of
 *   the same bytes with the same schema compiled beforehand;
 * - `codecs.xsd.decode-json-2kb`: the same codec reading the order as JSON
 *   (mapping to XML, validation, view), against `JSON.parse` of the same
 *   bytes plus the same bare libxml2-wasm parse + validation of the 2 KB XML;
 * - `codecs.xsd.decode-xml-2kb-16-in-flight`: the XML case with sixteen
 *   decodes in flight, as a busy channel runs them;
 * - `codecs.xml.saxes-parse-2kb`: a bare saxes parse of the XML bytes (the
 *   JavaScript reader the plain XML codec uses), against the bare
 *   libxml2-wasm parse + validation.
 *
 *     deno run -P=bench bench/codecs_bench.ts [N]
 *
 * Prints one JSON line per case:
 * `{"bench":…,"decodesPerSec":…,"bytes":…,"baseline":…,"baselineOpsPerSec":…,"ratio":…}`.
 * The XSD cases run in eleven short rounds (N/4 decodes a side), each timing
 * the baseline and then the case back to back; a line gives the median of
 * the rounds' rates and of their ratios, so a machine whose load changes
 * during the run (other jobs) skews a ratio less than one baseline timed
 * long before its case.
 *
 * @module
 */
import {
  ParseOption,
  XmlBufferInputProvider,
  XmlDocument,
  xmlRegisterInputProvider,
  XsdValidator,
} from "libxml2-wasm";
import { SaxesParser } from "saxes";
import "../io/codecs/mod.ts";
import { type Codec, codecs, codecUrn, schemaKinds } from "../engine/core/codec.ts";

const fixtures = new URL("../tests/fixtures/codecs/", import.meta.url);
const read = (path: string) => Deno.readFile(new URL(path, fixtures));
const encoder = new TextEncoder();
const decoder = new TextDecoder();

function line(i: number) {
  return { sku: `WIDGET-${i}`, qty: i + 1, price: { currency: "EUR", value: 10.5 + i } };
}

/** An order of about 2 KB in both formats. */
function order(lines: number) {
  return {
    channel: "web",
    id: "AB-12345",
    placed: "2026-03-01T09:30:00Z",
    amount: { currency: "EUR", value: 1250.75 },
    rush: true,
    customer: {
      name: "Ada Lovelace",
      email: "ada@example.org",
      address: { street: ["12 Analytical Row", "Second Floor"], country: "FR" },
    },
    line: Array.from({ length: lines }, (_, i) => line(i)),
  };
}

function orderXml(lines: number): string {
  const o = order(lines);
  const items = o.line.map((l) =>
    `  <line>\n    <sku>${l.sku}</sku>\n    <qty>${l.qty}</qty>\n    <price currency="EUR">${l.price.value}</price>\n  </line>\n`
  ).join("");
  return `<?xml version="1.0" encoding="UTF-8"?>
<Order xmlns="urn:example:orders" channel="web">
  <id>AB-12345</id>
  <placed>2026-03-01T09:30:00Z</placed>
  <amount currency="EUR">1250.75</amount>
  <rush>true</rush>
  <customer>
    <name>Ada Lovelace</name>
    <email>ada@example.org</email>
    <address>
      <street>12 Analytical Row</street>
      <street>Second Floor</street>
      <country>FR</country>
    </address>
  </customer>
${items}</Order>
`;
}

/** The smallest line count whose document reaches 2 KB. */
function sized(make: (lines: number) => string): Uint8Array {
  let lines = 1;
  while (encoder.encode(make(lines)).length < 2048) lines++;
  return encoder.encode(make(lines));
}

async function ordersCodec(): Promise<Codec> {
  const built = await schemaKinds.get("xsd")!.build({
    path: "schemas/orders",
    urn: "urn:orders",
    manifest: { schemaKind: "xsd", formats: ["xml", "json"] },
    files: new Map([
      ["order.xsd", await read("schemas/orders/order.xsd")],
      ["common/types.xsd", await read("schemas/orders/common/types.xsd")],
    ]),
  });
  if (built.diagnostics) throw new Error(built.diagnostics[0].message);
  return built.codec;
}

async function rate(iterations: number, fn: () => Promise<unknown> | unknown): Promise<number> {
  for (let i = 0; i < Math.min(iterations, 200); i++) await fn();
  const t0 = performance.now();
  for (let i = 0; i < iterations; i++) await fn();
  return Math.round(iterations / ((performance.now() - t0) / 1000));
}

async function rateInFlight(
  iterations: number,
  inFlight: number,
  fn: () => Promise<unknown>,
): Promise<number> {
  let next = 0;
  const worker = async () => {
    while (next++ < iterations) await fn();
  };
  await Promise.all(Array.from({ length: inFlight }, worker));
  next = 0;
  const t0 = performance.now();
  await Promise.all(Array.from({ length: inFlight }, worker));
  return Math.round(iterations / ((performance.now() - t0) / 1000));
}

/**
 * The orders schema compiled straight on libxml2-wasm, its include served
 * from memory (registered after the engine's provider, so asked first).
 */
async function bareValidator(): Promise<XsdValidator> {
  const base = "bench-orders://schemas/";
  xmlRegisterInputProvider(
    new XmlBufferInputProvider({
      [`${base}common/types.xsd`]: await read("schemas/orders/common/types.xsd"),
    }),
  );
  const doc = XmlDocument.fromBuffer(await read("schemas/orders/order.xsd"), {
    url: `${base}order.xsd`,
  });
  try {
    return XsdValidator.fromDoc(doc);
  } finally {
    doc.dispose();
  }
}

function bareValidate(validator: XsdValidator, bytes: Uint8Array): void {
  const doc = XmlDocument.fromBuffer(bytes, {
    option: ParseOption.XML_PARSE_NONET | ParseOption.XML_PARSE_NO_XXE,
  });
  try {
    validator.validate(doc);
  } finally {
    doc.dispose();
  }
}

function saxesParse(bytes: Uint8Array): number {
  let elements = 0;
  const parser = new SaxesParser({ xmlns: true });
  parser.on("opentag", () => elements++);
  parser.write(decoder.decode(bytes)).close();
  return elements;
}

function report(
  bench: string,
  decodes: number,
  bytes: number,
  baseline: string,
  base: number,
  extra: { ratio?: number; rounds?: number } = {},
) {
  console.log(JSON.stringify({
    bench,
    decodesPerSec: decodes,
    bytes,
    baseline,
    baselineOpsPerSec: base,
    ratio: +(extra.ratio ?? decodes / base).toFixed(3),
    ...(extra.rounds === undefined ? {} : { rounds: extra.rounds }),
  }));
}

const ROUNDS = 11;

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/**
 * Times `baseline` then `measured` back to back, {@link ROUNDS} times, and
 * reports the medians (see the module's note on load).
 */
async function paired(
  bench: string,
  bytes: number,
  baseline: { readonly name: string; readonly rate: () => Promise<number> },
  measured: () => Promise<number>,
): Promise<void> {
  const bases: number[] = [];
  const cases: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    bases.push(await baseline.rate());
    cases.push(await measured());
  }
  report(bench, median(cases), bytes, baseline.name, median(bases), {
    ratio: median(cases.map((c, i) => c / bases[i])),
    rounds: ROUNDS,
  });
}

async function expectOk(codec: Codec, bytes: Uint8Array, contentType: string): Promise<void> {
  const r = await codec.decode(bytes, contentType);
  if (r.outcome !== "OK") {
    throw new Error(`the bench payload does not decode: ${JSON.stringify(r.issues)}`);
  }
}

const iterations = Number(Deno.args.find((a) => /^\d+$/.test(a)) ?? 2_000);
// Short rounds pair each case with a baseline timed under the same load.
const perRound = Math.max(100, Math.round(iterations / 4));
const json = codecs.get(codecUrn("json"))!;
const xsd = await ordersCodec();
const jsonBytes = sized((n) => JSON.stringify({ Order: order(n) }));
const xmlBytes = sized(orderXml);
await expectOk(json, jsonBytes, "application/json");
await expectOk(xsd, xmlBytes, "application/xml");
await expectOk(xsd, jsonBytes, "application/json");

let sink = 0;
const parseJson = () => {
  sink += Object.keys(JSON.parse(decoder.decode(jsonBytes))).length;
};
report(
  "codecs.json.decode-2kb",
  await rate(iterations * 20, () => json.decode(jsonBytes, "application/json")),
  jsonBytes.length,
  "TextDecoder + JSON.parse",
  await rate(iterations * 20, parseJson),
);
const validator = await bareValidator();
const bare = {
  name: "bare libxml2-wasm parse + validate, schema precompiled",
  rate: () => rate(perRound, () => bareValidate(validator, xmlBytes)),
};
report(
  "codecs.xml.saxes-parse-2kb",
  await rate(iterations, () => {
    sink += saxesParse(xmlBytes);
  }),
  xmlBytes.length,
  bare.name,
  await bare.rate(),
);
await paired(
  "codecs.xsd.decode-xml-2kb",
  xmlBytes.length,
  bare,
  () => rate(perRound, () => xsd.decode(xmlBytes, "application/xml")),
);
await paired(
  "codecs.xsd.decode-json-2kb",
  jsonBytes.length,
  {
    name: "JSON.parse + bare libxml2-wasm parse + validate of the 2 KB XML",
    rate: () =>
      rate(perRound, () => {
        parseJson();
        bareValidate(validator, xmlBytes);
      }),
  },
  () => rate(perRound, () => xsd.decode(jsonBytes, "application/json")),
);
await paired(
  "codecs.xsd.decode-xml-2kb-16-in-flight",
  xmlBytes.length,
  bare,
  () => rateInFlight(perRound, 16, () => xsd.decode(xmlBytes, "application/xml")),
);
validator.dispose();
if (sink < 0) console.log(sink);
