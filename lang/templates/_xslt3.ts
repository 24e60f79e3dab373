/**
 * Compiles XSLT with Saxonica's `xslt3` command (npm `xslt3`, the command
 * line that ships SaxonJS's XSLT compiler), run as a child Deno process:
 *
 *     xslt3 -xsl:<main module> -export:<file>.sef.json -nogo -relocate:on
 *
 * The stylesheet modules are written to a fresh temporary directory, which
 * is the only place the child may read and write; the compiled stylesheet
 * (SEF) is read back and the directory removed. A static error comes back as
 * the first error the command reports.
 *
 * Needs permission to run `Deno.execPath()` and to write a temporary
 * directory.
 *
 * @module
 */
import type { Sef } from "./_saxon.ts";

/** The `xslt3` package the compiler runs from; keep equal to deno.json's `xslt3` import. */
export const XSLT3 = "npm:xslt3@2.7.0";

/** One stylesheet module: its file name (no directory) and text. */
export interface StylesheetModule {
  /** A plain file name, e.g. `reply.xsl`. */
  readonly file: string;
  /** The module's XML text. */
  readonly text: string;
}

/** A static error as `xslt3` reports it. */
export interface StaticError {
  /** The XSLT/XPath error code, e.g. `XTSE0010`. */
  readonly code?: string;
  /** What is wrong. */
  readonly message: string;
  /** The line `xslt3` names, in `module` when it names one. */
  readonly line?: number;
  /** The file name of the module the line is in. */
  readonly module?: string;
}

/** What {@link compileModules} returns: the compiled stylesheet or why there is none. */
export type CompileOutcome =
  | { readonly sef: Sef; readonly error?: undefined }
  | { readonly sef?: undefined; readonly error: StaticError };

// `Error XTSE0010 on line 3 in tmp/reply.xsl:` or `Error XPST0003:`, then indented message lines.
const ERROR_HEADER = /^Error (\S+?)(?: on line (\d+) in (\S+))?:$/;

/**
 * Compiles the stylesheet whose principal module is `main` (one of
 * `modules`). A compiler that cannot be run (no permission to run deno or
 * write a temporary directory, the package cannot be fetched) is an error
 * too, not a throw.
 */
export function compileModules(
  modules: readonly StylesheetModule[],
  main: string,
): CompileOutcome {
  let dir: string | undefined;
  try {
    dir = Deno.makeTempDirSync({ prefix: "sutra-xslt-" });
    for (const m of modules) Deno.writeTextFileSync(`${dir}/${m.file}`, m.text);
    const sefFile = `${dir}/${main}.sef.json`;
    const output = new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--quiet",
        "--no-prompt",
        `--allow-read=${dir}`,
        `--allow-write=${dir}`,
        // axios, a saxon-js dependency, lists the environment when loaded.
        "--ignore-env",
        XSLT3,
        `-xsl:${dir}/${main}`,
        `-export:${sefFile}`,
        "-nogo",
        // Base URIs are given at each render instead of the temporary directory.
        "-relocate:on",
      ],
      env: { NO_COLOR: "1" },
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).outputSync();
    if (output.success) return { sef: JSON.parse(Deno.readTextFileSync(sefFile)) as Sef };
    const decoder = new TextDecoder();
    return { error: firstError(decoder.decode(output.stderr) + decoder.decode(output.stdout)) };
  } catch (e) {
    const reason = e instanceof Error ? e.message : String(e);
    return { error: { message: `the XSLT compiler (${XSLT3}) could not run: ${reason}` } };
  } finally {
    if (dir !== undefined) Deno.removeSync(dir, { recursive: true });
  }
}

/** The first error in `xslt3`'s report, or the command's own failure. */
function firstError(report: string): StaticError {
  const lines = report.split("\n");
  const at = lines.findIndex((l) => ERROR_HEADER.test(l));
  if (at < 0) {
    const first = lines.map((l) => l.trim()).find((l) => l !== "") ?? "no report";
    return { message: `the XSLT compiler (${XSLT3}) failed: ${first}` };
  }
  const [, code, line, module] = ERROR_HEADER.exec(lines[at])!;
  const message: string[] = [];
  for (const l of lines.slice(at + 1)) {
    if (!/^\s/.test(l)) break;
    message.push(l.trim());
  }
  return {
    code,
    message: message.join(" "),
    ...(line === undefined ? {} : { line: Number(line), module: module.replace(/^.*\//, "") }),
  };
}
