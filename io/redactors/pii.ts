/**
 * The `pii` content redactor: personal contact and account data. It flags
 *
 * - an e-mail address anywhere in a leaf;
 * - a telephone number: an international `+` number (8 to 15 digits with
 *   spaces, dashes, dots or brackets between), or any leaf of 6 or more
 *   digits under a key named like one (`phone`, `mobile`, `tel`, `fax`, …);
 * - an IBAN: two letters, two check digits and 11 to 30 letters or digits
 *   (spaces allowed in groups of four) whose ISO 13616 mod-97 check holds.
 *
 * As with every redactor the whole leaf is masked: a note that mentions an
 * address hides the rest of the note too.
 *
 * @module
 */
import type { Redactor } from "../../engine/core/redactor.ts";
import { type Detector, type Leaf, locateLeaves, normalizedKey } from "./_walk.ts";

const EMAIL =
  /[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)+/;
const INTERNATIONAL_PHONE = /(?<![\w+])\+\d(?:[\s.()-]{0,2}\d){7,14}(?!\d)/;
const PHONE_KEYS =
  /^(phone|phonenumber|telephone|tel|mobile|mobilenumber|cell|cellphone|fax|msisdn)$/;
const ALNUM = /[A-Z0-9]/;
const IBAN_START = /(?<![A-Z0-9])[A-Z]{2}\d{2}/g;

/** The ISO 13616 check: the rearranged IBAN read as a number is 1 modulo 97. */
export function ibanValid(text: string): boolean {
  const iban = text.replace(/ /g, "");
  if (!/^[A-Z]{2}\d{2}[A-Z0-9]{11,30}$/.test(iban)) return false;
  const rearranged = iban.slice(4) + iban.slice(0, 4);
  let remainder = 0;
  for (const c of rearranged) {
    const value = c >= "A" ? String(c.charCodeAt(0) - 55) : c;
    for (const digit of value) remainder = (remainder * 10 + Number(digit)) % 97;
  }
  return remainder === 1;
}

const email: Detector = (leaf: Leaf) => EMAIL.test(leaf.text) ? "email" : undefined;
const phone: Detector = (leaf: Leaf) => {
  if (INTERNATIONAL_PHONE.test(leaf.text)) return "phone";
  const digits = leaf.text.replace(/\D/g, "");
  return PHONE_KEYS.test(normalizedKey(leaf.key)) && digits.length >= 6 ? "phone" : undefined;
};
/** True when an IBAN (compact, or in space-separated groups) starts somewhere in `text`. */
export function holdsIban(text: string): boolean {
  const upper = text.toUpperCase();
  for (const start of upper.matchAll(IBAN_START)) {
    // Read on from the country code, single spaces skipped, testing at each word end.
    let compact = "";
    for (let i = start.index; i < upper.length && compact.length < 34; i++) {
      const c = upper[i];
      if (c === " " && upper[i + 1] !== " ") continue;
      if (!ALNUM.test(c)) break;
      compact += c;
      const wordEnds = i + 1 >= upper.length || !ALNUM.test(upper[i + 1]);
      if (wordEnds && compact.length >= 15 && ibanValid(compact)) return true;
    }
  }
  return false;
}

const iban: Detector = (leaf: Leaf) => holdsIban(leaf.text) ? "iban" : undefined;

/** The `pii` redactor (`<q:redactor ref="pii"/>`). */
export const piiRedactor: Redactor = {
  name: "pii",
  locate: (payload) => locateLeaves(payload, [email, phone, iban]),
};
