/**
 * The typed form of the `q:` vocabulary (`urn:sutra:q:1.0`, schema in
 * `xsd/q.xsd`): what a BPMN element's extension elements tell the engine
 * about channels, correlation, replies, retries, stores and coverage.
 *
 * @module
 */
import type { Expression } from "./model.ts";

/** The q: namespace URI. */
export const Q_NAMESPACE = "urn:sutra:q:1.0";

/** Where a q: element was written. */
export interface QLocated {
  /** 1-based line of the element. */
  readonly line: number;
  /** 1-based column of the element. */
  readonly column: number;
}

/** Data sensitivity classes (drive redaction). */
export type DataClass = "none" | "pii" | "pci" | "phi" | "financial";

/** When an inbound is acknowledged. */
export type AckMode = "on-persist" | "on-complete";

/** One entry of a `q:validators` chain. */
export type QValidator =
  | QLocated & {
    readonly kind: "complex";
    /** A `.dmn`/`.srl` file or a built-in ruleset name. */
    readonly source: string;
  }
  | QLocated & {
    readonly kind: "simple";
    /** A registered content validator. */
    readonly ref: string;
    /** The FEEL path the validator checks. */
    readonly path: Expression;
  };

/** `q:alias`: a business correlation key derived from the variables. */
export interface QAlias extends QLocated {
  readonly name: string;
  readonly expression: Expression;
  readonly unique: boolean;
  /** What a second instance with the same unique value does. */
  readonly onConflict: "correlate" | "reject";
}

/** `q:source`: the inbound trigger of a message-consuming node. */
export interface QSource extends QLocated {
  readonly channel: string;
  readonly messageTypeValue?: string;
  readonly messageTypePattern?: string;
  /** Variable the decoded payload lands in (default `payload`). */
  readonly name: string;
  readonly ack?: AckMode;
  readonly dedupKey?: Expression;
  readonly dataClass: DataClass;
  readonly validators: readonly QValidator[];
  /** Registered redactor names. */
  readonly redactors: readonly string[];
  /** Aliases nested in the source. */
  readonly aliases: readonly QAlias[];
}

/** `q:header`: a transport header computed by FEEL. */
export interface QHeader extends QLocated {
  readonly name: string;
  readonly value: Expression;
}

/** How a reply is shaped on the wire. */
export type ReplyMode = "native" | "cloudevent-binary" | "cloudevent-structured" | "match-inbound";

/** `q:reply`: answer the caller that started the instance. */
export interface QReply extends QLocated {
  readonly mode: ReplyMode;
  readonly contentType?: string;
  /** Respond-and-continue: flush the reply, then finish asynchronously. */
  readonly continue: boolean;
  readonly headers: readonly QHeader[];
}

/** `q:send`: an unsolicited outbound emission. */
export interface QSend extends QLocated {
  readonly destination?: string;
  readonly channel?: string;
  readonly headers: readonly QHeader[];
}

/** `q:retry`: per-task retry policy (durations in milliseconds). */
export interface QRetry extends QLocated {
  /** Total invocations including the first. */
  readonly maxAttempts: number;
  readonly initialDelayMillis: number;
  readonly backoffCoefficient: number;
  readonly maxDelayMillis?: number;
  readonly nonRetryableCodes: readonly string[];
}

/** `q:timeout`: a route-less deadline on a channel call. */
export interface QTimeout extends QLocated {
  readonly durationMillis: number;
}

/** `q:store`: keyed access through a data store reference. */
export interface QStore extends QLocated {
  readonly key: Expression;
  readonly forUpdate: boolean;
  readonly field?: string;
  readonly expect?: "unchanged";
}

/** One `q:case` of a `q:dispatch` table. */
export interface QCase extends QLocated {
  readonly when: Expression;
  readonly calledElement: string;
}

/** `q:dispatch`: a dynamic call-activity routing table. */
export interface QDispatch extends QLocated {
  /** Called element used when no case matches and `onNoMatch` is `default`. */
  readonly default?: string;
  readonly onNoMatch: "error" | "default";
  readonly cases: readonly QCase[];
}

/** `q:onValidation`: what a structural validation failure does. */
export interface QOnValidation extends QLocated {
  readonly mode: "route" | "reject" | "error";
  readonly errorCode?: string;
}

/** Scalar and structural types a declared variable may have. */
export type VariableType =
  | "string"
  | "number"
  | "boolean"
  | "date"
  | "time"
  | "dateTime"
  | "duration"
  | "list"
  | "context"
  | "any";

/** One `q:variable` declaration. */
export interface QVariable extends QLocated {
  readonly name: string;
  readonly type?: VariableType;
  /** Codec URN whose schema describes the value. */
  readonly schema?: string;
  /** Type or root element within that schema. */
  readonly schemaType?: string;
  /** Never persisted: unreadable after a wait state. */
  readonly transient: boolean;
  /** Persisted but redacted on every observability surface. */
  readonly sensitive: boolean;
  /** Channel whose payload initialises the variable. */
  readonly source?: string;
}

/** `q:audit`: per-process audit configuration. */
export interface QAudit extends QLocated {
  readonly sink?: string;
  readonly target?: string;
  readonly capture?: "none" | "lifecycle" | "nodes" | "full";
}

/** `q:coverage`: one declared compliance route. */
export interface QCoverage extends QLocated {
  readonly path: string;
  /** Sequence-flow ids in traversal order. */
  readonly flows: readonly string[];
}

/** `q:value`: the initial value of a data object, a FEEL expression. */
export interface QValue extends QLocated {
  readonly expression: Expression;
}

/**
 * Everything the q: vocabulary says about one BPMN element. Lists keep every
 * occurrence (so validation can report duplicates); singletons take the
 * first.
 */
export interface QSettings {
  readonly sources: readonly QSource[];
  /** Aliases written directly in extensionElements. */
  readonly aliases: readonly QAlias[];
  readonly replies: readonly QReply[];
  readonly sends: readonly QSend[];
  readonly retries: readonly QRetry[];
  readonly timeouts: readonly QTimeout[];
  readonly stores: readonly QStore[];
  readonly dispatches: readonly QDispatch[];
  readonly onValidations: readonly QOnValidation[];
  /** `q:process idempotent` values. */
  readonly processes: readonly (QLocated & { readonly idempotent: boolean })[];
  readonly variables: readonly QVariable[];
  readonly audits: readonly QAudit[];
  readonly coverage: readonly QCoverage[];
  /** Data objects: `q:value`. */
  readonly values: readonly QValue[];
}
