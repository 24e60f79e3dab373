/**
 * Reads the q: elements of one `extensionElements` block into
 * {@link QSettings}. Reading is lenient on purpose: a value the schema
 * rejects reads as absent (or its default) here, because the schema check
 * (`q_schema.ts`) already reports it with its line and a second report of
 * the same mistake would only be noise.
 *
 * @module
 */
import { parseDurationMillis } from "../core/duration.ts";
import { attributeExpression, textExpression } from "./_expression_text.ts";
import type { SourceText } from "./_source.ts";
import { attribute, type XmlElement } from "./_xml.ts";
import type { Expression } from "./model.ts";
import {
  type AckMode,
  type DataClass,
  Q_NAMESPACE,
  type QAlias,
  type QAudit,
  type QCoverage,
  type QDispatch,
  type QHeader,
  type QLocated,
  type QOnValidation,
  type QReply,
  type QRetry,
  type QSend,
  type QSettings,
  type QSource,
  type QStore,
  type QTimeout,
  type QValidator,
  type QVariable,
  type ReplyMode,
  type VariableType,
} from "./q_model.ts";

/** Settings with every list still empty, ready to be filled while reading. */
type MutableQSettings = { [K in keyof QSettings]: QSettings[K][number][] };

const Q_LISTS: readonly (keyof QSettings)[] = [
  "sources",
  "aliases",
  "replies",
  "sends",
  "retries",
  "timeouts",
  "stores",
  "dispatches",
  "onValidations",
  "processes",
  "variables",
  "audits",
  "coverage",
  "values",
];

function emptySettings(): MutableQSettings {
  return Object.fromEntries(Q_LISTS.map((k) => [k, []])) as unknown as MutableQSettings;
}

/** Settings of an element that has no q: extensions. */
export const NO_Q_SETTINGS: QSettings = Object.freeze(emptySettings());

function oneOf<T extends string>(value: string | undefined, allowed: readonly T[]): T | undefined {
  const v = value?.trim();
  return v !== undefined && (allowed as readonly string[]).includes(v) ? v as T : undefined;
}

function bool(value: string | undefined, fallback: boolean): boolean {
  const v = value?.trim();
  if (v === "true" || v === "1") return true;
  if (v === "false" || v === "0") return false;
  return fallback;
}

function located(el: XmlElement): QLocated {
  return { line: el.line, column: el.column };
}

function qChildren(el: XmlElement, local?: string): XmlElement[] {
  return el.children.filter((c) =>
    c.uri === Q_NAMESPACE && (local === undefined || c.local === local)
  );
}

const EMPTY_EXPRESSION_FIELDS = { text: "", rawStart: 0, rawEnd: 0, lead: 0 };

/** Reads q: elements; stateless apart from the source text used for positions. */
export class QReader {
  readonly #source: SourceText;

  constructor(source: SourceText) {
    this.#source = source;
  }

  /** Reads every q: child of an `extensionElements` element. */
  read(extensionElements: readonly XmlElement[]): QSettings {
    const q = emptySettings();
    let any = false;
    for (const block of extensionElements) {
      for (const el of qChildren(block)) {
        any = true;
        switch (el.local) {
          case "source":
            q.sources.push(this.#source_(el));
            break;
          case "alias":
            q.aliases.push(this.#alias(el));
            break;
          case "reply":
            q.replies.push(this.#reply(el));
            break;
          case "send":
            q.sends.push(this.#send(el));
            break;
          case "retry":
            q.retries.push(this.#retry(el));
            break;
          case "timeout":
            q.timeouts.push(this.#timeout(el));
            break;
          case "store":
            q.stores.push(this.#store(el));
            break;
          case "dispatch":
            q.dispatches.push(this.#dispatch(el));
            break;
          case "onValidation":
            q.onValidations.push(this.#onValidation(el));
            break;
          case "process":
            q.processes.push({
              ...located(el),
              idempotent: bool(attribute(el, "idempotent"), false),
            });
            break;
          case "variables":
            for (const v of qChildren(el, "variable")) q.variables.push(this.#variable(v));
            break;
          case "audit":
            q.audits.push(this.#audit(el));
            break;
          case "coverage":
            q.coverage.push(this.#coverage(el));
            break;
          case "value":
            q.values.push({ ...located(el), expression: textExpression(this.#source, el) });
            break;
            // Anything else is not in the vocabulary; the schema check names it.
        }
      }
    }
    return any ? q : NO_Q_SETTINGS;
  }

  #expr(el: XmlElement, local: string): Expression | undefined {
    return attributeExpression(this.#source, el, local);
  }

  // A required expression the author left out: empty text, which the FEEL
  // check skips because the schema check reports the missing attribute.
  #required(el: XmlElement, local: string): Expression {
    return this.#expr(el, local) ??
      { ...EMPTY_EXPRESSION_FIELDS, line: el.line, column: el.column };
  }

  #source_(el: XmlElement): QSource {
    const validators: QValidator[] = [];
    for (const block of qChildren(el, "validators")) {
      for (const v of qChildren(block)) {
        if (v.local === "complexValidator") {
          validators.push({ ...located(v), kind: "complex", source: attribute(v, "source") ?? "" });
        } else if (v.local === "simpleValidator") {
          validators.push({
            ...located(v),
            kind: "simple",
            ref: attribute(v, "ref") ?? "",
            path: this.#required(v, "path"),
          });
        }
      }
    }
    const redactors = qChildren(el, "redactors").flatMap((r) =>
      qChildren(r, "redactor").map((x) => attribute(x, "ref") ?? "")
    );
    const source: {
      -readonly [K in keyof QSource]: QSource[K];
    } = {
      ...located(el),
      channel: attribute(el, "channel")?.trim() ?? "",
      name: attribute(el, "name")?.trim() || "payload",
      dataClass: oneOf<DataClass>(attribute(el, "dataClass"), [
        "none",
        "pii",
        "pci",
        "phi",
        "financial",
      ]) ?? "none",
      validators,
      redactors,
      aliases: qChildren(el, "alias").map((a) => this.#alias(a)),
    };
    const typeValue = attribute(el, "messageTypeValue")?.trim();
    if (typeValue) source.messageTypeValue = typeValue;
    const typePattern = attribute(el, "messageTypePattern");
    if (typePattern !== undefined) source.messageTypePattern = typePattern;
    const ack = oneOf<AckMode>(attribute(el, "ack"), ["on-persist", "on-complete"]);
    if (ack) source.ack = ack;
    const dedupKey = this.#expr(el, "dedupKey");
    if (dedupKey) source.dedupKey = dedupKey;
    return source;
  }

  #alias(el: XmlElement): QAlias {
    return {
      ...located(el),
      name: attribute(el, "name")?.trim() ?? "",
      expression: this.#required(el, "expression"),
      unique: bool(attribute(el, "unique"), false),
      onConflict: oneOf(attribute(el, "onConflict"), ["correlate", "reject"] as const) ?? "reject",
    };
  }

  #headers(el: XmlElement): QHeader[] {
    return qChildren(el, "header").map((h) => ({
      ...located(h),
      name: attribute(h, "name")?.trim() ?? "",
      value: this.#required(h, "value"),
    }));
  }

  #reply(el: XmlElement): QReply {
    const reply: { -readonly [K in keyof QReply]: QReply[K] } = {
      ...located(el),
      mode: oneOf<ReplyMode>(attribute(el, "mode"), [
        "native",
        "cloudevent-binary",
        "cloudevent-structured",
        "match-inbound",
      ]) ?? "native",
      continue: bool(attribute(el, "continue"), false),
      headers: this.#headers(el),
    };
    const contentType = attribute(el, "contentType")?.trim();
    if (contentType) reply.contentType = contentType;
    return reply;
  }

  #send(el: XmlElement): QSend {
    const send: { -readonly [K in keyof QSend]: QSend[K] } = {
      ...located(el),
      headers: this.#headers(el),
    };
    const destination = attribute(el, "destination")?.trim();
    if (destination) send.destination = destination;
    const channel = attribute(el, "channel")?.trim();
    if (channel) send.channel = channel;
    return send;
  }

  #retry(el: XmlElement): QRetry {
    const attempts = Number(attribute(el, "maxAttempts"));
    const coefficient = Number(attribute(el, "backoffCoefficient") ?? "2");
    const retry: { -readonly [K in keyof QRetry]: QRetry[K] } = {
      ...located(el),
      maxAttempts: Number.isInteger(attempts) && attempts > 0 ? attempts : 1,
      initialDelayMillis: parseDurationMillis(attribute(el, "initialDelay") ?? "PT1S") ?? 1000,
      backoffCoefficient: Number.isFinite(coefficient) && coefficient >= 1 ? coefficient : 2,
      nonRetryableCodes: (attribute(el, "nonRetryableCodes") ?? "").split(/\s+/).filter((c) => c),
    };
    const maxDelay = attribute(el, "maxDelay");
    const maxDelayMillis = maxDelay === undefined ? undefined : parseDurationMillis(maxDelay);
    if (maxDelayMillis !== undefined) retry.maxDelayMillis = maxDelayMillis;
    return retry;
  }

  #timeout(el: XmlElement): QTimeout {
    return {
      ...located(el),
      durationMillis: parseDurationMillis(attribute(el, "duration") ?? "") ?? 0,
    };
  }

  #store(el: XmlElement): QStore {
    const store: { -readonly [K in keyof QStore]: QStore[K] } = {
      ...located(el),
      key: this.#required(el, "key"),
      forUpdate: bool(attribute(el, "forUpdate"), false),
    };
    const field = attribute(el, "field")?.trim();
    if (field) store.field = field;
    if (attribute(el, "expect")?.trim() === "unchanged") store.expect = "unchanged";
    return store;
  }

  #dispatch(el: XmlElement): QDispatch {
    const dispatch: { -readonly [K in keyof QDispatch]: QDispatch[K] } = {
      ...located(el),
      onNoMatch: oneOf(attribute(el, "onNoMatch"), ["error", "default"] as const) ?? "error",
      cases: qChildren(el, "case").map((c) => ({
        ...located(c),
        when: this.#required(c, "when"),
        calledElement: attribute(c, "calledElement")?.trim() ?? "",
      })),
    };
    const fallback = attribute(el, "default")?.trim();
    if (fallback) dispatch.default = fallback;
    return dispatch;
  }

  #onValidation(el: XmlElement): QOnValidation {
    const policy: { -readonly [K in keyof QOnValidation]: QOnValidation[K] } = {
      ...located(el),
      mode: oneOf(attribute(el, "mode"), ["route", "reject", "error"] as const) ?? "reject",
    };
    const errorCode = attribute(el, "errorCode")?.trim();
    if (errorCode) policy.errorCode = errorCode;
    return policy;
  }

  #variable(el: XmlElement): QVariable {
    const variable: { -readonly [K in keyof QVariable]: QVariable[K] } = {
      ...located(el),
      name: attribute(el, "name")?.trim() ?? "",
      transient: bool(attribute(el, "transient"), false),
      sensitive: bool(attribute(el, "sensitive"), false),
    };
    const type = oneOf<VariableType>(attribute(el, "type"), [
      "string",
      "number",
      "boolean",
      "date",
      "time",
      "dateTime",
      "duration",
      "list",
      "context",
      "any",
    ]);
    if (type) variable.type = type;
    const schema = attribute(el, "schema")?.trim();
    if (schema) variable.schema = schema;
    const schemaType = attribute(el, "schemaType")?.trim();
    if (schemaType) variable.schemaType = schemaType;
    const source = attribute(el, "source")?.trim();
    if (source) variable.source = source;
    return variable;
  }

  #audit(el: XmlElement): QAudit {
    const audit: { -readonly [K in keyof QAudit]: QAudit[K] } = { ...located(el) };
    const sink = attribute(el, "sink")?.trim();
    if (sink) audit.sink = sink;
    const target = attribute(el, "target");
    if (target) audit.target = target;
    const capture = oneOf(
      attribute(el, "capture"),
      ["none", "lifecycle", "nodes", "full"] as const,
    );
    if (capture) audit.capture = capture;
    return audit;
  }

  #coverage(el: XmlElement): QCoverage {
    return {
      ...located(el),
      path: attribute(el, "path")?.trim() ?? "",
      flows: (attribute(el, "flows") ?? "").split(/\s+/).filter((f) => f),
    };
  }
}
