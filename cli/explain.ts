/**
 * `sutra explain [EXPR] [--context FILE] [--format text|json]`: evaluates a
 * FEEL expression and says what it produced, its type, and why any part of
 * it became null. Without EXPR it reads expressions from stdin, one per line,
 * until end of input or `:quit`.
 *
 * @module
 */
import { parseArgs } from "node:util";
import {
  type Diagnostic as FeelDiagnostic,
  evaluate,
  FeelContext,
  type FeelValue,
  formatFeel,
  fromJs,
  toJs,
  typeName,
  typeOf,
} from "../lang/feel/mod.ts";
import { type Diagnostic, diagnostic, DiagnosticError } from "../engine/core/diagnostic.ts";
import {
  type CliIo,
  type CliLog,
  cliLog,
  type Command,
  formatFlag,
  UsageError,
} from "./command.ts";
import { errorMessage } from "../engine/core/errors.ts";

const USAGE = `Usage: sutra explain [EXPRESSION] [--context FILE] [--format text|json]

Evaluates a FEEL expression and prints its value in FEEL syntax, its type and
the reason for every null. Without EXPRESSION, reads one expression per line
from stdin (':quit' ends).

The context file holds 'name: value' or 'name=value' lines. A value is JSON
or a FEEL expression, which may use the names defined above it; after '='
a value that is neither stays a string (after ':' it is an error). '#' starts
a comment. -v logs how each context value was read.`;

/** The `explain` command. */
export const explainCommand: Command = {
  name: "explain",
  summary: "Evaluate a FEEL expression and explain the result",
  usage: USAGE,
  async run(args: readonly string[], io: CliIo): Promise<number> {
    const { values, positionals } = parseFlags(args);
    const format = formatFlag(values.format);
    if (positionals.length > 1) {
      throw new UsageError("give one expression (quote it), or none to read from stdin");
    }
    const context = values.context
      ? await readContextFile(values.context, cliLog(io, "explain"))
      : new FeelContext();
    const now = () => Date.now();

    if (positionals.length === 1) {
      return report(explain(positionals[0], context, now), format, io) ? 0 : 1;
    }
    let ok = true;
    for await (const line of io.stdinLines?.() ?? []) {
      const text = line.trim();
      if (text === ":quit" || text === ":q") break;
      if (text === "") continue;
      ok = report(explain(text, context, now), format, io) && ok;
    }
    return ok ? 0 : 1;
  },
};

/** What one evaluation produced. */
type Explanation =
  | { readonly value: FeelValue; readonly warnings: readonly string[] }
  | { readonly diagnostics: readonly FeelDiagnostic[] };

function explain(text: string, context: FeelContext, now: () => number): Explanation {
  const r = evaluate(text, context, { now });
  return r.diagnostics !== undefined ? { diagnostics: r.diagnostics } : r;
}

function report(result: Explanation, format: string, io: CliIo): boolean {
  if ("diagnostics" in result) {
    if (format === "json") {
      io.stdout(JSON.stringify({ diagnostics: result.diagnostics }) + "\n");
    } else {
      for (const d of result.diagnostics) {
        const where = d.source ? `${d.source.line}:${d.source.column}: ` : "";
        io.stderr(`${where}${d.severity} ${d.code}: ${d.message}\n`);
      }
    }
    return false;
  }
  const type = typeName(typeOf(result.value));
  if (format === "json") {
    io.stdout(
      JSON.stringify({
        value: toJs(result.value) ?? null,
        feel: formatFeel(result.value),
        type,
        warnings: result.warnings,
      }) + "\n",
    );
  } else {
    io.stdout(`${formatFeel(result.value)}\n  type: ${type}\n`);
    for (const w of result.warnings) io.stdout(`  warning: ${w}\n`);
  }
  return true;
}

/**
 * Reads a context file of `name: value` / `name=value` lines (the first `:`
 * or `=` separates); every bad line is reported at once. `log` says at info
 * how each value was read.
 */
export async function readContextFile(path: string, log?: CliLog): Promise<FeelContext> {
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch (error) {
    throw new DiagnosticError(
      diagnostic(
        "SUTRA.CLI.FILE_UNREADABLE",
        `cannot read context file ${path}: ${(error as Error).message}`,
      ),
    );
  }
  const entries = new Map<string, FeelValue>();
  const definedOn = new Map<string, number>();
  const problems: Diagnostic[] = [];
  text.split(/\r?\n/).forEach((raw, index) => {
    const lineNumber = index + 1;
    const line = raw.trim();
    if (line === "" || line.startsWith("#")) return;
    const at = line.search(/[:=]/);
    const name = at < 0 ? "" : line.slice(0, at).trim();
    if (name === "") {
      problems.push(contextProblem(path, lineNumber, "expected 'name: value' or 'name=value'"));
      return;
    }
    const earlier = definedOn.get(name);
    if (earlier !== undefined) {
      problems.push(
        contextProblem(path, lineNumber, `'${name}' is already set on line ${earlier}`),
      );
      return;
    }
    definedOn.set(name, lineNumber);
    const valueText = line.slice(at + 1).trim();
    const parsed = parseContextValue(valueText, new FeelContext(new Map(entries)), {
      textFallback: line[at] === "=",
    });
    if ("error" in parsed) {
      problems.push(contextProblem(path, lineNumber, `'${name}': ${parsed.error}`));
    } else {
      entries.set(name, parsed.value);
      log?.info(
        `context ${name} = ${formatFeel(parsed.value)} (${
          typeName(typeOf(parsed.value))
        }, line ${lineNumber}, read as ${parsed.readAs})`,
      );
    }
  });
  if (problems.length > 0) throw new DiagnosticError(problems);
  return new FeelContext(entries);
}

/**
 * A context value: JSON, else a FEEL expression over the entries defined so
 * far. With `textFallback` (a `name=value` line, where unquoted words are the
 * norm) anything else is the text itself as a string; otherwise an error.
 */
function parseContextValue(
  text: string,
  scope: FeelContext,
  options: { readonly textFallback: boolean },
): { value: FeelValue; readAs: "JSON" | "FEEL" | "text" } | { error: string } {
  try {
    return { value: fromJs(JSON.parse(text)), readAs: "JSON" };
  } catch {
    // Not JSON: read it as a FEEL expression over the entries defined so far.
  }
  const r = evaluate(text, scope);
  let error: string | undefined;
  if (r.diagnostics !== undefined) error = r.diagnostics.map((d) => d.message).join("; ");
  else if (r.value === null && r.warnings.length > 0) {
    error = `is neither JSON nor a FEEL value (${r.warnings.join("; ")})`;
  } else return { value: r.value, readAs: "FEEL" };
  return options.textFallback ? { value: fromJs(text), readAs: "text" } : { error };
}

function contextProblem(path: string, line: number, message: string): Diagnostic {
  return diagnostic("SUTRA.CLI.CONTEXT_INVALID", `context file ${message}`, {
    source: { uri: path, line },
  });
}

function parseFlags(args: readonly string[]) {
  try {
    return parseArgs({
      args: [...args],
      options: { context: { type: "string" }, format: { type: "string" } },
      strict: true,
      allowPositionals: true,
    });
  } catch (error) {
    throw new UsageError(errorMessage(error));
  }
}
