import assert from "node:assert/strict";
import { MASK, redact, type Redactor } from "./redactor.ts";
import { Registry } from "./registry.ts";

function registry(...entries: Redactor[]): Registry<Redactor> {
  const r = new Registry<Redactor>("redactor");
  for (const e of entries) r.register(e);
  return r;
}

const payload = {
  card: { number: "4111111111111111", holder: "Ada" },
  lines: [{ iban: "DE89370400440532013000" }, { iban: "FR1420041010050500013M02606" }],
  "a/b": "slash",
};

const cards: Redactor = {
  name: "cards",
  locate: (p) => (p as typeof payload).card ? [{ path: "/card/number", reason: "pan" }] : [],
};
const ibans: Redactor = {
  name: "ibans",
  locate: (_p, context) => [
    { path: "/lines/1/iban", reason: `iban:${context.dataClass}` },
    { path: "/a~1b", reason: "escaped" },
    { path: "/missing/deep", reason: "absent" },
  ],
};

Deno.test("located spans are masked in a copy; the payload itself is untouched", () => {
  const r = redact(payload, ["cards", "ibans"], {
    registry: registry(cards, ibans),
    dataClass: "financial",
  });
  assert.deepEqual(r.value, {
    card: { number: MASK, holder: "Ada" },
    lines: [{ iban: "DE89370400440532013000" }, { iban: MASK }],
    "a/b": MASK,
  });
  assert.deepEqual(r.spans.map((s) => s.reason), ["pan", "iban:financial", "escaped", "absent"]);
  assert.deepEqual(r.diagnostics, []);
  assert.equal(payload.card.number, "4111111111111111");
});

Deno.test("no redactors: the payload is observable as it is", () => {
  assert.deepEqual(redact(payload, [], { registry: registry() }).value, payload);
});

Deno.test("a crashing, missing or confused redactor masks the whole payload", () => {
  const crashing: Redactor = {
    name: "crashing",
    locate: () => {
      throw new Error("index out of range");
    },
  };
  const confused: Redactor = { name: "confused", locate: () => [{ path: "card", reason: "?" }] };
  const reg = registry(cards, crashing, confused);
  for (
    const [names, why] of [
      [["cards", "crashing"], /failed: index out of range/],
      [["absent"], /not registered/],
      [["confused"], /malformed path 'card'/],
    ] as const
  ) {
    const r = redact(payload, names, { registry: reg });
    assert.equal(r.value, MASK);
    assert.equal(r.diagnostics[0].code, "SUTRA.REDACT.FAILED");
    assert.equal(r.diagnostics[0].severity, "WARNING");
    assert.match(r.diagnostics[0].message, why);
  }
});
