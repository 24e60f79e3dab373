/**
 * The `pci` content redactor: payment card data. It flags
 *
 * - a primary account number: any leaf holding 13 to 19 digits (spaces or
 *   dashes between groups allowed) that passes the Luhn check, whatever its
 *   key, and any such digit run inside a longer text (the whole leaf is
 *   masked then);
 * - a card verification code: a 3- or 4-digit leaf under a key named like
 *   one (`cvv`, `cvc`, `cvv2`, `cvc2`, `cid`, `securityCode`, …);
 * - a track or PIN block under a key named like one (`track1`, `track2`,
 *   `pinBlock`), whatever it holds.
 *
 * The Luhn check keeps order numbers and timestamps visible; a key-named
 * verification code is masked on its name because three digits alone
 * cannot be told apart from a quantity.
 *
 * @module
 */
import type { Redactor } from "../../engine/core/redactor.ts";
import { type Detector, type Leaf, locateLeaves, luhnValid, normalizedKey } from "./_walk.ts";

// A run of 13–19 digits with optional single space/dash separators, not glued to other digits.
const PAN_RUN = /(?<![\d])\d(?:[ -]?\d){12,18}(?![\d])/g;

const CVC_KEYS: ReadonlySet<string> = new Set([
  "cvv",
  "cvv2",
  "cvc",
  "cvc2",
  "cid",
  "cav2",
  "securitycode",
  "cardsecuritycode",
  "cardverificationcode",
  "cardverificationvalue",
  "verificationcode",
]);
const TRACK_KEYS: ReadonlySet<string> = new Set(["track1", "track2", "trackdata", "pinblock"]);

/** True when `text` holds a digit run that is a Luhn-valid card number. */
export function holdsCardNumber(text: string): boolean {
  for (const match of text.matchAll(PAN_RUN)) {
    const digits = match[0].replace(/[ -]/g, "");
    if (digits.length >= 13 && digits.length <= 19 && luhnValid(digits)) return true;
  }
  return false;
}

const pan: Detector = (leaf: Leaf) => holdsCardNumber(leaf.text) ? "pan" : undefined;
const cvc: Detector = (leaf: Leaf) =>
  CVC_KEYS.has(normalizedKey(leaf.key)) && /^\s*\d{3,4}\s*$/.test(leaf.text) ? "cvc" : undefined;
const track: Detector = (leaf: Leaf) =>
  TRACK_KEYS.has(normalizedKey(leaf.key)) ? "track-data" : undefined;

/** The `pci` redactor (`<q:redactor ref="pci"/>`). */
export const pciRedactor: Redactor = {
  name: "pci",
  locate: (payload) => locateLeaves(payload, [pan, cvc, track]),
};
