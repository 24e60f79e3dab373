/**
 * The architecture gate: DESIGN.md's dependency rules and the domain
 * denylist, checked over a source tree. Each violation names file, line and
 * rule.
 *
 * @module
 */
import { type Piece, scanSource } from "./source_scan.ts";

/** One broken rule. */
export interface Violation {
  /** Path relative to the checked root. */
  readonly file: string;
  readonly line: number;
  readonly rule: string;
  readonly message: string;
}

/** Business-domain terms that may not appear in identifiers or literals of the neutral core. */
export const DOMAIN_DENYLIST: readonly string[] = [
  "swift",
  "fednow",
  "fedwire",
  "pacs",
  "camt",
  "nacha",
  "edifact",
  "hl7",
  "iso20022",
  "x12",
];

/** Module specifiers that perform I/O; the executor must reach the world through ports. */
const IO_MODULES = /^(node:(fs|net|http|https|child_process|dgram|dns|tls|fs\/promises)|npm:)/;
const IO_GLOBALS =
  /\b(Deno\.|fetch\s*\(|WebSocket\s*\(|setTimeout\s*\(|setInterval\s*\(|Date\.now\s*\(|new\s+Date\s*\(\s*\))/;

/** Formats a violation as `file:line: [rule] message`. */
export function formatViolation(v: Violation): string {
  return `${v.file}:${v.line}: [${v.rule}] ${v.message}`;
}

/** Checks every `.ts` file under `root` (skipping node_modules, fixtures and dot-folders). */
export async function checkArchitecture(root: string): Promise<Violation[]> {
  const violations: Violation[] = [];
  for await (const file of walkTs(root, "")) {
    const text = await Deno.readTextFile(`${root}/${file}`);
    violations.push(...checkFile(file, text));
  }
  return violations.sort((a, b) => a.file.localeCompare(b.file) || a.line - b.line);
}

async function* walkTs(root: string, dir: string): AsyncGenerator<string> {
  const entries: Deno.DirEntry[] = [];
  for await (const e of Deno.readDir(dir ? `${root}/${dir}` : root)) entries.push(e);
  entries.sort((a, b) => a.name.localeCompare(b.name));
  for (const e of entries) {
    const rel = dir ? `${dir}/${e.name}` : e.name;
    if (e.isDirectory) {
      if (e.name.startsWith(".") || e.name === "node_modules" || e.name === "fixtures") continue;
      yield* walkTs(root, rel);
    } else if (e.isFile && e.name.endsWith(".ts")) {
      yield rel;
    }
  }
}

/** Checks one file given its root-relative path and text. */
export function checkFile(file: string, text: string): Violation[] {
  const violations: Violation[] = [];
  const pieces = scanSource(text);
  const top = file.split("/")[0];
  const isTest = /_test\.ts$/.test(file);

  for (const imp of importsOf(pieces)) {
    const target = resolveSpecifier(file, imp.specifier);
    const add = (rule: string, message: string) =>
      violations.push({ file, line: imp.line, rule, message });
    if (top === "lang" && target !== undefined) {
      const targetTop = target.split("/")[0];
      if (targetTop === "engine" || targetTop === "io" || targetTop === "cli") {
        add("lang-independent", `lang/ must not import ${targetTop}/ ('${imp.specifier}')`);
      }
      if (
        file.startsWith("lang/feel/") && target.startsWith("lang/") &&
        !target.startsWith("lang/feel/")
      ) {
        add(
          "feel-standalone",
          `lang/feel must not import other lang/ modules ('${imp.specifier}')`,
        );
      }
    }
    if (top === "engine" && !isTest && target !== undefined) {
      const targetTop = target.split("/")[0];
      if (targetTop === "io" || targetTop === "cli") {
        add(
          "engine-spi-only",
          `engine/ reaches ${targetTop}/ only through SPI registries ('${imp.specifier}')`,
        );
      }
    }
    if (file.startsWith("engine/executor/") && !isTest && IO_MODULES.test(imp.specifier)) {
      add(
        "executor-no-io",
        `the executor performs no I/O; '${imp.specifier}' must come through a port`,
      );
    }
  }

  if (file.startsWith("engine/executor/") && !isTest) {
    for (const p of pieces) {
      if (p.kind !== "code") continue;
      const lines = p.text.split("\n");
      lines.forEach((l, k) => {
        const m = IO_GLOBALS.exec(l);
        if (m) {
          violations.push({
            file,
            line: p.line + k,
            rule: "executor-no-io",
            message: `the executor performs no I/O; '${m[1].trim()}' must come through a port`,
          });
        }
      });
    }
  }

  if ((top === "engine" || top === "lang") && !isTest) {
    for (const p of pieces) {
      if (p.kind === "comment") continue;
      const lines = p.text.split("\n");
      lines.forEach((l, k) => {
        for (const term of domainTerms(l)) {
          violations.push({
            file,
            line: p.line + k,
            rule: "domain-neutral",
            message: `domain term '${term}' in ${
              p.kind === "code" ? "an identifier" : "a literal"
            }`,
          });
        }
      });
    }
  }
  return violations;
}

/** Denylisted terms found as words (camelCase, snake_case and digits split) in a text. */
export function domainTerms(text: string): string[] {
  const found = new Set<string>();
  const words = text
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2")
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w !== "");
  for (const word of words) {
    for (const term of DOMAIN_DENYLIST) {
      // `pacs008`, `camt053` and `x12` count; `swiftly` or `impacts` do not.
      if (word === term || (word.startsWith(term) && /^\d+$/.test(word.slice(term.length)))) {
        found.add(term);
      }
    }
  }
  return [...found];
}

interface Import {
  readonly specifier: string;
  readonly line: number;
}

function importsOf(pieces: readonly Piece[]): Import[] {
  const found: Import[] = [];
  for (let k = 0; k < pieces.length; k++) {
    const p = pieces[k];
    if (p.kind !== "string") continue;
    // Look back over the code before this literal: `from`, bare `import`, `import(` or `export … from`.
    let before = "";
    for (let b = k - 1; b >= 0 && before.length < 400; b--) {
      if (pieces[b].kind === "comment") continue;
      if (pieces[b].kind !== "code") break;
      before = pieces[b].text + before;
    }
    if (/(\bfrom\s*|\bimport\s*|\bimport\s*\(\s*)$/.test(before)) {
      found.push({ specifier: p.text, line: p.line });
    }
  }
  return found;
}

/** The root-relative path a relative specifier points at; undefined for bare/npm specifiers. */
function resolveSpecifier(file: string, specifier: string): string | undefined {
  if (!specifier.startsWith(".")) return undefined;
  const parts = file.split("/").slice(0, -1);
  for (const seg of specifier.split("/")) {
    if (seg === "." || seg === "") continue;
    if (seg === "..") parts.pop();
    else parts.push(seg);
  }
  return parts.join("/");
}
