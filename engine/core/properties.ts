/**
 * A reader for Java-style `.properties` files, the format of
 * `sutra.properties`: `key=value`, `key: value` or `key value`, `#`/`!`
 * comments, backslash line continuations and `\uXXXX` escapes.
 *
 * @module
 */

/** One problem found while reading a properties file. */
export interface PropertiesError {
  readonly line: number;
  readonly message: string;
}

/** Parsed entries (last one wins) with the 1-based line each started on. */
export interface ParsedProperties {
  readonly entries: Map<string, { value: string; line: number }>;
  readonly errors: PropertiesError[];
}

/** Parses properties text; never throws. */
export function parseProperties(text: string): ParsedProperties {
  const entries = new Map<string, { value: string; line: number }>();
  const errors: PropertiesError[] = [];
  const lines = text.split(/\r\n|\r|\n/);
  for (let i = 0; i < lines.length; i++) {
    const start = i + 1;
    let logical = lines[i].replace(/^[ \t\f]+/, "");
    if (logical === "" || logical.startsWith("#") || logical.startsWith("!")) continue;
    while (endsWithOddBackslashes(logical) && i + 1 < lines.length) {
      logical = logical.slice(0, -1) + lines[++i].replace(/^[ \t\f]+/, "");
    }
    const { key, value } = splitEntry(logical);
    const unescapedKey = unescape(key, start, errors);
    const unescapedValue = unescape(value, start, errors);
    if (unescapedKey === "") {
      errors.push({ line: start, message: `line ${start} has a value but no key` });
      continue;
    }
    entries.set(unescapedKey, { value: unescapedValue, line: start });
  }
  return { entries, errors };
}

function endsWithOddBackslashes(s: string): boolean {
  let n = 0;
  for (let i = s.length - 1; i >= 0 && s[i] === "\\"; i--) n++;
  return n % 2 === 1;
}

function splitEntry(line: string): { key: string; value: string } {
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (c === "\\") {
      i++;
      continue;
    }
    if (c === "=" || c === ":" || c === " " || c === "\t" || c === "\f") {
      let j = i;
      while (j < line.length && /[ \t\f]/.test(line[j])) j++;
      if ((c === " " || c === "\t" || c === "\f") && (line[j] === "=" || line[j] === ":")) j++;
      else if (c === "=" || c === ":") j = i + 1;
      while (j < line.length && /[ \t\f]/.test(line[j])) j++;
      return { key: line.slice(0, i), value: line.slice(j) };
    }
  }
  return { key: line, value: "" };
}

const SIMPLE_ESCAPES: Record<string, string> = { t: "\t", n: "\n", r: "\r", f: "\f" };

function unescape(s: string, line: number, errors: PropertiesError[]): string {
  if (!s.includes("\\")) return s;
  let out = "";
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c !== "\\") {
      out += c;
      continue;
    }
    const next = s[++i];
    if (next === undefined) break;
    if (next === "u") {
      const hex = s.slice(i + 1, i + 5);
      if (!/^[0-9a-fA-F]{4}$/.test(hex)) {
        errors.push({ line, message: `line ${line} has a malformed \\u escape` });
        continue;
      }
      out += String.fromCharCode(parseInt(hex, 16));
      i += 4;
    } else {
      out += SIMPLE_ESCAPES[next] ?? next;
    }
  }
  return out;
}
