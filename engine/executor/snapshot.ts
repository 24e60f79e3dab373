/**
 * The snapshot: an instance state as a canonical key/value container. One
 * `key=value` line per entry, UTF-8, lines sorted by key, `\`, line breaks
 * (and `=` in keys) escaped with a backslash; `|` is never escaped, so a
 * typed value stays legible. Identical states give identical bytes, and
 * decoding then encoding reproduces the bytes exactly.
 *
 * Keys:
 *
 * | key                               | value                                                    |
 * | --------------------------------- | -------------------------------------------------------- |
 * | `sutra.generation`                | `4` when a variable needs the typed form, else `2`       |
 * | `sutra.instance`, `sutra.process` | instance id, process id                                  |
 * | `sutra.status`                    | `WAITING`, `COMPLETED`, `TERMINATED`, `FAILED`           |
 * | `sutra.start`                     | the start node the instance was routed through           |
 * | `sutra.waiting`                   | nodes with a parked token (space-separated, sorted)      |
 * | `sutra.completed`                 | nodes completed at least once (space-separated, sorted)  |
 * | `sutra.next`, `sutra.audit.seq`   | id counter, audit sequence                               |
 * | `sutra.attempt.<node>`            | attempts made by a task with a retry policy              |
 * | `sutra.coverage.<path>`           | flows of a declared route matched so far                 |
 * | `sutra.aliases`                   | recorded correlation aliases (JSON)                      |
 * | `sutra.revisions`                 | store revisions read for compare-and-set writes (JSON)   |
 * | `sutra.sensitive`                 | variables marked sensitive, name to class (JSON)         |
 * | `sutra.failure`                   | code, message, node of a FAILED instance (JSON)          |
 * | `sutra.scope.<id>`                | a scope instance (JSON)                                  |
 * | `sutra.token.<id>`                | a token (JSON)                                           |
 * | `sutra.wait.<id>`                 | a wait (JSON)                                            |
 * | `sutra.compensation.<id>`         | a running compensation (JSON)                            |
 * | `sutra.var.<name>`                | a variable of the process scope                          |
 * | `sutra.local.<scope>.<name>`      | a variable of an inner scope                             |
 * | `sutra.enc.var.<name>`, `sutra.enc.local.<scope>.<name>` | an encrypted variable (`engine/runtime/crypto`) |
 *
 * JSON records have sorted keys and name nodes, flows and plan scopes by
 * id, so a snapshot can be read against a re-deployed plan. A timer wait
 * armed from a FEEL cycle also holds the cycle it resolved to (`timer`);
 * a wait without one follows the plan's literal timer. Variables use
 * the typed encoding of `typed_value.ts` at generation 4; at generation 2
 * (every variable a string) they are the bare text, and are read back as
 * strings without looking for a tag. Transient variables are not written.
 * Keys added after a snapshot was written read as empty when absent (an
 * older snapshot has no `sutra.sensitive`: nothing was marked).
 * A malformed counter reads as zero rather than making the snapshot
 * unreadable. Encrypted variables are opened by the runtime before a
 * snapshot reaches this decoder; one that still holds a `sutra.enc.` entry
 * is refused rather than read without those variables (re-encoding such a
 * state would silently drop them).
 *
 * @module
 */
import type { FeelValue } from "../../lang/feel/mod.ts";
import type { ExecutionPlan, ProcessPlan, TimerSpec } from "../bpmn/mod.ts";
import { type Diagnostic, diagnostic } from "../core/mod.ts";
import type {
  BufferedWrite,
  CompensationEntry,
  CompensationRun,
  Continuation,
  Gate,
  InstanceState,
  InstanceStatus,
  RecordedAlias,
  ScopeInstance,
  ScopeKind,
  Token,
  TokenState,
  Wait,
} from "./state.ts";
import { decodeValue, encodeValue, needsTyping } from "./typed_value.ts";
import { ExecutorCode } from "./_failure.ts";
import { errorMessage } from "../core/errors.ts";

/** Generation of snapshots whose variables are all strings (bare text). */
const GENERATION_PLAIN = 2;
/** Generation of snapshots carrying typed variables. */
const GENERATION_TYPED = 4;

/** Encodes a state as snapshot bytes (the UTF-8 of {@link encodeSnapshotText}). */
export function encodeSnapshot(plan: ExecutionPlan, state: InstanceState): Uint8Array {
  return new TextEncoder().encode(encodeSnapshotText(plan, state));
}

/** Encodes a state as snapshot text. */
export function encodeSnapshotText(plan: ExecutionPlan, state: InstanceState): string {
  return renderContainer(snapshotEntries(plan, state));
}

/** The result of {@link decodeSnapshot}. */
export type DecodeResult =
  | { readonly state: InstanceState; readonly diagnostics?: undefined }
  | { readonly state?: undefined; readonly diagnostics: readonly Diagnostic[] };

/** Decodes a snapshot (its bytes, or its text) against the plan the instance runs on. */
export function decodeSnapshot(plan: ExecutionPlan, snapshot: Uint8Array | string): DecodeResult {
  try {
    const text = typeof snapshot === "string"
      ? snapshot
      : new TextDecoder("utf-8", { fatal: true }).decode(snapshot);
    return { state: readState(plan, parseContainer(text)) };
  } catch (e) {
    return {
      diagnostics: [diagnostic(
        ExecutorCode.SNAPSHOT_INVALID,
        `the snapshot cannot be read: ${errorMessage(e)}`,
      )],
    };
  }
}

// ---------------------------------------------------------------- container

const PLAIN_VALUE = /^[^\\\n\r]*$/;
const PLAIN_KEY = /^[^\\\n\r=]*$/;

function escape(text: string, key: boolean): string {
  // Most keys and values have nothing to escape: one scan instead of four rewrites.
  if ((key ? PLAIN_KEY : PLAIN_VALUE).test(text)) return text;
  let out = text.replaceAll("\\", "\\\\").replaceAll("\n", "\\n").replaceAll("\r", "\\r");
  if (key) out = out.replaceAll("=", "\\=");
  return out;
}

/** Renders entries as sorted, escaped `key=value` lines. */
export function renderContainer(entries: Map<string, string>): string {
  const keys = [...entries.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  let out = "";
  for (const k of keys) out += `${escape(k, true)}=${escape(entries.get(k)!, false)}\n`;
  return out;
}

/** Parses container text into entries. */
export function parseContainer(text: string): Map<string, string> {
  const entries = new Map<string, string>();
  if (text !== "" && !text.endsWith("\n")) {
    throw new Error("the container does not end with a line break");
  }
  for (const line of text.split("\n")) {
    if (line === "") continue;
    const [key, end] = keyOf(line);
    if (end >= line.length) throw new Error(`line '${line.slice(0, 40)}' has no '='`);
    entries.set(key, unescapeValue(line.slice(end + 1)));
  }
  return entries;
}

/** A line's unescaped key and the index of the '=' that ends it (the line's length if none). */
function keyOf(line: string): [string, number] {
  const eq = line.indexOf("=");
  // Most keys have no escapes: they end at the first '=' (only the key is searched for one).
  if (eq >= 0 && line.lastIndexOf("\\", eq) < 0) return [line.slice(0, eq), eq];
  let key = "";
  let i = 0;
  for (; i < line.length; i++) {
    const c = line[i];
    if (c === "=") break;
    if (c === "\\") {
      const n = line[++i];
      key += n === "n" ? "\n" : n === "r" ? "\r" : n;
    } else key += c;
  }
  return [key, i];
}

function unescapeValue(text: string): string {
  if (!text.includes("\\")) return text;
  let out = "";
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c !== "\\") {
      out += c;
      continue;
    }
    const n = text[++i];
    out += n === "n" ? "\n" : n === "r" ? "\r" : n;
  }
  return out;
}

/** JSON with object keys sorted at every level (engine records only). */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const keys = Object.keys(value).filter((k) =>
      (value as Record<string, unknown>)[k] !== undefined
    )
      .sort();
    return `{${
      keys.map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
        .join(",")
    }}`;
  }
  return JSON.stringify(value);
}

// ---------------------------------------------------------------- encode

function snapshotEntries(plan: ExecutionPlan, s: InstanceState): Map<string, string> {
  const out = new Map<string, string>();
  const proc = (id: string) => processOf(plan, id);
  out.set("sutra.instance", s.instanceId);
  out.set("sutra.process", s.process);
  out.set("sutra.status", s.status);
  if (s.startNode !== undefined) out.set("sutra.start", s.startNode);
  out.set("sutra.next", String(s.nextId));
  out.set("sutra.audit.seq", String(s.auditSeq));
  if (s.completed.size > 0) out.set("sutra.completed", [...s.completed].sort().join(" "));
  const waiting = new Set<string>();
  for (const t of s.tokens.values()) {
    if (t.state !== "ready") waiting.add(nodeKey(s, proc(scopeProcess(s, t.scope)), t.node));
  }
  if (waiting.size > 0) out.set("sutra.waiting", [...waiting].sort().join(" "));
  for (const [node, n] of s.attempts) out.set(`sutra.attempt.${node}`, String(n));
  for (const [path, n] of s.coverage) out.set(`sutra.coverage.${path}`, String(n));
  if (s.aliases.length > 0) out.set("sutra.aliases", canonical(s.aliases));
  if (s.revisions.size > 0) out.set("sutra.revisions", canonical(Object.fromEntries(s.revisions)));
  if (s.sensitive.size > 0) out.set("sutra.sensitive", canonical(Object.fromEntries(s.sensitive)));
  if (s.failure) out.set("sutra.failure", canonical(s.failure));

  let typed = false;
  const vars: [string, FeelValue][] = [];
  for (const scope of s.scopes.values()) {
    const p = proc(scope.process);
    out.set(`sutra.scope.${scope.id}`, canonical(scopeRecord(plan, scope)));
    for (const [name, value] of scope.vars) {
      if (p.transient.has(name)) continue;
      const key = scope.parent === undefined
        ? `sutra.var.${name}`
        : `sutra.local.${scope.id}.${name}`;
      vars.push([key, value]);
      typed ||= needsTyping(value);
    }
  }
  for (const [key, value] of vars) out.set(key, typed ? encodeValue(value) : value as string);
  out.set("sutra.generation", String(typed ? GENERATION_TYPED : GENERATION_PLAIN));
  for (const t of s.tokens.values()) {
    out.set(`sutra.token.${t.id}`, canonical(tokenRecord(proc(scopeProcess(s, t.scope)), t)));
  }
  for (const w of s.waits.values()) {
    out.set(`sutra.wait.${w.id}`, canonical(waitRecord(proc(w.process), w)));
  }
  for (const run of s.compensations.values()) {
    out.set(`sutra.compensation.${run.id}`, canonical(runRecord(plan, s, run)));
  }
  return out;
}

function processOf(plan: ExecutionPlan, id: string): ProcessPlan {
  const p = plan.processById.get(id);
  if (!p) throw new Error(`the plan has no process '${id}'`);
  return p;
}

function scopeProcess(s: InstanceState, scope: number): string {
  return s.scopes.get(scope)?.process ?? s.process;
}

function nodeKey(s: InstanceState, p: ProcessPlan, node: number): string {
  return p.id === s.process ? p.nodes[node].id : `${p.id}#${p.nodes[node].id}`;
}

function scopeRecord(plan: ExecutionPlan, scope: ScopeInstance): Record<string, unknown> {
  const p = processOf(plan, scope.process);
  return {
    kind: scope.kind,
    process: scope.process,
    planScope: p.scopes[scope.planScope].id,
    parent: scope.parent,
    token: scope.token,
    interrupting: scope.interrupting,
    handler: scope.handler,
    written: scope.written && [...scope.written].sort(),
    mi: scope.mi && {
      total: scope.mi.total,
      next: scope.mi.next,
      completed: scope.mi.completed,
      active: scope.mi.active,
      items: scope.mi.items?.map(encodeValue),
      outputs: scope.mi.outputs.map(encodeValue),
    },
    loopCount: scope.loopCount,
    adHocNext: scope.adHocNext,
    writes: scope.writes?.map((w) => ({ ...w, value: encodeValue(w.value) })),
    compensation: scope.compensation?.map((e) => entryRecord(plan, e)),
    gates: scope.gates?.map((g) => ({
      node: p.nodes[g.node].id,
      consumed: g.consumed.map((f) => p.flows[f].id),
    })),
  };
}

function entryRecord(plan: ExecutionPlan, e: CompensationEntry): Record<string, unknown> {
  // Entries of a called process sit in its call activity's entry: each
  // names its own process.
  const p = processOf(plan, e.process);
  return {
    node: p.nodes[e.node].id,
    process: e.process,
    children: e.children?.map((c) => entryRecord(plan, c)),
    vars: e.vars && Object.fromEntries(
      [...e.vars].filter(([name]) => !p.transient.has(name)).map(([k, v]) => [k, encodeValue(v)]),
    ),
  };
}

function tokenRecord(p: ProcessPlan, t: Token): Record<string, unknown> {
  return {
    scope: t.scope,
    node: p.nodes[t.node].id,
    state: t.state,
    arrival: t.arrival === undefined ? undefined : p.flows[t.arrival].id,
    child: t.child,
    inner: t.inner,
    handler: t.handler,
    attempt: t.attempt,
  };
}

function waitRecord(p: ProcessPlan, w: Wait): Record<string, unknown> {
  return { ...w, id: undefined, node: p.nodes[w.node].id };
}

function runRecord(
  plan: ExecutionPlan,
  s: InstanceState,
  run: CompensationRun,
): Record<string, unknown> {
  const p = processOf(plan, scopeProcess(s, run.scope));
  const then: Record<string, unknown> = { ...run.then };
  if (run.then.kind === "boundary") then.boundary = p.nodes[run.then.boundary].id;
  return {
    scope: run.scope,
    queue: run.queue.map((e) => entryRecord(plan, e)),
    queueScopes: run.queueScopes,
    handler: run.handler,
    temporary: run.temporary,
    then,
  };
}

// ---------------------------------------------------------------- decode

type Json = Record<string, unknown>;

function readState(plan: ExecutionPlan, entries: Map<string, string>): InstanceState {
  const get = (k: string) => entries.get(k);
  const process = required(get("sutra.process"), "sutra.process");
  const generation = Number(get("sutra.generation"));
  const typed = generation >= GENERATION_TYPED;
  const state: InstanceState = {
    instanceId: required(get("sutra.instance"), "sutra.instance"),
    process,
    status: status(get("sutra.status")),
    nextId: counter(get("sutra.next")),
    scopes: new Map(),
    tokens: new Map(),
    waits: new Map(),
    compensations: new Map(),
    completed: new Set(get("sutra.completed")?.split(" ").filter((x) => x !== "") ?? []),
    attempts: new Map(),
    coverage: new Map(),
    aliases: [],
    revisions: new Map(),
    sensitive: new Map(),
    auditSeq: counter(get("sutra.audit.seq")),
  };
  const start = get("sutra.start");
  if (start !== undefined) state.startNode = start;
  const aliases = get("sutra.aliases");
  if (aliases !== undefined) state.aliases = JSON.parse(aliases) as RecordedAlias[];
  const revisions = get("sutra.revisions");
  if (revisions !== undefined) {
    for (const [k, v] of Object.entries(JSON.parse(revisions) as Record<string, number>)) {
      state.revisions.set(k, v);
    }
  }
  const sensitive = get("sutra.sensitive");
  if (sensitive !== undefined) {
    for (const [k, v] of Object.entries(JSON.parse(sensitive) as Record<string, string>)) {
      state.sensitive.set(k, v);
    }
  }
  const failure = get("sutra.failure");
  if (failure !== undefined) state.failure = JSON.parse(failure);

  const records = (prefix: string) =>
    [...entries.keys()]
      .filter((k) => k.startsWith(prefix) && /^\d+$/.test(k.slice(prefix.length)))
      .map((k) => [Number(k.slice(prefix.length)), JSON.parse(entries.get(k)!) as Json] as const)
      .sort((a, b) => a[0] - b[0]);

  for (const [id, r] of records("sutra.scope.")) state.scopes.set(id, readScope(plan, id, r));
  for (const [key, value] of entries) {
    if (key.startsWith("sutra.attempt.")) state.attempts.set(key.slice(14), counter(value));
    else if (key.startsWith("sutra.coverage.")) state.coverage.set(key.slice(15), counter(value));
    else if (key.startsWith("sutra.var.") || key.startsWith("sutra.local.")) {
      const [scope, name] = variableTarget(state, key);
      scope.vars.set(name, typed ? decodeValue(value) : value);
    } else if (key.startsWith("sutra.enc.")) {
      throw new Error(
        `'${key}' is encrypted: the snapshot must be opened with its tenant's key first`,
      );
    }
  }
  for (const scope of state.scopes.values()) scope.vars = new Map([...scope.vars].sort(byKey));
  for (const [id, r] of records("sutra.token.")) {
    const scope = state.scopes.get(r.scope as number);
    if (!scope) throw new Error(`token ${id} is in an unknown scope`);
    state.tokens.set(id, readToken(processOf(plan, scope.process), id, r));
  }
  for (const [id, r] of records("sutra.wait.")) {
    state.waits.set(id, readWait(processOf(plan, r.process as string), id, r));
  }
  for (const [id, r] of records("sutra.compensation.")) {
    state.compensations.set(id, readRun(plan, state, id, r));
  }
  countLive(state);
  return state;
}

function byKey(a: [string, FeelValue], b: [string, FeelValue]): number {
  return a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0;
}

function required(v: string | undefined, key: string): string {
  if (v === undefined) throw new Error(`'${key}' is missing`);
  return v;
}

const STATUSES: ReadonlySet<string> = new Set([
  "RUNNING",
  "WAITING",
  "COMPLETED",
  "TERMINATED",
  "FAILED",
]);

function status(v: string | undefined): InstanceStatus {
  if (v === undefined || !STATUSES.has(v)) throw new Error(`'${v}' is not an instance status`);
  return v as InstanceStatus;
}

/** A malformed counter reads as zero: a snapshot must never become unreadable over one. */
function counter(v: string | undefined): number {
  const n = Number(v);
  return v !== undefined && /^\d+$/.test(v) && Number.isSafeInteger(n) ? n : 0;
}

function variableTarget(state: InstanceState, key: string): [ScopeInstance, string] {
  if (key.startsWith("sutra.var.")) {
    const root = [...state.scopes.values()].find((s) => s.parent === undefined);
    if (!root) throw new Error("variables but no process scope");
    return [root, key.slice(10)];
  }
  const rest = key.slice(12);
  const dot = rest.indexOf(".");
  const scope = state.scopes.get(Number(rest.slice(0, dot)));
  if (dot < 0 || !scope) throw new Error(`'${key}' names no scope`);
  return [scope, rest.slice(dot + 1)];
}

function nodeIndex(p: ProcessPlan, id: unknown): number {
  const i = p.nodeIndex.get(id as string);
  if (i === undefined) throw new Error(`process '${p.id}' has no node '${id}'`);
  return i;
}

function flowIndex(p: ProcessPlan, id: unknown): number {
  const i = p.flowIndex.get(id as string);
  if (i === undefined) throw new Error(`process '${p.id}' has no flow '${id}'`);
  return i;
}

function readScope(plan: ExecutionPlan, id: number, r: Json): ScopeInstance {
  const p = processOf(plan, r.process as string);
  const planScope = p.scopes.findIndex((s) => s.id === r.planScope);
  if (planScope < 0) throw new Error(`process '${p.id}' has no scope '${r.planScope}'`);
  const scope: ScopeInstance = {
    id,
    kind: r.kind as ScopeKind,
    process: p.id,
    planScope,
    vars: new Map(),
    live: 0,
  };
  if (r.parent !== undefined) scope.parent = r.parent as number;
  if (r.token !== undefined) scope.token = r.token as number;
  if (r.interrupting !== undefined) scope.interrupting = r.interrupting as boolean;
  if (r.handler !== undefined) scope.handler = r.handler as number;
  if (r.written !== undefined) scope.written = new Set(r.written as string[]);
  if (r.loopCount !== undefined) scope.loopCount = r.loopCount as number;
  if (r.adHocNext !== undefined) scope.adHocNext = r.adHocNext as number;
  const mi = r.mi as Json | undefined;
  if (mi) {
    scope.mi = {
      total: mi.total as number,
      next: mi.next as number,
      completed: mi.completed as number,
      active: mi.active as number,
      outputs: (mi.outputs as string[]).map(decodeValue),
    };
    if (mi.items) scope.mi.items = (mi.items as string[]).map(decodeValue);
  }
  if (r.writes) {
    scope.writes = (r.writes as Json[]).map((w) => {
      const write: BufferedWrite = {
        store: w.store as string,
        key: w.key as string,
        value: decodeValue(w.value as string),
      };
      if (w.field !== undefined) write.field = w.field as string;
      if (w.expectRev !== undefined) write.expectRev = w.expectRev as number;
      return write;
    });
  }
  if (r.compensation) {
    scope.compensation = (r.compensation as Json[]).map((e) => readEntry(plan, e));
  }
  if (r.gates) {
    scope.gates = (r.gates as Json[]).map((g): Gate => ({
      node: nodeIndex(p, g.node),
      consumed: (g.consumed as string[]).map((f) => flowIndex(p, f)),
    }));
  }
  return scope;
}

function readEntry(plan: ExecutionPlan, r: Json): CompensationEntry {
  const p = processOf(plan, r.process as string);
  const entry: CompensationEntry = { node: nodeIndex(p, r.node), process: p.id };
  if (r.children) entry.children = (r.children as Json[]).map((c) => readEntry(plan, c));
  if (r.vars) {
    entry.vars = new Map(
      Object.entries(r.vars as Record<string, string>).map(([k, v]) => [k, decodeValue(v)]),
    );
  }
  return entry;
}

function readToken(p: ProcessPlan, id: number, r: Json): Token {
  const t: Token = {
    id,
    scope: r.scope as number,
    node: nodeIndex(p, r.node),
    state: r.state as TokenState,
  };
  if (r.arrival !== undefined) t.arrival = flowIndex(p, r.arrival);
  if (r.child !== undefined) t.child = r.child as number;
  if (r.inner !== undefined) t.inner = r.inner as boolean;
  if (r.handler !== undefined) t.handler = r.handler as number;
  if (r.attempt !== undefined) t.attempt = r.attempt as number;
  return t;
}

const WAIT_FIELDS = [
  "token",
  "scope",
  "channel",
  "messageType",
  "signal",
  "due",
  "fired",
  "last",
] as const;

function readWait(p: ProcessPlan, id: number, r: Json): Wait {
  const w: Wait = {
    id,
    kind: r.kind as Wait["kind"],
    purpose: r.purpose as Wait["purpose"],
    process: p.id,
    node: nodeIndex(p, r.node),
  };
  for (const f of WAIT_FIELDS) {
    if (r[f] !== undefined) (w as unknown as Record<string, unknown>)[f] = r[f];
  }
  if (r.timer !== undefined) w.timer = readCycle(id, r.timer);
  return w;
}

/** A wait's stored cycle (what its timer expression gave when armed), checked field by field. */
function readCycle(wait: number, r: unknown): TimerSpec {
  const c = (r ?? {}) as Json;
  const whole = (v: unknown) => typeof v === "number" && Number.isSafeInteger(v);
  const fine = c.kind === "cycle" && whole(c.intervalMillis) && (c.intervalMillis as number) > 0 &&
    (c.repetitions === null || whole(c.repetitions)) &&
    (c.startEpochMillis === undefined || whole(c.startEpochMillis)) &&
    (c.endEpochMillis === undefined || whole(c.endEpochMillis));
  if (!fine) throw new Error(`wait ${wait} holds a malformed timer cycle`);
  const spec: Record<string, unknown> = {
    kind: "cycle",
    repetitions: c.repetitions,
    intervalMillis: c.intervalMillis,
  };
  if (c.startEpochMillis !== undefined) spec.startEpochMillis = c.startEpochMillis;
  if (c.endEpochMillis !== undefined) spec.endEpochMillis = c.endEpochMillis;
  return spec as TimerSpec;
}

function readRun(plan: ExecutionPlan, s: InstanceState, id: number, r: Json): CompensationRun {
  const p = processOf(plan, scopeProcess(s, r.scope as number));
  const t = r.then as Json;
  const then = { ...t } as unknown as Continuation;
  if (then.kind === "boundary") then.boundary = nodeIndex(p, t.boundary);
  const run: CompensationRun = {
    id,
    scope: r.scope as number,
    queue: (r.queue as Json[]).map((e) => readEntry(plan, e)),
    queueScopes: r.queueScopes as number[],
    temporary: r.temporary as number[],
    then,
  };
  if (r.handler !== undefined) run.handler = r.handler as number;
  return run;
}

// Live counts are derived: tokens per scope, plus event sub-process runs and
// multi-instance runs in their parent, plus detached compensation runs in
// the scope they compensate.
function countLive(s: InstanceState): void {
  for (const t of s.tokens.values()) s.scopes.get(t.scope)!.live++;
  for (const run of s.compensations.values()) {
    if (run.then.kind === "detached") s.scopes.get(run.scope)!.live++;
  }
  for (const scope of s.scopes.values()) {
    if (
      (scope.kind === "eventSubProcess" || scope.kind === "instance") && scope.parent !== undefined
    ) {
      const parent = s.scopes.get(scope.parent);
      if (parent) parent.live++;
    }
  }
}
