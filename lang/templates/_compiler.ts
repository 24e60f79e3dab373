/**
 * Compiles XSLT in this process with the XSLT compiler SaxonJS carries
 * (the compiler stylesheet `npm:xslt3` runs on the command line), so a
 * deployed engine needs no permission to run programs or write files: the
 * modules are parsed from memory and handed to the compiler's document pool,
 * which is where its `xsl:import` looks them up. The result is the same
 * Stylesheet Export File `xslt3 -export` would write, checksum included.
 *
 * The compiler is reached through SaxonJS's platform API
 * (`getPlatform().resource("compiler")`, `checkOptions`, `internalTransform`,
 * `XPath.sefToJSON`), the calls `xslt3` and SaxonJS's own `fn:transform`
 * make; they are pinned to saxon-js 2.7.0 in deno.json and covered by
 * `xslt_test.ts`.
 *
 * @module
 */
import SaxonJS from "saxon-js";
import type { Sef } from "./_saxon.ts";

/** One stylesheet module: its file name (no directory) and text. */
export interface StylesheetModule {
  /** A plain file name, e.g. `reply.xsl`. */
  readonly file: string;
  /** The module's XML text. */
  readonly text: string;
}

/** A static error as the compiler reports it. */
export interface StaticError {
  /** The XSLT/XPath error code, e.g. `XTSE0010`. */
  readonly code?: string;
  /** What is wrong. */
  readonly message: string;
  /** The line the compiler names, in `module` when it names one. */
  readonly line?: number;
  /** The file name of the module the line is in. */
  readonly module?: string;
}

/** What {@link compileModules} returns: the compiled stylesheet or why there is none. */
export type CompileOutcome =
  | { readonly sef: Sef; readonly error?: undefined }
  | { readonly sef?: undefined; readonly error: StaticError };

/** A node of an export tree: `N` its name, `C` its children. */
interface SefNode {
  N: string;
  C?: SefNode[];
  parentNode?: SefNode;
  [attribute: string]: unknown;
}

interface XmlDocument {
  _saxonBaseUri?: string;
  readonly firstChild: unknown;
}

interface CompilerApi {
  getPlatform(): {
    resource(name: "compiler"): SefNode;
    parseXmlFromString(text: string): XmlDocument;
  };
  checkOptions(options: Record<string, unknown>): { principalResult?: unknown };
  internalTransform(stylesheet: SefNode, source: XmlDocument, options: unknown): void;
  XdmMap: new () => { inSituPut(key: unknown, value: unknown[]): void };
  XS: { QName: { fromParts(prefix: string, uri: string, local: string): unknown } };
  XPath: { sefToJSON(node: unknown, keepLocations: boolean): SefNode };
}

const saxon = SaxonJS as unknown as CompilerApi;

/** Where the modules live while they compile; relocatable output drops it again. */
const BASE = "file:///sutra-xslt/";
const EXPORT_NS = "http://ns.saxonica.com/xslt/export";
const CHECKSUM = String.fromCharCode(931);
const ERROR_NS = /^Q\{[^}]*\}/;
// ` on line 3 in file:///sutra-xslt/reply.xsl` or ` on line 3`.
const LOCATION = /on line (\d+)(?: in (\S+))?/;

let compiler: SefNode | undefined;

/** The compiler stylesheet, loaded once and linked to its parents as SaxonJS expects. */
function compilerStylesheet(): SefNode {
  if (compiler === undefined) {
    compiler = saxon.getPlatform().resource("compiler");
    linkParents(compiler);
  }
  return compiler;
}

function linkParents(node: SefNode): void {
  for (const child of node.C ?? []) {
    child.parentNode = node;
    linkParents(child);
  }
}

/** Compiled stylesheets by their modules' names and texts; the oldest goes first when full. */
const cache = new Map<string, CompileOutcome>();
const CACHE_ENTRIES = 256;

/**
 * Compiles the stylesheet whose principal module is `main` (one of
 * `modules`). A static error is returned, not thrown. The outcome is cached
 * by the modules' names and texts, so redeploying a package (or loading the
 * same stylesheet under another key) does not compile it again.
 */
export function compileModules(
  modules: readonly StylesheetModule[],
  main: string,
): CompileOutcome {
  const key = JSON.stringify([main, modules.map((m) => [m.file, m.text])]);
  const cached = cache.get(key);
  if (cached !== undefined) return cached;
  const outcome = compile(modules, main);
  if (cache.size >= CACHE_ENTRIES) cache.delete(cache.keys().next().value!);
  cache.set(key, outcome);
  return outcome;
}

function compile(modules: readonly StylesheetModule[], main: string): CompileOutcome {
  try {
    const platform = saxon.getPlatform();
    const pool: Record<string, XmlDocument> = {};
    for (const m of modules) {
      const doc = platform.parseXmlFromString(m.text);
      doc._saxonBaseUri = BASE + m.file;
      pool[BASE + m.file] = doc;
    }
    const entry = pool[BASE + main];
    if (entry === undefined) return { error: { message: `no module named ${main}` } };
    const stylesheetParams = new saxon.XdmMap();
    stylesheetParams.inSituPut(saxon.XS.QName.fromParts("", "", "staticParameters"), [
      new saxon.XdmMap(),
    ]);
    const options = saxon.checkOptions({
      destination: "application",
      initialMode: "compile-complete",
      // Relocatable: base URIs are given at each render instead of the pool's.
      templateParams: { "Q{}options": { noXPath: false, relocatable: true } },
      stylesheetParams,
      tunnelParams: {},
      functionParams: {},
      outputProperties: {},
      stylesheetInternal: compilerStylesheet(),
      documentPool: pool,
      deliverMessage: () => {},
    });
    saxon.internalTransform(compilerStylesheet(), entry, options);
    const result = Array.isArray(options.principalResult)
      ? options.principalResult[0]
      : options.principalResult;
    const sef = saxon.XPath.sefToJSON((result as XmlDocument).firstChild, false);
    addChecksum(sef);
    return { sef: sef as unknown as Sef };
  } catch (e) {
    return { error: staticError(e) };
  }
}

/** Reads a thrown compiler error: its code, message and the line it names. */
function staticError(e: unknown): StaticError {
  if (typeof e !== "object" || e === null || !("message" in e)) return { message: String(e) };
  const err = e as { code?: string; message: string; errorObject?: { toString(): string } };
  const where = LOCATION.exec(err.errorObject?.toString() ?? "");
  const code = err.code?.replace(ERROR_NS, "");
  return {
    ...(code === undefined ? {} : { code }),
    message: err.message,
    ...(where === null ? {} : {
      line: Number(where[1]),
      ...(where[2] === undefined ? {} : { module: where[2].replace(/^.*\//, "") }),
    }),
  };
}

/** Stamps the checksum SaxonJS verifies before it runs an export tree (as `xslt3 -export` does). */
function addChecksum(root: SefNode): void {
  const hash = (text: string, seed: number) => {
    let h = seed << 8;
    for (let i = 0; i < text.length; i++) h = (h << 1) + text.charCodeAt(i);
    return h;
  };
  const pair = (a: string, b: string, seed: number) => hash(a, seed) ^ hash(b, seed);
  let sum = 0;
  let index = 0;
  const visit = (node: SefNode) => {
    sum ^= pair(node.N, EXPORT_NS, index++);
    for (const key in node) {
      if (!Object.hasOwn(node, key) || key === "N" || key === "C" || key === CHECKSUM) continue;
      sum ^= pair(key, "", index);
      sum ^= hash(String(node[key]), index);
    }
    node.C?.forEach(visit);
    sum ^= 1;
  };
  visit(root);
  root[CHECKSUM] = (sum < 0 ? 4294967295 + sum + 1 : sum).toString(16);
}
