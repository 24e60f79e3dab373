import assert from "node:assert/strict";
import { evaluate, formatFeel } from "../../lang/feel/mod.ts";
import { decodeValue, encodeValue, TypedValueError } from "./typed_value.ts";

const feel = (text: string) => evaluate(text).value ?? null;

Deno.test("typed values: each kind has one rendering with its tag", () => {
  const cases: [string, string][] = [
    ["1250.75", "n|1250.75"],
    ["1250.750", "n|1250.75"],
    ["-0", "n|0"],
    ["true", "b|true"],
    ["false", "b|false"],
    ["null", "z|"],
    ['"INB-7"', "s|INB-7"],
    ['"n|42"', "s|n|42"],
    ['[1, {sku: "A-1"}]', 'j|[1,{"sku":"A-1"}]'],
    ['date("2026-03-01")', 'j|{"@d":"2026-03-01"}'],
    ['time("10:15:00@Europe/Paris")', 'j|{"@t":"10:15:00@Europe/Paris"}'],
    ['date and time("2026-03-01T10:00:00+01:00")', 'j|{"@dt":"2026-03-01T10:00:00+01:00"}'],
    ['duration("P1DT2H")', 'j|{"@dtd":"P1DT2H"}'],
    ['duration("P1Y2M")', 'j|{"@ymd":"P1Y2M"}'],
    ['{"@type": 1}', 'j|{"@@type":1}'],
    ["[1..5]", "s|[1..5]"],
  ];
  for (const [text, encoded] of cases) assert.equal(encodeValue(feel(text)), encoded, text);
});

Deno.test("typed values: decode restores the FEEL value and re-encodes to the same text", () => {
  for (
    const text of [
      "12345678901234567890.123456789",
      "1e40",
      '{b: 1, a: [null, true, "x"], "@c": {d: date("2020-02-29")}}',
      'date and time("2026-10-25T01:30:00@Europe/Paris") + duration("PT2H")',
      'date and time("2026-10-25T02:30:00@Europe/Paris")',
      '"line\\nbreak | bar"',
    ]
  ) {
    const value = feel(text);
    const encoded = encodeValue(value);
    const decoded = decodeValue(encoded);
    assert.equal(formatFeel(decoded), formatFeel(value), text);
    assert.equal(encodeValue(decoded), encoded, text);
  }
});

Deno.test("typed values: the second occurrence of a repeated wall time keeps its offset", () => {
  const later = feel('date and time("2026-10-25T01:30:00@Europe/Paris") + duration("PT2H")');
  const encoded = encodeValue(later);
  assert.equal(encoded, 'j|{"@dt":"2026-10-25T02:30:00@Europe/Paris;3600"}');
  const back = decodeValue(encoded);
  assert.equal(evaluate("a = b", { a: back, b: later }).value, true);
});

Deno.test("typed values: malformed text is refused", () => {
  for (
    const bad of [
      "",
      "x",
      "q|1",
      "n|1.",
      "n|abc",
      "b|yes",
      "z|x",
      "j|{",
      'j|{"a":1,"@d":"x"}',
      'j|{"@d":"not a date"}',
    ]
  ) {
    assert.throws(() => decodeValue(bad), TypedValueError, bad);
  }
});
