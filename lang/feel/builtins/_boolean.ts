/**
 * The boolean built-in `not`, with ternary logic: anything other than true or
 * false negates to null.
 *
 * @module
 */
import { builtin, describe, fail, param } from "./_define.ts";

/** The boolean built-ins. */
export const booleanBuiltins = [
  builtin("not", [[param("negand")]], (args, env) => {
    const v = args[0];
    return typeof v === "boolean"
      ? !v
      : v === null
      ? null
      : fail(env, "not", `expects a boolean, got ${describe(v)}`);
  }),
];
