import assert from "node:assert/strict";
import { MASK, redact, redactors } from "../../engine/core/redactor.ts";
import "./mod.ts";
import { holdsCardNumber } from "./pci.ts";
import { holdsIban, ibanValid } from "./pii.ts";

const CARD = "4111111111111111";

Deno.test("pci masks Luhn-valid card numbers wherever they sit, and key-named CVCs", () => {
  const payload = {
    order: "ORD-1234567890123", // 13 digits, Luhn fails: an ordinary reference stays
    card: { number: "4111 1111 1111 1111", cvv: "123", expiry: "12/29" },
    cards: [{ pan: 5500005555555559 }, { note: `paid with ${CARD} yesterday` }],
    security_code: 4321,
    quantity: 123,
    track2: ";4111111111111111=2912?",
  };
  const r = redact(payload, ["pci"]);
  assert.deepEqual(r.diagnostics, []);
  assert.deepEqual(r.value, {
    order: "ORD-1234567890123",
    card: { number: MASK, cvv: MASK, expiry: "12/29" },
    cards: [{ pan: MASK }, { note: MASK }],
    security_code: MASK,
    quantity: 123,
    track2: MASK,
  });
  assert.deepEqual(
    r.spans.map((s) => `${s.path} ${s.reason}`),
    [
      "/card/number pan",
      "/card/cvv cvc",
      "/cards/0/pan pan",
      "/cards/1/note pan",
      "/security_code cvc",
      "/track2 pan",
    ],
  );
  assert.equal(payload.card.number, "4111 1111 1111 1111", "the payload itself is untouched");
});

Deno.test("the Luhn check decides: one changed digit is not a card number", () => {
  assert.equal(holdsCardNumber(CARD), true);
  assert.equal(holdsCardNumber("4111111111111112"), false);
  assert.equal(holdsCardNumber("4111-1111-1111-1111"), true);
  assert.equal(holdsCardNumber("24111111111111111"), false, "17 digits, Luhn fails");
  assert.equal(holdsCardNumber("2026-12-02T00:00:00Z"), false);
});

Deno.test("pii masks e-mail addresses, phone numbers and IBANs with a valid check", () => {
  const payload = {
    contact: { email: "ada@example.org", phone: "030 1234567", name: "Ada" },
    reachable: "call +44 20 7946 0958 after six",
    account: "DE89 3704 0044 0532 0130 00",
    other: "FR1420041010050500013M02606 is hers",
    bogus: "DE89370400440532013001",
    reference: "AB12CDEFGHIJKLMNOPQ",
    count: 1234567,
  };
  const r = redact(payload, ["pii"]);
  assert.deepEqual(r.value, {
    contact: { email: MASK, phone: MASK, name: "Ada" },
    reachable: MASK,
    account: MASK,
    other: MASK,
    bogus: "DE89370400440532013001",
    reference: "AB12CDEFGHIJKLMNOPQ",
    count: 1234567,
  });
  assert.deepEqual(r.spans.map((s) => s.reason), ["email", "phone", "phone", "iban", "iban"]);
});

Deno.test("the IBAN check is ISO 13616 mod 97", () => {
  assert.equal(ibanValid("GB82WEST12345698765432"), true);
  assert.equal(ibanValid("GB82WEST12345698765431"), false);
  assert.equal(holdsIban("iban: gb82 west 1234 5698 7654 32."), true);
});

Deno.test("both redactors are registered on import", () => {
  assert.equal(redactors.has("pci"), true);
  assert.equal(redactors.has("pii"), true);
});
