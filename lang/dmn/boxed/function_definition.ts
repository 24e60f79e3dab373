/**
 * Boxed function definitions. A FEEL function closes over the scope it is
 * defined in; a call whose argument does not conform to its parameter's
 * declared type is null and does not run the body (as for FEEL's typed
 * parameters), and an argument outside the type's allowed values becomes
 * null. A Java function's body is a context naming `class` and
 * `method signature`, run through the `java:` mapping; PMML functions are
 * not evaluated.
 *
 * @module
 */
import { type EvalEnv, FeelFunction, type FeelType } from "../../feel/mod.ts";
import { DmnCode } from "../diagnostic.ts";
import { javaMapping, javaMethod } from "../java.ts";
import type { FunctionDefinition } from "../model.ts";
import { coerceToType } from "../types.ts";
import type { Compiler, DmnEnv, Evaluator, RunScope, StaticScope } from "../_compile.ts";

/** The function value of a definition: parameters, and a body run in a scope. */
export interface FunctionParts {
  /** Parameter names and declared types, in order. */
  readonly params: readonly { readonly name: string; readonly type: FeelType | undefined }[];
  /** What the function is called in messages. */
  readonly label: string;
}

/** Builds a FEEL function value that runs `body` with the converted arguments bound. */
export function functionValue(
  parts: FunctionParts,
  captured: RunScope,
  body: Evaluator,
): FeelFunction {
  const { params, label } = parts;
  // Declared parameter types make FEEL check the arguments: a call with a
  // non-conforming argument is null and the body never runs.
  return new FeelFunction(
    [params.map((p) => (p.type === undefined ? { name: p.name } : { name: p.name, type: p.type }))],
    (args, env) => {
      const values = new Map(captured.values);
      params.forEach((p, i) => {
        values.set(
          p.name,
          coerceToType(args[i] ?? null, p.type, env, `parameter '${p.name}' of ${label}`),
        );
      });
      return body({ values, env: asDmnEnv(env, captured.env) });
    },
    label,
  );
}

/**
 * The environment a function body runs in: the caller's (its warnings and
 * clock). A caller inside FEEL has no sink for unsupported constructs and
 * defects; those reports go to the environment the function was defined in.
 */
function asDmnEnv(env: EvalEnv, defining: DmnEnv): DmnEnv {
  if ("unsupported" in env) return env as DmnEnv;
  return {
    warn: (m) => env.warn(m),
    unsupported: (what) => defining.unsupported(what),
    defect: (message) => defining.defect(message),
    ...(env.now === undefined ? {} : { now: env.now }),
    ...(env.zone === undefined ? {} : { zone: env.zone }),
  };
}

/** Compiles a boxed function definition. */
export function compileFunctionDefinition(
  c: Compiler,
  x: FunctionDefinition,
  scope: StaticScope,
  label = "a function definition",
): Evaluator {
  const params = x.parameters.map((p) => ({ name: p.name, type: c.type(p.typeRef, x) }));
  const parts: FunctionParts = { params, label };
  if (x.functionKind === "PMML") {
    const what = "PMML functions";
    c.report(DmnCode.UNSUPPORTED, `${what} are not supported`, x, { severity: "WARNING" });
    return (s) =>
      functionValue(parts, s, (inner) => {
        inner.env.warn(`${label}: ${what} are not supported`);
        inner.env.unsupported(what);
        return null;
      });
  }
  if (x.body === undefined) {
    c.report(DmnCode.MALFORMED, "the function definition has no body", x, { severity: "WARNING" });
    return (s) => functionValue(parts, s, () => null);
  }
  if (x.functionKind === "FEEL") {
    const body = c.expression(x.body, scope.with(...params.map((p) => p.name)));
    return (s) => functionValue(parts, s, body);
  }
  // A Java function's body is a context naming the class and method, read where it is defined.
  const mapping = c.expression(x.body, scope);
  return (s) => {
    const target = javaMapping(mapping(s));
    const method = target === undefined ? undefined : javaMethod(target.cls, target.signature);
    const what = target === undefined
      ? "a Java function without 'class' and 'method signature'"
      : `the Java method ${target.cls}.${target.signature}`;
    return functionValue(parts, s, (inner) => {
      if (method === undefined) {
        inner.env.warn(`${label}: ${what} is not mapped`);
        inner.env.unsupported(what);
        return null;
      }
      return method(params.map((p) => inner.values.get(p.name) ?? null), inner.env);
    });
  };
}
