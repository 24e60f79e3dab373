/**
 * Once a process declares its variables (`q:variables`), every path a FEEL
 * expression reads must start at something the process knows — a declared
 * variable, a payload bound by a `q:source`, a data object, a property, an
 * assignment target — and, where the shape of that value is known (a scalar
 * type, a codec schema, a payload shape from the channel's codec), must
 * exist in it. Without declarations names are not checked (declaring them
 * is the author's opt-in to strict names), but paths into a payload whose
 * shape the channel's codec supplies still are.
 *
 * @module
 */
import type { ExpressionSite } from "../expression_sites.ts";
import type { Process } from "../model.ts";
import { isActivity } from "../model.ts";
import type { QVariable } from "../q_model.ts";
import { checkPath, type Shape } from "../shape.ts";
import type { RuleContext } from "./context.ts";

const MULTI_INSTANCE_NAMES = [
  "loopCounter",
  "nrOfInstances",
  "nrOfActiveInstances",
  "nrOfCompletedInstances",
];

/** Where a root name comes from, for shape lookups and messages. */
interface KnownName {
  /** Shapes that describe it; empty when nothing is known about its structure. */
  readonly shapes: readonly { readonly shape: Shape; readonly what: string }[];
}

/** Checks FEEL paths against declarations and shapes. */
export function checkVariables(ctx: RuleContext): void {
  for (const process of ctx.index.definitions.processes) {
    if (!ctx.executable(process)) continue;
    const strict = process.q.variables.length > 0;
    const known = knownNames(ctx, process);
    for (const site of ctx.sites) {
      if (site.process !== process || site.isTarget) continue;
      const compiled = ctx.compiled.get(site.expression);
      if (!compiled) continue;
      for (const path of compiled.paths) checkOne(ctx, site, known, path, strict);
    }
  }
}

function checkOne(
  ctx: RuleContext,
  site: ExpressionSite,
  known: ReadonlyMap<string, KnownName>,
  path: string,
  strict: boolean,
): void {
  const [root, ...rest] = path.split(".");
  const text = site.expression.text;
  const offset = nameOffset(text, path) ?? nameOffset(text, root) ?? 0;
  let entry = known.get(root);
  if (site.localNames.includes(root)) {
    // Intake names: `header` has no static shape; the source name is known.
    if (root === "header") return;
    entry ??= { shapes: [] };
  }
  if (!entry) {
    if (!strict) return;
    ctx.reportInExpression(
      site.expression,
      offset,
      "SUTRA.CONFIG.BPMN.FEEL_UNKNOWN_VARIABLE",
      `${site.role} reads '${root}', which is not declared in q:variables nor bound by the process`,
      { attributes: { role: site.role, variable: root, path } },
    );
    return;
  }
  for (const { shape, what } of entry.shapes) {
    const mismatch = checkPath(shape, root, rest);
    if (!mismatch) continue;
    const detail = mismatch.reason === "scalar"
      ? `'${mismatch.validPrefix}' is a scalar and has no '${mismatch.segment}'`
      : `'${mismatch.validPrefix}' has no field '${mismatch.segment}'${
        mismatch.known.length > 0 ? ` (it has ${mismatch.known.slice(0, 8).join(", ")})` : ""
      }`;
    ctx.reportInExpression(
      site.expression,
      offset,
      "SUTRA.CONFIG.BPMN.FEEL_PATH_INVALID",
      `${site.role} reads '${path}', but in ${what} ${detail}`,
      { attributes: { role: site.role, path } },
    );
    return;
  }
}

/** Where `name` first appears as a whole name (not as a member or part of a word). */
function nameOffset(text: string, name: string): number | undefined {
  for (let at = text.indexOf(name); at >= 0; at = text.indexOf(name, at + 1)) {
    const before = text[at - 1] ?? " ";
    const after = text[at + name.length] ?? " ";
    if (!/[\w.$]/.test(before) && !/[\w$]/.test(after)) return at;
  }
  return undefined;
}

function variableShape(ctx: RuleContext, v: QVariable): { shape: Shape; what: string } | undefined {
  if (v.type && v.type !== "any" && v.type !== "context" && v.type !== "list") {
    return { shape: { kind: "scalar", type: v.type }, what: `variable '${v.name}' (${v.type})` };
  }
  if (v.schema) {
    const shape = ctx.shapes.schema?.(v.schema, v.schemaType);
    if (shape) {
      return { shape, what: `schema ${v.schema}${v.schemaType ? `#${v.schemaType}` : ""}` };
    }
  }
  if (v.source) {
    const shape = ctx.shapes.payload?.(v.source, undefined);
    if (shape) return { shape, what: `the payload of channel '${v.source}'` };
  }
  return undefined;
}

function knownNames(ctx: RuleContext, process: Process): Map<string, KnownName> {
  const known = new Map<string, { shapes: { shape: Shape; what: string }[] }>();
  const add = (name: string | undefined, shape?: { shape: Shape; what: string }) => {
    if (!name) return;
    const entry = known.get(name) ?? { shapes: [] };
    if (shape) entry.shapes.push(shape);
    known.set(name, entry);
  };
  for (const v of process.q.variables) add(v.name, variableShape(ctx, v));
  for (
    const p of [
      ...process.properties,
      ...(process.io?.inputs ?? []),
      ...(process.io?.outputs ?? []),
    ]
  ) {
    add(p.name ?? p.id);
  }
  for (const { content } of ctx.index.containers.filter((c) => c.process === process)) {
    for (const d of [...content.dataObjects, ...content.dataObjectReferences]) add(d.name ?? d.id);
    for (const d of content.dataStoreReferences) add(d.name ?? d.id);
  }
  let multiInstance = false;
  for (const { node } of ctx.index.nodesOf(process)) {
    for (const source of node.q.sources) {
      const type = source.messageTypeValue;
      const shape = ctx.shapes.payload?.(source.channel, type);
      add(
        source.name,
        shape
          ? { shape, what: `the ${type ?? "payload"} of channel '${source.channel}'` }
          : undefined,
      );
    }
    if (node.q.onValidations.some((o) => o.mode === "route")) add("validation");
    for (const a of [...node.dataInputAssociations, ...node.dataOutputAssociations]) {
      for (const assignment of a.assignments) add(assignment.to?.text.split(".")[0]?.trim());
    }
    if (isActivity(node)) {
      for (
        const p of [...node.properties, ...(node.io?.inputs ?? []), ...(node.io?.outputs ?? [])]
      ) {
        add(p.name ?? p.id);
      }
      if (node.loop?.type === "multiInstance") {
        multiInstance = true;
        add(node.loop.inputDataItem?.name ?? node.loop.inputDataItem?.id);
        add(node.loop.outputDataItem?.name ?? node.loop.outputDataItem?.id);
      }
    }
  }
  if (multiInstance) { for (const name of MULTI_INSTANCE_NAMES) add(name); }
  return known;
}
