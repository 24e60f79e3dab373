/**
 * Decision tables: input expressions are evaluated once, checked against the
 * columns' input values, and tested against every rule's cells; the output
 * entries of the matching rules are evaluated, converted to the output
 * types and checked against the output values; the hit policy then makes
 * the table's value. When nothing matches, the default output entries (or
 * null) are the value of a single-hit table and an empty list (or the
 * aggregation of nothing) that of a multiple-hit one.
 *
 * @module
 */
import {
  type CompiledExpression,
  FeelContext,
  type FeelType,
  type FeelValue,
  formatFeel,
} from "../../feel/mod.ts";
import { DmnCode } from "../diagnostic.ts";
import type { DecisionTable, DecisionTableOutput, LiteralExpression } from "../model.ts";
import { coerceToType } from "../types.ts";
import {
  type Compiler,
  type Evaluator,
  runFeel,
  runIn,
  type RunScope,
  type StaticScope,
} from "../_compile.ts";
import { aggregate } from "./collect_aggregation.ts";
import { collectMultiple } from "./hit_policy_multiple.ts";
import { selectSingle, SINGLE_HIT } from "./hit_policy_single.ts";
import type { OutputPriorities } from "./priority.ts";
import { type MatchedRule, ruleValue, type TableShape } from "./rules.ts";

/**
 * A compiled input cell: undefined stands for `-` (matches anything), null
 * for a cell that does not parse (it never matches; its diagnostic was
 * reported at load).
 */
type Cell = CompiledExpression | undefined | null;

interface Column {
  readonly label: string;
  readonly expression: Evaluator;
  readonly allowed: CompiledExpression | undefined;
}

interface OutputColumn {
  readonly name: string;
  readonly type: FeelType | undefined;
  readonly allowed: CompiledExpression | undefined;
  readonly priorities: CompiledExpression | undefined;
  readonly default: Evaluator | undefined;
}

interface Rule {
  readonly cells: readonly Cell[];
  readonly outputs: readonly Evaluator[];
}

/** Compiles a decision table. */
export function compileDecisionTable(
  c: Compiler,
  x: DecisionTable,
  scope: StaticScope,
): Evaluator {
  checkShape(c, x);
  const columns: Column[] = x.inputs.map((input, i) => ({
    label: input.label ?? (input.expression.text.trim() || `input ${i + 1}`),
    expression: c.expression(input.expression, scope),
    allowed: input.inputValues === undefined
      ? undefined
      : c.feel(input.inputValues, scope, input, "unaryTests"),
  }));
  const single = x.outputs.length === 1;
  const ranked = x.hitPolicy === "PRIORITY" || x.hitPolicy === "OUTPUT ORDER";
  const outputs: OutputColumn[] = x.outputs.map((o, i) => ({
    name: o.name ?? (single ? "" : `output ${i + 1}`),
    type: c.type(o.typeRef, o),
    allowed: o.outputValues === undefined
      ? undefined
      : c.feel(o.outputValues, scope, o, "unaryTests"),
    priorities: ranked && o.outputValues !== undefined ? priorities(c, o, scope) : undefined,
    default: o.defaultOutputEntry === undefined
      ? undefined
      : c.expression(o.defaultOutputEntry, scope),
  }));
  const rules: Rule[] = x.rules.map((r) => ({
    cells: x.inputs.map((_, i) => cell(c, r.inputEntries[i], scope)),
    outputs: x.outputs.map((_, i) => {
      const e = r.outputEntries[i];
      return e === undefined ? () => null : c.expression(e, scope);
    }),
  }));
  const shape: TableShape = { outputNames: outputs.map((o) => o.name) };
  const policy = x.hitPolicy;
  const aggregation = x.aggregation;
  const isSingle = SINGLE_HIT.has(policy);

  return (s) => {
    const inputs = columns.map((col) => col.expression(s));
    for (let i = 0; i < columns.length; i++) {
      const allowed = columns[i].allowed;
      if (allowed !== undefined && runFeel(allowed, s, inputs[i]) !== true) {
        s.env.warn(
          `input '${columns[i].label}' = ${formatFeel(inputs[i])} is not among its input values`,
        );
        return null;
      }
    }
    const matched = matchRules(rules, inputs, s, policy === "FIRST");
    const matches: MatchedRule[] = [];
    for (const index of matched) {
      const values: FeelValue[] = [];
      for (let i = 0; i < outputs.length; i++) {
        const v = outputValue(outputs[i], rules[index].outputs[i](s), s, index);
        if (v === undefined) return null;
        values.push(v);
      }
      matches.push({ index, outputs: values });
    }
    if (matches.length === 0) return noMatch(outputs, shape, isSingle, aggregation, s);
    const priorities: OutputPriorities = outputs.map((o) => {
      if (o.priorities === undefined) return undefined;
      const list = runFeel(o.priorities, s);
      return Array.isArray(list) ? list : undefined;
    });
    if (!isSingle) {
      return collectMultiple(policy, aggregation, matches, shape, priorities, s.env);
    }
    const chosen = selectSingle(policy, matches, priorities, s.env);
    return chosen === undefined ? null : ruleValue(shape, chosen.outputs);
  };
}

/** The indexes of the rules whose cells all accept the inputs (only the first when `first`). */
function matchRules(
  rules: readonly Rule[],
  inputs: readonly FeelValue[],
  s: RunScope,
  first: boolean,
): number[] {
  const out: number[] = [];
  // One FEEL context serves every cell of this evaluation.
  const context = new FeelContext(s.values as Map<string, FeelValue>);
  for (let r = 0; r < rules.length; r++) {
    const cells = rules[r].cells;
    let ok = true;
    for (let i = 0; ok && i < cells.length; i++) {
      const test = cells[i];
      if (test === undefined) continue;
      if (test === null) {
        s.env.warn(`rule ${r + 1}: input entry ${i + 1} does not parse`);
        ok = false;
      } else ok = runIn(test, context, s.env, inputs[i]) === true;
    }
    if (ok) {
      out.push(r);
      if (first) break;
    }
  }
  return out;
}

/** An output entry's value converted and checked; undefined (with a warning) when not allowed. */
function outputValue(
  o: OutputColumn,
  raw: FeelValue,
  s: RunScope,
  rule: number,
): FeelValue | undefined {
  const label = o.name === "" ? "the output" : `output '${o.name}'`;
  const v = coerceToType(raw, o.type, s.env, `${label} of rule ${rule + 1}`);
  if (o.allowed !== undefined && v !== null && runFeel(o.allowed, s, v) !== true) {
    s.env.warn(`${label} of rule ${rule + 1} = ${formatFeel(v)} is not among its output values`);
    return undefined;
  }
  return v;
}

function noMatch(
  outputs: readonly OutputColumn[],
  shape: TableShape,
  isSingle: boolean,
  aggregation: DecisionTable["aggregation"],
  s: RunScope,
): FeelValue {
  if (!outputs.some((o) => o.default !== undefined)) {
    if (isSingle) return null;
    return aggregation === undefined ? [] : aggregate(aggregation, [], s.env);
  }
  const values = outputs.map((o) =>
    o.default === undefined ? null : coerceToType(o.default(s), o.type, s.env, "a default output")
  );
  const v = ruleValue(shape, values);
  // The default stands for the table's whole answer: a single value, even
  // for an aggregation; a one-item list for a multiple-hit table.
  return isSingle || aggregation !== undefined ? v : [v];
}

/**
 * The output values read as a list of values in priority order, when they
 * are one (`"high", "low"`); otherwise they cannot rank rules, which is
 * reported.
 */
function priorities(
  c: Compiler,
  o: DecisionTableOutput,
  scope: StaticScope,
): CompiledExpression | undefined {
  const list = c.tryFeel(`[${o.outputValues}]`, scope);
  if (list === undefined) {
    c.report(
      DmnCode.DECISION_TABLE,
      `output values ${
        JSON.stringify(o.outputValues)
      } are not a list of values, so they cannot rank rules`,
      o,
      { severity: "WARNING" },
    );
  }
  return list;
}

function cell(c: Compiler, e: LiteralExpression | undefined, scope: StaticScope): Cell {
  if (e === undefined) return undefined;
  const text = e.text.trim();
  if (text === "-" || text === "") return undefined;
  return c.feel(e.text, scope, e, "unaryTests") ?? null;
}

function checkShape(c: Compiler, x: DecisionTable): void {
  if (x.aggregation !== undefined && x.hitPolicy !== "COLLECT") {
    c.report(
      DmnCode.DECISION_TABLE,
      `aggregation ${x.aggregation} needs hit policy COLLECT, not ${x.hitPolicy}`,
      x,
    );
  }
  if (
    (x.hitPolicy === "PRIORITY" || x.hitPolicy === "OUTPUT ORDER") &&
    x.outputs.every((o) => o.outputValues === undefined)
  ) {
    c.report(
      DmnCode.DECISION_TABLE,
      `hit policy ${x.hitPolicy} ranks rules by output values, but no output has any; rule order is used`,
      x,
      { severity: "WARNING" },
    );
  }
  if (x.aggregation !== undefined && x.outputs.length > 1) {
    c.report(DmnCode.DECISION_TABLE, "an aggregation needs a single output column", x);
  }
  if (x.outputs.length > 1) {
    const names = new Set<string>();
    x.outputs.forEach((o, i) => {
      if (o.name === undefined) {
        c.report(DmnCode.DECISION_TABLE, `output column ${i + 1} of several needs a name`, o);
      } else if (names.has(o.name)) {
        c.report(DmnCode.DUPLICATE, `two output columns are named '${o.name}'`, o);
      } else names.add(o.name);
    });
  }
}
