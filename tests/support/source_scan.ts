/**
 * A small TypeScript source scanner for the architecture gate: splits a file
 * into code, comments, string literals and template text so rules can look at
 * exactly the parts they care about, with line numbers.
 *
 * @module
 */

/** One lexical piece of a source file. */
export interface Piece {
  readonly kind: "code" | "comment" | "string" | "regex";
  readonly text: string;
  /** 1-based line where the piece starts. */
  readonly line: number;
}

const REGEX_PRECEDERS = new Set([
  "(",
  ",",
  "=",
  ":",
  "[",
  "!",
  "&",
  "|",
  "?",
  "{",
  "}",
  ";",
  "+",
  "-",
  "*",
  "%",
  "<",
  ">",
  "~",
  "^",
]);
const REGEX_KEYWORDS =
  /(?:^|[^\w$])(return|typeof|case|do|else|in|of|new|delete|void|throw|yield|await)\s*$/;

/** Splits source text into pieces. Template literal `${…}` bodies are scanned as code. */
export function scanSource(text: string): Piece[] {
  const pieces: Piece[] = [];
  let line = 1;
  let i = 0;
  let code = "";
  let codeLine = 1;
  const templateDepth: number[] = []; // brace depth at which each open template's ${ began
  let braceDepth = 0;

  const flushCode = () => {
    if (code !== "") pieces.push({ kind: "code", text: code, line: codeLine });
    code = "";
  };
  const push = (kind: Piece["kind"], start: number, end: number, startLine: number) => {
    flushCode();
    pieces.push({ kind, text: text.slice(start, end), line: startLine });
    codeLine = line;
  };
  const advance = (to: number) => {
    for (let k = i; k < to; k++) if (text[k] === "\n") line++;
    i = to;
  };
  const scanTemplate = () => {
    // i points just after a backtick or a closing `}` of a `${…}`.
    const start = i;
    const startLine = line;
    while (i < text.length) {
      const c = text[i];
      if (c === "\\") {
        advance(i + 2);
        continue;
      }
      if (c === "`") {
        push("string", start, i, startLine);
        advance(i + 1);
        return;
      }
      if (c === "$" && text[i + 1] === "{") {
        push("string", start, i, startLine);
        advance(i + 2);
        templateDepth.push(braceDepth);
        braceDepth++;
        return;
      }
      advance(i + 1);
    }
    push("string", start, i, startLine);
  };

  while (i < text.length) {
    const c = text[i];
    const next = text[i + 1];
    if (c === "/" && next === "/") {
      const end = text.indexOf("\n", i);
      const stop = end < 0 ? text.length : end;
      const startLine = line;
      const start = i;
      advance(stop);
      push("comment", start, stop, startLine);
      continue;
    }
    if (c === "/" && next === "*") {
      const end = text.indexOf("*/", i + 2);
      const stop = end < 0 ? text.length : end + 2;
      const startLine = line;
      const start = i;
      advance(stop);
      push("comment", start, stop, startLine);
      continue;
    }
    if (c === "'" || c === '"') {
      const startLine = line;
      let j = i + 1;
      while (j < text.length && text[j] !== c && text[j] !== "\n") j += text[j] === "\\" ? 2 : 1;
      const start = i + 1;
      advance(Math.min(j + 1, text.length));
      push("string", start, j, startLine);
      continue;
    }
    if (c === "`") {
      flushCode();
      advance(i + 1);
      scanTemplate();
      continue;
    }
    if (c === "{") braceDepth++;
    if (c === "}") {
      braceDepth--;
      if (templateDepth.length > 0 && templateDepth[templateDepth.length - 1] === braceDepth) {
        templateDepth.pop();
        flushCode();
        advance(i + 1);
        scanTemplate();
        continue;
      }
    }
    if (c === "/" && looksLikeRegexStart(code)) {
      const startLine = line;
      let j = i + 1;
      let inClass = false;
      while (j < text.length && text[j] !== "\n") {
        if (text[j] === "\\") {
          j += 2;
          continue;
        }
        if (text[j] === "[") inClass = true;
        else if (text[j] === "]") inClass = false;
        else if (text[j] === "/" && !inClass) break;
        j++;
      }
      const start = i;
      advance(Math.min(j + 1, text.length));
      push("regex", start, i, startLine);
      continue;
    }
    if (code === "") codeLine = line;
    code += c;
    advance(i + 1);
  }
  flushCode();
  return pieces;
}

function looksLikeRegexStart(codeSoFar: string): boolean {
  const trimmed = codeSoFar.trimEnd();
  if (trimmed === "") return true;
  const last = trimmed[trimmed.length - 1];
  return REGEX_PRECEDERS.has(last) || REGEX_KEYWORDS.test(trimmed);
}
