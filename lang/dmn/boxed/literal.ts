/**
 * Literal expressions: FEEL text compiled once. Text in another expression
 * language is reported as unsupported and evaluates to null.
 *
 * @module
 */
import { DmnCode } from "../diagnostic.ts";
import type { LiteralExpression } from "../model.ts";
import { type Compiler, type Evaluator, runFeel, type StaticScope } from "../_compile.ts";

/** Compiles a literal expression. */
export function compileLiteral(c: Compiler, x: LiteralExpression, scope: StaticScope): Evaluator {
  if (x.language !== undefined) {
    const what = `expression language '${x.language}'`;
    c.report(DmnCode.UNSUPPORTED, `${what} is not supported; only FEEL is`, x);
    return (s) => {
      s.env.unsupported(what);
      return null;
    };
  }
  if (x.text.trim() === "") {
    // An empty box (a decision not yet written) is legal DMN; it has no value.
    c.report(DmnCode.MALFORMED, "the literal expression has no text; it evaluates to null", x, {
      severity: "WARNING",
    });
    return () => null;
  }
  const compiled = c.feel(x.text, scope, x);
  if (compiled === undefined) {
    return (s) => {
      s.env.warn(`the expression ${JSON.stringify(x.text.trim())} does not parse`);
      return null;
    };
  }
  return (s) => runFeel(compiled, s);
}
