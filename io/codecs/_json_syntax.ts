/**
 * Finds where JSON text first breaks the grammar. `JSON.parse` does the real
 * parsing; this runs only after it failed, because its messages sometimes
 * lack a position and sometimes quote the payload (which may be sensitive).
 * Iterative, so any nesting depth is fine.
 *
 * @module
 */

/** The first syntax error: UTF-16 offset and a reason that quotes no payload text. */
export interface JsonSyntaxError {
  readonly offset: number;
  readonly reason: string;
}

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const LITERAL = /true|false|null/y;

/** The first syntax error of `text`, or undefined when it is valid JSON. */
export function jsonSyntaxError(text: string): JsonSyntaxError | undefined {
  let pos = 0;
  const stack: ("object" | "array")[] = [];
  const ws = () => {
    while (pos < text.length) {
      const c = text.charCodeAt(pos);
      if (c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) break;
      pos++;
    }
  };
  const fail = (reason: string): JsonSyntaxError => ({
    offset: pos,
    reason: pos >= text.length ? `${reason}, found the end of the text` : reason,
  });
  const string = (): JsonSyntaxError | undefined => {
    pos++; // opening quote
    while (pos < text.length) {
      const c = text.charCodeAt(pos);
      if (c === 0x22) {
        pos++;
        return undefined;
      }
      if (c < 0x20) return fail("a control character inside a string must be escaped");
      if (c === 0x5c) {
        const e = text[pos + 1];
        if (e === "u") {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(pos + 2, pos + 6))) {
            return fail("\\u must be followed by four hex digits");
          }
          pos += 6;
          continue;
        }
        if (e === undefined || !'"\\/bfnrt'.includes(e)) return fail("invalid escape sequence");
        pos += 2;
        continue;
      }
      pos++;
    }
    return fail("unterminated string");
  };
  const key = (): JsonSyntaxError | undefined => {
    if (text[pos] !== '"') return fail("expected a property name in double quotes");
    const bad = string();
    if (bad) return bad;
    ws();
    if (text[pos] !== ":") return fail("expected ':' after a property name");
    pos++;
    return undefined;
  };

  ws();
  for (;;) {
    // A value is expected at `pos`.
    ws();
    const c = text[pos];
    let opened = false;
    if (c === "{") {
      pos++;
      ws();
      if (text[pos] === "}") pos++;
      else {
        stack.push("object");
        const bad = key();
        if (bad) return bad;
        opened = true;
      }
    } else if (c === "[") {
      pos++;
      ws();
      if (text[pos] === "]") pos++;
      else {
        stack.push("array");
        opened = true;
      }
    } else if (c === '"') {
      const bad = string();
      if (bad) return bad;
    } else {
      NUMBER.lastIndex = pos;
      LITERAL.lastIndex = pos;
      const m = NUMBER.exec(text) ?? LITERAL.exec(text);
      if (m === null || m[0] === "" || m[0] === "-") return fail("expected a value");
      pos += m[0].length;
    }
    if (opened) continue;
    // After a value: close containers or move to the next member.
    for (;;) {
      ws();
      const top = stack.at(-1);
      if (top === undefined) {
        return pos < text.length ? fail("unexpected text after the JSON value") : undefined;
      }
      const close = top === "object" ? "}" : "]";
      if (text[pos] === close) {
        pos++;
        stack.pop();
        continue;
      }
      if (text[pos] !== ",") return fail(`expected ',' or '${close}'`);
      pos++;
      ws();
      if (top === "object") {
        const bad = key();
        if (bad) return bad;
      }
      break;
    }
  }
}

/**
 * The UTF-16 offset of the first bracket that opens level `maxDepth + 1`
 * of well-formed JSON `text`, or undefined when it nests no deeper than
 * `maxDepth`. Brackets inside strings do not count.
 */
export function jsonTooDeepAt(text: string, maxDepth: number): number | undefined {
  let depth = 0;
  for (let pos = 0; pos < text.length; pos++) {
    const c = text.charCodeAt(pos);
    if (c === 0x22) {
      // Skip the string (its brackets are text).
      for (pos++; pos < text.length && text.charCodeAt(pos) !== 0x22; pos++) {
        if (text.charCodeAt(pos) === 0x5c) pos++;
      }
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > maxDepth) return pos;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return undefined;
}
