/**
 * DMN evaluation benchmark: evaluations per second of every decision of the
 * TCK's `0004-lending` model and of a 200-rule × 6-input decision table,
 * each against a physical baseline measured in the same run: the same
 * logic hand-coded in TypeScript over plain JS values. The ratio
 * (engine / hand-coded) is the cost of interpreting the model.
 *
 *     deno run -P=bench bench/dmn_bench.ts [--tck DIR] [--seconds S]
 *
 * Prints one JSON line per measurement:
 * `{"bench":…,"decision":…,"evaluationsPerSec":…,"baseline":…,"baselineOpsPerSec":…,"ratio":…}`.
 * The lending lines are skipped, with a notice on stderr, when the TCK
 * folder is absent.
 *
 * @module
 */
import { type DmnModels, evaluateDecision, loadModel } from "../lang/dmn/mod.ts";
import { type FeelValue, toJs } from "../lang/feel/mod.ts";

function option(args: readonly string[], flag: string): string | undefined {
  const i = args.indexOf(flag);
  return i >= 0 ? args[i + 1] : undefined;
}

/** Runs `f` repeatedly for about `seconds` after a warm-up; returns calls per second. */
function rate(seconds: number, f: () => unknown): number {
  for (let i = 0; i < 200; i++) f();
  let calls = 0;
  let batch = 16;
  const t0 = performance.now();
  let elapsed = 0;
  while (elapsed < seconds * 1000) {
    for (let i = 0; i < batch; i++) f();
    calls += batch;
    batch = Math.min(batch * 2, 4096);
    elapsed = performance.now() - t0;
  }
  return calls / (elapsed / 1000);
}

function line(bench: string, decision: string, engine: number, baseline: number): string {
  return JSON.stringify({
    bench,
    decision,
    evaluationsPerSec: Math.round(engine),
    baseline: "hand-coded TypeScript",
    baselineOpsPerSec: Math.round(baseline),
    ratio: Number((engine / baseline).toPrecision(3)),
  });
}

// ---- 0004-lending -----------------------------------------------------------

const LENDING_INPUTS = {
  ApplicantData: {
    Monthly: { Income: 6000, Expenses: 2000, Repayments: 0 },
    Age: 35,
    ExistingCustomer: true,
    MaritalStatus: "M",
    EmploymentStatus: "EMPLOYED",
  },
  RequestedProduct: { ProductType: "STANDARD LOAN", Amount: 350000, Rate: 0.0395, Term: 360 },
  BureauData: { CreditScore: 649, Bankrupt: false },
  SupportingDocuments: "YES",
};

type Lending = typeof LENDING_INPUTS;

/** The lending model's decisions written by hand, one function per decision. */
class HandCodedLending {
  constructor(readonly i: Lending) {}

  ApplicationRiskScore(): number {
    const { Age, MaritalStatus, EmploymentStatus } = this.i.ApplicantData;
    let score = 0;
    if (Age >= 18 && Age <= 21) score += 32;
    else if (Age >= 22 && Age <= 25) score += 35;
    else if (Age >= 26 && Age <= 35) score += 40;
    else if (Age >= 36 && Age <= 49) score += 43;
    else if (Age >= 50) score += 48;
    score += MaritalStatus === "S" ? 25 : MaritalStatus === "M" ? 45 : 0;
    const employment: Record<string, number> = {
      UNEMPLOYED: 15,
      EMPLOYED: 45,
      "SELF-EMPLOYED": 36,
      STUDENT: 18,
    };
    return score + (employment[EmploymentStatus] ?? 0);
  }

  "Pre-bureauRiskCategory"(): string | null {
    const s = this.ApplicationRiskScore();
    if (!this.i.ApplicantData.ExistingCustomer) {
      if (s < 100) return "HIGH";
      if (s < 120) return "MEDIUM";
      if (s < 130) return "LOW";
      return s > 130 ? "VERY LOW" : null;
    }
    if (s < 80) return "DECLINE";
    if (s < 90) return "HIGH";
    if (s <= 110) return "MEDIUM";
    return "LOW";
  }

  "Post-bureauRiskCategory"(): string {
    const s = this.ApplicationRiskScore();
    const c = this.i.BureauData.CreditScore;
    if (!this.i.ApplicantData.ExistingCustomer) {
      if (s < 120) return c < 590 ? "HIGH" : c <= 610 ? "MEDIUM" : "LOW";
      if (s <= 130) return c < 600 ? "HIGH" : c <= 625 ? "MEDIUM" : "LOW";
      return "VERY LOW";
    }
    if (s <= 100) return c < 580 ? "HIGH" : c <= 600 ? "MEDIUM" : "LOW";
    return c < 590 ? "HIGH" : c <= 615 ? "MEDIUM" : "LOW";
  }

  RequiredMonthlyInstallment(): number {
    const { ProductType, Rate, Term, Amount } = this.i.RequestedProduct;
    const fee = ProductType === "STANDARD LOAN" ? 20 : ProductType === "SPECIAL LOAN" ? 25 : NaN;
    return (Amount * Rate / 12) / (1 - (1 + Rate / 12) ** -Term) + fee;
  }

  #affordable(category: string | null): boolean {
    const m = this.i.ApplicantData.Monthly;
    const disposable = m.Income - (m.Expenses + m.Repayments);
    const factor = category === "HIGH" || category === "DECLINE"
      ? 0.6
      : category === "MEDIUM"
      ? 0.7
      : 0.8;
    return disposable * factor > this.RequiredMonthlyInstallment();
  }

  "Pre-bureauAffordability"(): boolean {
    return this.#affordable(this["Pre-bureauRiskCategory"]());
  }

  "Post-bureauAffordability"(): boolean {
    return this.#affordable(this["Post-bureauRiskCategory"]());
  }

  Eligibility(): string {
    if (this["Pre-bureauRiskCategory"]() === "DECLINE") return "INELIGIBLE";
    if (!this["Pre-bureauAffordability"]()) return "INELIGIBLE";
    return this.i.ApplicantData.Age < 18 ? "INELIGIBLE" : "ELIGIBLE";
  }

  BureauCallType(): string {
    const c = this["Pre-bureauRiskCategory"]();
    return c === "HIGH" || c === "MEDIUM" ? "FULL" : c === "LOW" ? "MINI" : "NONE";
  }

  Strategy(): string {
    if (this.Eligibility() === "INELIGIBLE") return "DECLINE";
    return this.BureauCallType() === "NONE" ? "THROUGH" : "BUREAU";
  }

  Routing(): string {
    const b = this.i.BureauData;
    if (!this["Post-bureauAffordability"]() || b.Bankrupt) return "DECLINE";
    if (this["Post-bureauRiskCategory"]() === "HIGH" || b.CreditScore < 580) return "REFER";
    return "ACCEPT";
  }

  Adjudication(): string {
    return "ACCEPT";
  }
}

function lending(tck: string, seconds: number): string[] {
  const path = `${tck}/compliance-level-3/0004-lending/0004-lending.dmn`;
  let text: string;
  try {
    text = Deno.readTextFileSync(path);
  } catch {
    console.error(`${path} not found: the 0004-lending measurements are skipped`);
    return [];
  }
  const loaded = loadModel(text, { uri: path });
  if (loaded.models === undefined) throw new Error(loaded.diagnostics[0].message);
  const models: DmnModels = loaded.models;
  const out: string[] = [];
  const decisions = models.main.elements.filter((e) => e.kind === "decision").map((e) => e.name);
  for (const name of decisions) {
    const r = evaluateDecision(models, name, LENDING_INPUTS);
    if (r.diagnostics !== undefined) throw new Error(r.diagnostics[0].message);
    const hand = (): unknown =>
      (new HandCodedLending(LENDING_INPUTS) as unknown as Record<string, () => unknown>)[name]();
    checkSame(name, r.value, hand());
    const engine = rate(seconds, () => evaluateDecision(models, name, LENDING_INPUTS));
    out.push(line("dmn.0004-lending", name, engine, rate(seconds, hand)));
  }
  return out;
}

/** The two implementations must agree, or the ratio would compare different work. */
function checkSame(name: string, engine: FeelValue, hand: unknown): void {
  const e = toJs(engine);
  const same = typeof hand === "number" ? Math.abs(Number(e) - hand) < 1e-6 : e === hand;
  if (!same) throw new Error(`${name}: the engine gave ${e}, the hand-coded version ${hand}`);
}

// ---- 200 rules × 6 inputs -----------------------------------------------------

const RULES = 200;
const REGIONS = ["north", "south", "east", "west"];
const SEGMENTS = ["retail", "business", "public"];

interface HandRule {
  readonly amountFrom: number;
  readonly amountTo: number;
  readonly minAge: number;
  readonly regions: readonly string[];
  readonly segment: string;
  readonly minScore: number;
  readonly vip: boolean | undefined;
  readonly rate: number;
}

/** Rule i covers amounts [i·1000, (i+1)·1000), so exactly one rule matches each amount. */
function handRules(): HandRule[] {
  return Array.from({ length: RULES }, (_, i) => ({
    amountFrom: i * 1000,
    amountTo: (i + 1) * 1000,
    minAge: 18 + (i % 5),
    regions: [REGIONS[i % 4], REGIONS[(i + 1) % 4]],
    segment: SEGMENTS[i % 3],
    minScore: 300 + (i % 7) * 50,
    vip: i % 3 === 0 ? undefined : i % 3 === 1,
    rate: 1 + i / 100,
  }));
}

function tableXml(rules: readonly HandRule[]): string {
  const input = (name: string, type: string) =>
    `<input label="${name}"><inputExpression typeRef="${type}"><text>${name}</text></inputExpression></input>`;
  const rows = rules.map((r) => {
    const cells = [
      `[${r.amountFrom}..${r.amountTo})`,
      `&gt;= ${r.minAge}`,
      r.regions.map((x) => `"${x}"`).join(", "),
      `"${r.segment}"`,
      `&gt;= ${r.minScore}`,
      r.vip === undefined ? "-" : String(r.vip),
    ];
    return `<rule>${
      cells.map((c) => `<inputEntry><text>${c}</text></inputEntry>`).join("")
    }<outputEntry><text>${r.rate}</text></outputEntry></rule>`;
  });
  return `<definitions xmlns="https://www.omg.org/spec/DMN/20230324/MODEL/" name="bench" namespace="urn:bench" id="bench">
  <decision id="rate" name="rate"><variable name="rate" typeRef="number"/>
    <informationRequirement><requiredInput href="#amount"/></informationRequirement>
    <informationRequirement><requiredInput href="#age"/></informationRequirement>
    <informationRequirement><requiredInput href="#region"/></informationRequirement>
    <informationRequirement><requiredInput href="#segment"/></informationRequirement>
    <informationRequirement><requiredInput href="#score"/></informationRequirement>
    <informationRequirement><requiredInput href="#vip"/></informationRequirement>
    <decisionTable hitPolicy="UNIQUE">
      ${input("amount", "number")}${input("age", "number")}${input("region", "string")}
      ${input("segment", "string")}${input("score", "number")}${input("vip", "boolean")}
      <output name="rate" typeRef="number"/>
      ${rows.join("\n      ")}
    </decisionTable>
  </decision>
  ${
    [["amount", "number"], ["age", "number"], ["region", "string"], ["segment", "string"], [
      "score",
      "number",
    ], ["vip", "boolean"]]
      .map(([n, t]) =>
        `<inputData id="${n}" name="${n}"><variable name="${n}" typeRef="${t}"/></inputData>`
      )
      .join("\n  ")
  }
</definitions>`;
}

type TableInput = {
  readonly amount: number;
  readonly age: number;
  readonly region: string;
  readonly segment: string;
  readonly score: number;
  readonly vip: boolean;
};

/** The same table as a plain loop: UNIQUE, so every rule is tested. */
function handTable(rules: readonly HandRule[], x: TableInput): number | null {
  let hit: HandRule | undefined;
  for (const r of rules) {
    if (
      x.amount >= r.amountFrom && x.amount < r.amountTo && x.age >= r.minAge &&
      r.regions.includes(x.region) && x.segment === r.segment && x.score >= r.minScore &&
      (r.vip === undefined || r.vip === x.vip)
    ) {
      if (hit !== undefined) return null;
      hit = r;
    }
  }
  return hit === undefined ? null : hit.rate;
}

function table(seconds: number): string[] {
  const rules = handRules();
  const loaded = loadModel(tableXml(rules), { uri: "bench.dmn" });
  if (loaded.models === undefined) throw new Error(loaded.diagnostics[0].message);
  const models = loaded.models;
  // The matching rule is near the end, as in a table's worst case.
  const r = rules[RULES - 11];
  const inputs: TableInput = {
    amount: r.amountFrom + 500,
    age: 40,
    region: r.regions[0],
    segment: r.segment,
    score: 700,
    vip: r.vip ?? false,
  };
  const first = evaluateDecision(models, "rate", inputs);
  if (first.diagnostics !== undefined) throw new Error(first.diagnostics[0].message);
  checkSame("rate", first.value, handTable(rules, inputs));
  const engine = rate(seconds, () => evaluateDecision(models, "rate", inputs));
  const baseline = rate(seconds, () => handTable(rules, inputs));
  return [line("dmn.table-200x6", "rate", engine, baseline)];
}

function main(args: readonly string[]): number {
  const tck = option(args, "--tck") ?? new URL("../../shared/tck", import.meta.url).pathname;
  const seconds = Number(option(args, "--seconds") ?? 1);
  if (!(seconds > 0)) {
    console.error(`--seconds must be a positive number, got ${option(args, "--seconds")}`);
    return 2;
  }
  for (const l of [...lending(tck, seconds), ...table(seconds)]) console.log(l);
  return 0;
}

Deno.exit(main(Deno.args));
