/**
 * YAML 1.2 parsing that keeps positions: every syntax problem and every
 * later finding about a value can name its line and column.
 *
 * @module
 */
import { isCollection, isPair, LineCounter, type Node, parseDocument } from "yaml";
import { type Diagnostic, diagnostic, type SourceLocation } from "../core/diagnostic.ts";

/** A path into a YAML document: map keys and list indexes. */
export type YamlPath = readonly (string | number)[];

/** A parsed YAML file. */
export interface YamlFile {
  readonly uri: string;
  /** The root node; null for an empty document. */
  readonly root: Node | null;
  /** Where a node starts. */
  at(node: Node): SourceLocation;
  /**
   * Where the value at `path` is; the nearest enclosing node that exists
   * when the path runs past the document (a missing key points at its map).
   */
  locate(path: YamlPath): SourceLocation;
}

/** What {@link parseYaml} returns. */
export interface ParseYamlResult {
  /** Present when the text is well-formed YAML. */
  readonly file?: YamlFile;
  readonly diagnostics: readonly Diagnostic[];
}

const DECODER = new TextDecoder("utf-8", { fatal: true });

/** Parses one YAML document. Malformed text, duplicate keys, unknown tags and several documents are errors. */
export function parseYaml(uri: string, bytes: Uint8Array): ParseYamlResult {
  let text: string;
  try {
    text = DECODER.decode(bytes);
  } catch {
    return { diagnostics: [syntax("the file is not UTF-8 text", { uri })] };
  }
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  const position = (offset: number): SourceLocation => {
    const { line, col } = lines.linePos(offset);
    return { uri, line, column: col };
  };
  // Warnings are unresolved tags and the like: a value the file meant
  // something by that this reader would take for something else.
  const problems = [...doc.errors, ...doc.warnings];
  if (problems.length > 0) {
    return {
      diagnostics: problems.map((e) =>
        syntax(
          e.message.split("\n")[0].replace(/ at line \d+, column \d+:?$/, ""),
          position(e.pos[0]),
        )
      ),
    };
  }
  const root = (doc.contents ?? null) as Node | null;
  const at = (node: Node): SourceLocation => position(node.range?.[0] ?? 0);
  return {
    diagnostics: [],
    file: {
      uri,
      root,
      at,
      locate(path: YamlPath): SourceLocation {
        let node: Node | null = root;
        if (node === null) return { uri, line: 1, column: 1 };
        for (const step of path) {
          const next = childOf(node, step);
          if (next === undefined) break;
          node = next;
        }
        return at(node);
      },
    },
  };
}

function childOf(node: Node, step: string | number): Node | undefined {
  if (!isCollection(node)) return undefined;
  if (typeof step === "number") {
    const item = node.items[step];
    return item !== undefined && !isPair(item) ? item as Node : undefined;
  }
  for (const item of node.items) {
    if (!isPair(item)) continue;
    const key = item.key as Node & { value?: unknown };
    if (key?.value === step) return (item.value ?? key) as Node;
  }
  return undefined;
}

function syntax(message: string, source: SourceLocation): Diagnostic {
  return diagnostic("SUTRA.CONFIG.YAML.SYNTAX", message, { source });
}
