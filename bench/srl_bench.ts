/**
 * Evaluations per second of a 10-rule `.srl` validation ruleset (salience,
 * an activation group, a `set` feeding later rules, reports), against a
 * baseline measured in the same run: the same conditions and action
 * expressions compiled as plain FEEL and evaluated in the same order, so the
 * ratio is the cost of the rule machinery itself.
 *
 *     deno run -P=bench bench/srl_bench.ts [N]
 *
 * Prints one JSON line:
 * `{"bench":…,"evaluationsPerSec":…,"baseline":…,"baselineOpsPerSec":…,"ratio":…}`.
 *
 * @module
 */
import { compile, type CompiledExpression, FeelContext, fromJs } from "../lang/feel/mod.ts";
import { evaluate, parseRuleset } from "../lang/srl/mod.ts";

const RULES = `
rule "currency-required" salience 100
when payload.amount.currency = null
then report("SUTRA.VALIDATE.CURRENCY_REQUIRED", "payload.amount.currency", "currency is required"); end

rule "currency-usd" salience 90
when payload.amount.currency != null and payload.amount.currency != "USD"
then report("SUTRA.VALIDATE.CURRENCY_NOT_USD", "payload.amount.currency", "Currency must be USD; got " + payload.amount.currency); end

rule "amount-positive" salience 80
when payload.amount.value <= 0
then report("SUTRA.VALIDATE.AMOUNT_NOT_POSITIVE", "payload.amount.value", "amount must be positive"); end

rule "tier-high" salience 70 activation-group "tier"
when payload.amount.value >= 10000 then set(tier, "high"); end
rule "tier-mid" salience 60 activation-group "tier"
when payload.amount.value >= 1000 then set(tier, "mid"); end
rule "tier-low" salience 50 activation-group "tier"
when true then set(tier, "low"); end

rule "debtor-required"
when payload.debtor.id = null or string length(payload.debtor.id) = 0
then report("SUTRA.VALIDATE.DEBTOR_REQUIRED", "payload.debtor.id", "debtor id is required"); end

rule "same-account"
when payload.debtor.account = payload.creditor.account
then report("SUTRA.VALIDATE.SAME_ACCOUNT", "payload.creditor.account", "debtor and creditor accounts are the same"); end

rule "high-needs-reference"
when tier = "high" and payload.reference = null
then report("SUTRA.VALIDATE.REFERENCE_REQUIRED", "payload.reference", "large transfers need a reference"); end

rule "too-many-lines"
when count(payload.lines) > 50
then report("SUTRA.VALIDATE.TOO_MANY_LINES", "payload.lines", "at most 50 lines"); end
`;

const context = {
  payload: {
    amount: { currency: "EUR", value: 25000 },
    debtor: { id: "D-1", account: "DE89370400440532013000" },
    creditor: { account: "GB29NWBK60161331926819" },
    reference: null,
    lines: [{ sku: "A" }, { sku: "B" }],
  },
};

function rate(iterations: number, fn: () => void): number {
  for (let i = 0; i < Math.min(iterations, 2_000); i++) fn();
  const t0 = performance.now();
  for (let i = 0; i < iterations; i++) fn();
  return Math.round(iterations / ((performance.now() - t0) / 1000));
}

const parsed = parseRuleset(RULES, { uri: "bench.srl" });
if (parsed.diagnostics !== undefined) throw new Error(parsed.diagnostics[0].message);
const ruleset = parsed.ruleset;
const check = evaluate(ruleset, context);
if (check.diagnostics !== undefined) throw new Error(check.diagnostics[0].message);

// The baseline evaluates exactly the expressions the pass evaluated, in firing order.
const expressions: CompiledExpression[] = [];
for (const rule of ruleset.agenda) {
  if (rule.activationGroup !== undefined && rule.name !== "tier-high") continue;
  expressions.push(rule.condition.compiled);
  if (!check.fired.includes(rule.name)) continue;
  for (const action of rule.actions) {
    if (action.verb === "set") expressions.push(action.value.compiled);
    else expressions.push(action.code.compiled, action.path.compiled, action.message.compiled);
  }
}
const tierValue = compile('"high"');
if (tierValue.diagnostics !== undefined) throw new Error("baseline does not compile");

let sink = 0;
const iterations = Number(Deno.args.find((a) => /^\d+$/.test(a)) ?? 20_000);
const evaluations = rate(iterations, () => {
  const r = evaluate(ruleset, context);
  sink += r.issues!.length;
});
const baseline = rate(iterations, () => {
  // Converted once per run, as the ruleset pass does, with the `set` result visible.
  const working = new FeelContext(new Map((fromJs(context) as FeelContext).entries));
  working.entries.set("tier", "high");
  for (const e of expressions) sink += e.evaluate(working).value === null ? 0 : 1;
});
console.log(JSON.stringify({
  bench: "srl.evaluate.10-rules",
  evaluationsPerSec: evaluations,
  issues: check.issues.length,
  fired: check.fired.length,
  baseline: "the same FEEL expressions evaluated directly",
  baselineOpsPerSec: baseline,
  ratio: +(evaluations / baseline).toFixed(2),
}));
if (sink < 0) console.log(sink);
