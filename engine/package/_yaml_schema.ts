/**
 * A small declarative schema for package YAML files, checked against the
 * parsed nodes so every violation carries the line of the value (or of the
 * map missing a key). Unknown keys are refused: a misspelt setting that is
 * silently ignored is a setting that silently does not apply.
 *
 * @module
 */
import { isAlias, isMap, isPair, isScalar, isSeq, type Node } from "yaml";
import { type Diagnostic, diagnostic } from "../core/diagnostic.ts";
import type { YamlFile, YamlPath } from "./_yaml.ts";

/** What a value must be. */
export type Spec =
  | {
    readonly type: "string";
    /** Accepted values, when the set is closed. */
    readonly enum?: readonly string[];
    readonly pattern?: RegExp;
    /** What the pattern means, for the message (`a lower-case name`). */
    readonly hint?: string;
  }
  | { readonly type: "integer"; readonly min?: number; readonly max?: number }
  | { readonly type: "boolean" }
  | { readonly type: "list"; readonly items: Spec; readonly minItems?: number }
  | {
    readonly type: "map";
    readonly fields?: Readonly<Record<string, Field>>;
    /** Spec for keys not in `fields` (a dictionary); absent: such keys are refused. */
    readonly values?: Spec;
    /** Pattern dictionary keys must match. */
    readonly keyPattern?: RegExp;
  }
  /** Any YAML value (a block another component validates). */
  | { readonly type: "any" };

/** One key of a map. */
export interface Field {
  readonly spec: Spec;
  readonly required?: boolean;
}

/** What {@link checkYaml} returns. */
export interface CheckResult {
  /** The value as plain data; present only when nothing was refused. */
  readonly value?: unknown;
  readonly diagnostics: readonly Diagnostic[];
}

/**
 * Checks a file's root against `spec`, reporting every violation with
 * `code`. The value comes back only when the whole file conforms.
 */
export function checkYaml(file: YamlFile, spec: Spec, code: string): CheckResult {
  const diagnostics: Diagnostic[] = [];
  const value = check(file.root, spec, [], {
    file,
    report(node, path, message) {
      const source = node ? file.at(node) : file.locate(path);
      diagnostics.push(diagnostic(code, `${describePath(path)}${message}`, {
        source,
        attributes: { path: formatPath(path) },
      }));
    },
  });
  return diagnostics.length > 0 ? { diagnostics } : { value, diagnostics };
}

/** `channels[0].auth` for a path, `(root)` for the empty one. */
export function formatPath(path: YamlPath): string {
  let out = "";
  for (const step of path) {
    out += typeof step === "number" ? `[${step}]` : out === "" ? step : `.${step}`;
  }
  return out === "" ? "(root)" : out;
}

function describePath(path: YamlPath): string {
  return path.length === 0 ? "" : `${formatPath(path)}: `;
}

interface Context {
  readonly file: YamlFile;
  report(node: Node | null, path: YamlPath, message: string): void;
}

function check(node: Node | null, spec: Spec, path: YamlPath, ctx: Context): unknown {
  if (node !== null && isAlias(node)) {
    ctx.report(node, path, "anchors and aliases are not supported in package files");
    return undefined;
  }
  switch (spec.type) {
    case "any":
      return plain(node, path, ctx);
    case "string":
    case "integer":
    case "boolean":
      return checkScalar(node, spec, path, ctx);
    case "list":
      return checkList(node, spec, path, ctx);
    case "map":
      return checkMap(node, spec, path, ctx);
  }
}

function scalarValue(node: Node | null): unknown {
  if (node === null) return null;
  return isScalar(node) ? node.value : undefined;
}

function kindOf(node: Node | null): string {
  if (node === null) return "nothing";
  if (isMap(node)) return "a map";
  if (isSeq(node)) return "a list";
  const v = scalarValue(node);
  if (v === null) return "null";
  if (typeof v === "number") return `the number ${v}`;
  if (typeof v === "boolean") return `the boolean ${v}`;
  return `'${String(v)}'`;
}

function checkScalar(
  node: Node | null,
  spec: Extract<Spec, { type: "string" | "integer" | "boolean" }>,
  path: YamlPath,
  ctx: Context,
): unknown {
  const v = scalarValue(node);
  if (spec.type === "boolean") {
    if (typeof v === "boolean") return v;
    ctx.report(node, path, `expected true or false, found ${kindOf(node)}`);
    return undefined;
  }
  if (spec.type === "integer") {
    if (typeof v !== "number" || !Number.isInteger(v)) {
      ctx.report(node, path, `expected a whole number, found ${kindOf(node)}`);
      return undefined;
    }
    if (spec.min !== undefined && v < spec.min) {
      ctx.report(node, path, `expected at least ${spec.min}, found ${v}`);
      return undefined;
    }
    if (spec.max !== undefined && v > spec.max) {
      ctx.report(node, path, `expected at most ${spec.max}, found ${v}`);
      return undefined;
    }
    return v;
  }
  if (typeof v !== "string") {
    const quote = typeof v === "number" || typeof v === "boolean"
      ? " (quote it to keep it as text)"
      : "";
    ctx.report(node, path, `expected a string, found ${kindOf(node)}${quote}`);
    return undefined;
  }
  if (spec.enum && !spec.enum.includes(v)) {
    ctx.report(node, path, `expected one of ${spec.enum.join(", ")}, found '${v}'`);
    return undefined;
  }
  if (spec.pattern && !spec.pattern.test(v)) {
    ctx.report(
      node,
      path,
      `expected ${spec.hint ?? `text matching ${spec.pattern}`}, found '${v}'`,
    );
    return undefined;
  }
  return v;
}

function checkList(
  node: Node | null,
  spec: Extract<Spec, { type: "list" }>,
  path: YamlPath,
  ctx: Context,
): unknown {
  if (node === null || !isSeq(node)) {
    ctx.report(node, path, `expected a list, found ${kindOf(node)}`);
    return undefined;
  }
  if (spec.minItems !== undefined && node.items.length < spec.minItems) {
    ctx.report(
      node,
      path,
      `expected at least ${spec.minItems} item(s), found ${node.items.length}`,
    );
  }
  return node.items.map((item, k) => check(item as Node | null, spec.items, [...path, k], ctx));
}

function checkMap(
  node: Node | null,
  spec: Extract<Spec, { type: "map" }>,
  path: YamlPath,
  ctx: Context,
): unknown {
  if (node === null || !isMap(node)) {
    ctx.report(node, path, `expected a map, found ${kindOf(node)}`);
    return undefined;
  }
  const fields = spec.fields ?? {};
  const out: Record<string, unknown> = {};
  const seen = new Set<string>();
  for (const pair of node.items) {
    if (!isPair(pair)) continue;
    const keyNode = pair.key as Node | null;
    const key = scalarValue(keyNode);
    if (typeof key !== "string") {
      ctx.report(keyNode, path, `keys must be text, found ${kindOf(keyNode)}`);
      continue;
    }
    seen.add(key);
    const valueNode = (pair.value ?? null) as Node | null;
    const field = Object.hasOwn(fields, key) ? fields[key] : undefined;
    if (field) {
      out[key] = check(valueNode, field.spec, [...path, key], ctx);
    } else if (spec.values) {
      if (spec.keyPattern && !spec.keyPattern.test(key)) {
        ctx.report(keyNode, [...path, key], `'${key}' is not a valid key here`);
        continue;
      }
      out[key] = check(valueNode, spec.values, [...path, key], ctx);
    } else {
      const known = Object.keys(fields);
      ctx.report(
        keyNode,
        [...path, key],
        `unknown key '${key}'${known.length > 0 ? ` (known: ${known.join(", ")})` : ""}`,
      );
    }
  }
  for (const [key, field] of Object.entries(fields)) {
    if (field.required && !seen.has(key)) ctx.report(node, path, `'${key}' is required`);
  }
  return out;
}

/** Plain data for an unchecked block, still refusing aliases. */
function plain(node: Node | null, path: YamlPath, ctx: Context): unknown {
  if (node === null) return null;
  if (isAlias(node)) {
    ctx.report(node, path, "anchors and aliases are not supported in package files");
    return undefined;
  }
  if (isSeq(node)) return node.items.map((i, k) => plain(i as Node | null, [...path, k], ctx));
  if (isMap(node)) {
    const out: Record<string, unknown> = {};
    for (const pair of node.items) {
      if (!isPair(pair)) continue;
      const key = scalarValue(pair.key as Node | null);
      if (typeof key !== "string") {
        ctx.report(
          pair.key as Node | null,
          path,
          `keys must be text, found ${kindOf(pair.key as Node)}`,
        );
        continue;
      }
      out[key] = plain((pair.value ?? null) as Node | null, [...path, key], ctx);
    }
    return out;
  }
  return scalarValue(node);
}
