/**
 * Source positions: turns offsets in the decoded document text into
 * 1-based line/column pairs, and maps an index inside a decoded attribute
 * value or element text back to the raw markup it came from (entities,
 * CDATA markers and CR LF pairs make the two differ).
 *
 * @module
 */

/** A 1-based position in the document. */
export interface Position {
  readonly line: number;
  readonly column: number;
}

/** The decoded document text with a line index. */
export class SourceText {
  /** The whole document. */
  readonly text: string;
  readonly #lineStarts: number[];

  constructor(text: string) {
    this.text = text;
    const starts = [0];
    for (let i = 0; i < text.length; i++) {
      if (text.charCodeAt(i) === 10) starts.push(i + 1);
    }
    this.#lineStarts = starts;
  }

  /** The line and column (UTF-16 units, 1-based) of an offset. */
  locate(offset: number): Position {
    const starts = this.#lineStarts;
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid] <= offset) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo + 1, column: offset - starts[lo] + 1 };
  }

  /**
   * The raw offset of the `index`-th decoded character of the markup between
   * `rawStart` and `rawEnd` (character data or an attribute value).
   */
  rawOffset(rawStart: number, rawEnd: number, index: number): number {
    const t = this.text;
    let raw = rawStart;
    let decoded = 0;
    while (raw < rawEnd && decoded < index) {
      if (t.startsWith("<![CDATA[", raw)) {
        const close = t.indexOf("]]>", raw + 9);
        const stop = close < 0 || close > rawEnd ? rawEnd : close;
        const take = Math.min(stop - (raw + 9), index - decoded);
        if (take < stop - (raw + 9)) return raw + 9 + take;
        decoded += take;
        raw = stop + 3;
      } else if (t.startsWith("<!--", raw)) {
        const close = t.indexOf("-->", raw + 4);
        raw = close < 0 ? rawEnd : close + 3;
      } else if (t[raw] === "&") {
        const semi = t.indexOf(";", raw);
        raw = semi < 0 || semi > rawEnd ? raw + 1 : semi + 1;
        decoded += 1;
      } else if (t[raw] === "\r" && t[raw + 1] === "\n") {
        raw += 2;
        decoded += 1;
      } else {
        raw += 1;
        decoded += 1;
      }
    }
    // The character itself may sit after comments or just inside a CDATA opener.
    while (t.startsWith("<!--", raw)) {
      const close = t.indexOf("-->", raw + 4);
      raw = close < 0 ? rawEnd : close + 3;
    }
    return t.startsWith("<![CDATA[", raw) ? raw + 9 : raw;
  }

  /** The position of the `index`-th decoded character of a raw span. */
  locateDecoded(rawStart: number, rawEnd: number, index: number): Position {
    return this.locate(this.rawOffset(rawStart, rawEnd, index));
  }
}
