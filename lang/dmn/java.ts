/**
 * `java:` external functions without a JVM: the static `java.lang` methods
 * models commonly bind (Math, String.valueOf/format, the boxed types'
 * valueOf/parse methods) mapped to exact JS equivalents, with Java's
 * argument and result conversions (int ranges, float rounding, char as a
 * one-character string). Any other class or method is not run: its call is
 * null with a warning naming it.
 *
 * @module
 */
import {
  type EvalEnv,
  type ExternalResolver,
  FeelContext,
  FeelDecimal,
  type FeelValue,
  formatFeel,
  kindName,
} from "../feel/mod.ts";

/** A Java parameter or result type this mapping understands. */
type JavaType =
  | "double"
  | "float"
  | "int"
  | "long"
  | "short"
  | "byte"
  | "char"
  | "boolean"
  | "String"
  | "Object"
  | "Object[]";

type JsValue = number | string | boolean | JsValue[] | null;

interface JavaMethod {
  readonly params: readonly JavaType[];
  readonly result: JavaType;
  readonly run: (...args: JsValue[]) => JsValue;
}

const TYPE_NAMES: Readonly<Record<string, JavaType>> = {
  double: "double",
  "java.lang.Double": "double",
  float: "float",
  "java.lang.Float": "float",
  int: "int",
  "java.lang.Integer": "int",
  long: "long",
  "java.lang.Long": "long",
  short: "short",
  "java.lang.Short": "short",
  byte: "byte",
  "java.lang.Byte": "byte",
  char: "char",
  "java.lang.Character": "char",
  boolean: "boolean",
  "java.lang.Boolean": "boolean",
  "java.lang.String": "String",
  String: "String",
  "java.lang.Object": "Object",
  Object: "Object",
  "[Ljava.lang.Object;": "Object[]",
  "java.lang.Object[]": "Object[]",
  "java.lang.Object...": "Object[]",
};

const INTEGER_RANGES: Partial<Record<JavaType, readonly [number, number]>> = {
  int: [-2147483648, 2147483647],
  short: [-32768, 32767],
  byte: [-128, 127],
  long: [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
};

const num = (x: JsValue) => x as number;
const str = (x: JsValue) => x as string;

/** Java's `Integer.parseInt` family: an optional sign and decimal digits only. */
function parseJavaInteger(s: string, type: JavaType): number | null {
  if (!/^[+-]?\d+$/.test(s)) return null;
  const n = Number(s);
  const range = INTEGER_RANGES[type]!;
  return n >= range[0] && n <= range[1] ? n : null;
}

/** Java's `Double.parseDouble`: decimal and exponent syntax, surrounding blanks ignored. */
function parseJavaDouble(s: string): number | null {
  const t = s.trim();
  if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?[dDfF]?$/.test(t)) return null;
  return Number(t.replace(/[dDfF]$/, ""));
}

function javaRound(x: number): number {
  return Math.floor(x + 0.5);
}

/** `String.format` for the common conversions: %s %d %f (with precision) %n %%. */
function javaFormat(format: string, args: JsValue[]): string | null {
  let i = 0;
  let failed = false;
  const out = format.replace(
    /%(\d+\$)?(-?\d+)?(\.\d+)?([sdfn%])/g,
    (_m, pos, width, prec, conv) => {
      if (conv === "%") return "%";
      if (conv === "n") return "\n";
      const arg = pos === undefined ? args[i++] : args[parseInt(pos) - 1];
      if (arg === undefined) {
        failed = true;
        return "";
      }
      let s: string;
      if (conv === "s") s = arg === null ? "null" : String(arg);
      else if (conv === "d") {
        if (typeof arg !== "number" || !Number.isInteger(arg)) failed = true;
        s = String(arg);
      } else {
        if (typeof arg !== "number") failed = true;
        s = (arg as number).toFixed(prec === undefined ? 6 : parseInt(prec.slice(1)));
      }
      if (width !== undefined) {
        const w = parseInt(width);
        s = w < 0 ? s.padEnd(-w) : s.padStart(w);
      }
      return s;
    },
  );
  return failed ? null : out;
}

function javaString(x: JsValue, type: JavaType): string {
  if (type === "double" || type === "float") {
    const n = x as number;
    return Number.isInteger(n) ? n.toFixed(1) : String(n);
  }
  return String(x);
}

/** The methods, keyed by `class.name(param,…)` without spaces. */
const METHODS = new Map<string, JavaMethod>();

function define(
  cls: string,
  name: string,
  params: JavaType[],
  result: JavaType,
  run: JavaMethod["run"],
) {
  const typeKey = params.join(",");
  METHODS.set(`java.lang.${cls}.${name}(${typeKey})`, { params, result, run });
}

const UNARY_MATH: Record<string, (x: number) => number> = {
  sin: Math.sin,
  cos: Math.cos,
  tan: Math.tan,
  asin: Math.asin,
  acos: Math.acos,
  atan: Math.atan,
  sinh: Math.sinh,
  cosh: Math.cosh,
  tanh: Math.tanh,
  exp: Math.exp,
  expm1: Math.expm1,
  log: Math.log,
  log10: Math.log10,
  log1p: Math.log1p,
  sqrt: Math.sqrt,
  cbrt: Math.cbrt,
  ceil: Math.ceil,
  floor: Math.floor,
  signum: Math.sign,
  toDegrees: (x) => x * 180 / Math.PI,
  toRadians: (x) => x / 180 * Math.PI,
  // Java's rint rounds half to even.
  rint: (x) => {
    const r = Math.round(x);
    return Math.abs(x % 1) === 0.5 && r % 2 !== 0 ? r - 1 : r;
  },
};
for (const [name, f] of Object.entries(UNARY_MATH)) {
  define("Math", name, ["double"], "double", (x) => f(num(x)));
}
for (const [name, f] of Object.entries({ atan2: Math.atan2, pow: Math.pow, hypot: Math.hypot })) {
  define("Math", name, ["double", "double"], "double", (a, b) => f(num(a), num(b)));
}
for (const t of ["double", "float", "int", "long"] as const) {
  define("Math", "abs", [t], t, (x) => Math.abs(num(x)));
  define("Math", "max", [t, t], t, (a, b) => Math.max(num(a), num(b)));
  define("Math", "min", [t, t], t, (a, b) => Math.min(num(a), num(b)));
}
for (const t of ["int", "long"] as const) {
  define("Math", "floorDiv", [t, t], t, (a, b) => Math.floor(num(a) / num(b)));
  define("Math", "floorMod", [t, t], t, (a, b) => num(a) - Math.floor(num(a) / num(b)) * num(b));
}
define("Math", "round", ["double"], "long", (x) => javaRound(num(x)));
define("Math", "round", ["float"], "int", (x) => javaRound(num(x)));

for (const t of ["double", "float", "int", "long", "short", "byte", "char", "boolean"] as const) {
  define("String", "valueOf", [t], "String", (x) => javaString(x, t));
}
define("String", "valueOf", ["Object"], "String", (x) => (x === null ? "null" : String(x)));
define(
  "String",
  "format",
  ["String", "Object[]"],
  "String",
  (f, args) => javaFormat(str(f), args as JsValue[]),
);

const BOXED: Record<string, JavaType> = {
  Integer: "int",
  Long: "long",
  Short: "short",
  Byte: "byte",
  Double: "double",
  Float: "float",
};
const PARSE_NAMES: Record<string, string> = {
  Integer: "parseInt",
  Long: "parseLong",
  Short: "parseShort",
  Byte: "parseByte",
  Double: "parseDouble",
  Float: "parseFloat",
};
for (const [cls, t] of Object.entries(BOXED)) {
  const parseText = (s: JsValue) =>
    t === "double" || t === "float" ? parseJavaDouble(str(s)) : parseJavaInteger(str(s), t);
  define(cls, "valueOf", ["String"], t, parseText);
  define(cls, PARSE_NAMES[cls], ["String"], t, parseText);
  define(cls, "valueOf", [t], t, (x) => x);
}
define("Boolean", "valueOf", ["String"], "boolean", (s) => str(s).toLowerCase() === "true");
define("Boolean", "parseBoolean", ["String"], "boolean", (s) => str(s).toLowerCase() === "true");
define("Boolean", "valueOf", ["boolean"], "boolean", (b) => b);

/** A FEEL argument as the Java value of `type`, or undefined when Java would not accept it. */
function toJava(v: FeelValue | undefined, type: JavaType): JsValue | undefined {
  if (v === undefined || v === null) {
    return type === "String" || type === "Object" ? null : undefined;
  }
  switch (type) {
    case "double":
    case "float":
      return v instanceof FeelDecimal
        ? (type === "float" ? Math.fround(v.toNumber()) : v.toNumber())
        : undefined;
    case "int":
    case "long":
    case "short":
    case "byte": {
      if (!(v instanceof FeelDecimal) || !v.isInteger()) return undefined;
      const n = v.toNumber();
      const [lo, hi] = INTEGER_RANGES[type]!;
      return n >= lo && n <= hi ? n : undefined;
    }
    case "char":
      return typeof v === "string" && [...v].length === 1 ? v : undefined;
    case "boolean":
      return typeof v === "boolean" ? v : undefined;
    case "String":
      return typeof v === "string" ? v : undefined;
    case "Object":
    case "Object[]":
      if (v instanceof FeelDecimal) return v.toNumber();
      if (typeof v === "string" || typeof v === "boolean") return v;
      return formatFeel(v);
  }
}

/** Java's `Float.toString`: the shortest decimal that reads back as the same float. */
function floatDecimal(x: number): FeelValue {
  for (let digits = 1; digits <= 9; digits++) {
    const text = x.toPrecision(digits);
    if (Math.fround(Number(text)) === x) return new FeelDecimal(text);
  }
  return new FeelDecimal(x);
}

function fromJava(x: JsValue, type: JavaType, env: EvalEnv, label: string): FeelValue {
  if (x === null) return null;
  if (typeof x === "number") {
    if (!Number.isFinite(x)) {
      env.warn(`${label} gave ${x}, which is not a FEEL number`);
      return null;
    }
    return type === "float" ? floatDecimal(Math.fround(x)) : new FeelDecimal(x);
  }
  return Array.isArray(x) ? null : x;
}

/** The normalised key of a `class` and `method signature` pair. */
function methodKey(cls: string, signature: string): string {
  const m = /^\s*([\w$]+)\s*\((.*)\)\s*$/.exec(signature);
  if (m === null) return `${cls}.${signature}`;
  const params = m[2].trim() === "" ? [] : m[2].split(",").map((p) => {
    const t = p.trim();
    return TYPE_NAMES[t] ?? t;
  });
  return `${cls.trim()}.${m[1]}(${params.join(",")})`;
}

/** A FEEL-callable body for a Java static method, or undefined when it is not mapped. */
export function javaMethod(
  cls: string,
  signature: string,
): ((args: readonly (FeelValue | undefined)[], env: EvalEnv) => FeelValue) | undefined {
  const method = METHODS.get(methodKey(cls, signature));
  if (method === undefined) return undefined;
  const label = `${cls}.${signature}`;
  const variadic = method.params[method.params.length - 1] === "Object[]";
  return (args, env) => {
    const fixed = variadic ? method.params.length - 1 : method.params.length;
    if (variadic ? args.length < fixed : args.length !== fixed) {
      env.warn(`${label} takes ${fixed} argument(s), got ${args.length}`);
      return null;
    }
    const javaArgs: JsValue[] = [];
    for (let i = 0; i < fixed; i++) {
      const j = toJava(args[i], method.params[i]);
      if (j === undefined) {
        env.warn(
          `${label}: argument ${i + 1} (${kindName(args[i] ?? null)}) is not a Java ${
            method.params[i]
          }`,
        );
        return null;
      }
      javaArgs.push(j);
    }
    if (variadic) {
      const rest = args.slice(fixed).flatMap((a) => (Array.isArray(a) ? a : [a]));
      javaArgs.push(rest.map((a) => toJava(a, "Object") as JsValue));
    }
    const r = method.run(...javaArgs);
    if (r === null) {
      env.warn(`${label} failed for these arguments`);
      return null;
    }
    return fromJava(r, method.result, env, label);
  };
}

/** The `class` and `method signature` of a `{java: {…}}` mapping context, if it is one. */
export function javaMapping(mapping: FeelValue): { cls: string; signature: string } | undefined {
  if (!(mapping instanceof FeelContext)) return undefined;
  const java = mapping.entries.get("java");
  // The FEEL form nests the pair under `java`; a boxed Java function gives it directly.
  const target = java instanceof FeelContext ? java : mapping;
  const cls = target.entries.get("class");
  const signature = target.entries.get("method signature");
  return typeof cls === "string" && typeof signature === "string" ? { cls, signature } : undefined;
}

/**
 * The resolver FEEL uses for `function(…) external {java: {…}}`: a mapped
 * method runs; an unmapped one is null with a warning naming it. Other
 * external kinds (PMML) are left to FEEL's own refusal.
 */
export function javaExternals(mapping: FeelValue): ReturnType<ExternalResolver> {
  const target = javaMapping(mapping);
  if (target === undefined) return undefined;
  const method = javaMethod(target.cls, target.signature);
  if (method !== undefined) return method;
  return (_args, env) => {
    env.warn(`the Java method ${target.cls}.${target.signature} is not mapped`);
    return null;
  };
}
