/**
 * The catalogue of diagnostic codes the engine and CLI emit. Every
 * `SUTRA.*` code literal in the source tree must appear here
 * (`codes_test.ts` enforces it), so this file doubles as the reference list
 * `docs/diagnostics.md` is checked against.
 *
 * @module
 */

/** Code → one-line meaning. Grouped by category; keep each group sorted. */
export const CODES = {
  // Command line
  "SUTRA.CLI.CONTEXT_INVALID":
    "A line of a `sutra explain --context` file is not `name: value` with a JSON or FEEL value.",
  "SUTRA.CLI.FILE_UNREADABLE": "A file named on the command line cannot be read.",
  "SUTRA.CLI.USAGE": "Unknown command, unknown flag or a missing/invalid argument.",
  // BPMN model (see docs/bpmn.md)
  "SUTRA.CONFIG.BPMN.ASSIGNMENT_TARGET_INVALID": "An assignment target is not a variable or path.",
  "SUTRA.CONFIG.BPMN.CONDITION_MISSING":
    "A flow leaving a diverging gateway has no condition and is not the default.",
  "SUTRA.CONFIG.BPMN.COVERAGE_FLOW_UNKNOWN":
    "A coverage route names a flow the process does not have.",
  "SUTRA.CONFIG.BPMN.COVERAGE_NOT_CONTIGUOUS":
    "Consecutive flows of a coverage route do not connect.",
  "SUTRA.CONFIG.BPMN.COVERAGE_PATH_DUPLICATE": "A coverage path id is declared twice.",
  "SUTRA.CONFIG.BPMN.DEFAULT_HAS_CONDITION":
    "A default flow carries a condition that is never evaluated (warning).",
  "SUTRA.CONFIG.BPMN.DEFAULT_NOT_OUTGOING":
    "A default flow is not one of the node's outgoing flows.",
  "SUTRA.CONFIG.BPMN.ELEMENT_UNKNOWN":
    "An element in the BPMN namespace that BPMN 2.0 does not define in that position.",
  "SUTRA.CONFIG.BPMN.ELEMENT_UNSUPPORTED":
    "A BPMN construct the engine does not run (a warning for a global task nothing calls).",
  "SUTRA.CONFIG.BPMN.ENCODING_UNSUPPORTED":
    "The BPMN file's bytes cannot be decoded in the declared or detected encoding.",
  "SUTRA.CONFIG.BPMN.EVENT_DEFINITION_INVALID":
    "An event trigger used where BPMN does not allow it.",
  "SUTRA.CONFIG.BPMN.EVENT_GATEWAY_TARGET_INVALID":
    "An event-based gateway leads to something other than a catch event or receive task.",
  "SUTRA.CONFIG.BPMN.EXPRESSION_EMPTY": "An empty condition or script.",
  "SUTRA.CONFIG.BPMN.EXPRESSION_LANGUAGE_UNSUPPORTED":
    "An expression in a language other than FEEL.",
  "SUTRA.CONFIG.BPMN.FEEL_PATH_INVALID": "A FEEL path leaves the known shape of its value.",
  "SUTRA.CONFIG.BPMN.FEEL_SYNTAX": "A FEEL expression in the file does not parse.",
  "SUTRA.CONFIG.BPMN.FEEL_UNKNOWN_VARIABLE": "A FEEL path starts at an undeclared, unbound name.",
  "SUTRA.CONFIG.BPMN.FLOW_CROSSES_SCOPE":
    "A flow or boundary event reaches into another process or sub-process.",
  "SUTRA.CONFIG.BPMN.ID_DUPLICATE": "An id is used twice in one file.",
  "SUTRA.CONFIG.BPMN.ID_MISSING": "An element that needs an id has none.",
  "SUTRA.CONFIG.BPMN.IMPLEMENTATION_UNSUPPORTED": "A task implementation that cannot run.",
  "SUTRA.CONFIG.BPMN.LINK_DUPLICATE": "Two link catches in one scope share a name.",
  "SUTRA.CONFIG.BPMN.LINK_UNMATCHED": "A link throw has no catch of the same name in its scope.",
  "SUTRA.CONFIG.BPMN.NOT_BPMN": "The root element is not a BPMN 2.0 definitions element.",
  "SUTRA.CONFIG.BPMN.PROCESS_NOT_EXECUTABLE":
    "A documentation process (isExecutable=false) was read but not planned (info).",
  "SUTRA.CONFIG.BPMN.Q_DUPLICATE":
    "A once-only q: element repeated, or an alias or variable declared twice.",
  "SUTRA.CONFIG.BPMN.Q_MISPLACED": "A q: element outside extensionElements.",
  "SUTRA.CONFIG.BPMN.Q_NOT_APPLICABLE": "A q: element on a host where it means nothing.",
  "SUTRA.CONFIG.BPMN.Q_SCHEMA": "A q: element violates xsd/q.xsd.",
  "SUTRA.CONFIG.BPMN.Q_SCHEMA_UNAVAILABLE":
    "The q: schema check could not run, so the file is refused.",
  "SUTRA.CONFIG.BPMN.REFERENCE_DANGLING": "A reference names nothing in the file.",
  "SUTRA.CONFIG.BPMN.REFERENCE_MISSING": "A required reference attribute is absent.",
  "SUTRA.CONFIG.BPMN.REFERENCE_WRONG_KIND": "A reference names an element of the wrong kind.",
  "SUTRA.CONFIG.BPMN.RETRY_DELAY_INVALID": "q:retry maxDelay is shorter than initialDelay.",
  "SUTRA.CONFIG.BPMN.RETRY_NOT_APPLICABLE":
    "q:retry on a task that cannot retry, or beside a routed timer boundary.",
  "SUTRA.CONFIG.BPMN.RETRY_TIMEOUT_REQUIRED":
    "A channel-call retry without the route-less q:timeout.",
  "SUTRA.CONFIG.BPMN.SCRIPT_FORMAT_UNSUPPORTED": "A script that is not FEEL.",
  "SUTRA.CONFIG.BPMN.SCRIPT_MISSING": "A script task has no script.",
  "SUTRA.CONFIG.BPMN.SEND_MISSING": "A message throw has no q:send or q:reply.",
  "SUTRA.CONFIG.BPMN.SEND_TARGET_INVALID": "A q:send needs exactly one of destination and channel.",
  "SUTRA.CONFIG.BPMN.SOURCE_CODEC": "A q:source names a codec (the channel owns the codec).",
  "SUTRA.CONFIG.BPMN.SOURCE_DUPLICATE": "A node has more than one q:source.",
  "SUTRA.CONFIG.BPMN.SOURCE_MISSING": "A message-consuming node has no q:source.",
  "SUTRA.CONFIG.BPMN.SOURCE_PATTERN_INVALID":
    "messageTypePattern is not a valid regular expression.",
  "SUTRA.CONFIG.BPMN.SOURCE_TYPE_CONFLICT":
    "A q:source sets both messageTypeValue and messageTypePattern.",
  "SUTRA.CONFIG.BPMN.START_MISSING": "An executable process has no start event.",
  "SUTRA.CONFIG.BPMN.START_TRIGGER_AMBIGUOUS": "A start event has both a q:source and a timer.",
  "SUTRA.CONFIG.BPMN.TIMER_MALFORMED": "A timer value is not an ISO-8601 date, duration or cycle.",
  "SUTRA.CONFIG.BPMN.TIMER_MISSING": "A timer has no date, duration or cycle.",
  "SUTRA.CONFIG.BPMN.TIMER_UNSUPPORTED":
    "A well-formed timer the engine refuses (cron, calendar durations, a date without a zone).",
  "SUTRA.CONFIG.BPMN.TRANSIENT_READ_AFTER_WAIT": "A transient variable is read after a wait state.",
  "SUTRA.CONFIG.BPMN.VALUE_INVALID": "A BPMN attribute value is unreadable.",
  "SUTRA.CONFIG.BPMN.VARIABLE_TYPE_CONFLICT": "A q:variable has both a type and a schema.",
  "SUTRA.CONFIG.BPMN.XML_MALFORMED": "The BPMN file is not well-formed XML.",
  // Configuration
  "SUTRA.CONFIG.FILE.UNREADABLE":
    "The configuration file named by SUTRA_CONFIG exists but cannot be read or parsed.",
  "SUTRA.CONFIG.PROPERTY.INVALID": "A configuration value failed its type or range check.",
  "SUTRA.CONFIG.PROPERTY.UNKNOWN":
    "A sutra.* key in the configuration file is not a known key (warning).",
  // DMN (see docs/dmn.md)
  "SUTRA.DMN.CYCLE": "Decisions require each other in a cycle.",
  "SUTRA.DMN.DECISION_TABLE":
    "An inconsistent decision table (cells per rule, hit policy, aggregation, output names or values).",
  "SUTRA.DMN.DUPLICATE":
    "An id, name, namespace, context entry or output column name is used twice.",
  "SUTRA.DMN.FEEL_SYNTAX":
    "A FEEL expression, table cell or allowed-values text in a DMN model does not parse.",
  "SUTRA.DMN.INTERNAL": "A defect in the DMN library, reported instead of thrown.",
  "SUTRA.DMN.MALFORMED":
    "A DMN element lacks a required attribute or child; a decision or BKM has no logic (warning).",
  "SUTRA.DMN.NOT_DMN":
    "The document is not a DMN 1.1-1.5 definitions element, or nothing was given to load.",
  "SUTRA.DMN.UNKNOWN_DECISION": "The decision or decision service to evaluate does not exist.",
  "SUTRA.DMN.UNKNOWN_TYPE": "A typeRef names no built-in type and no item definition.",
  "SUTRA.DMN.UNRESOLVED_REFERENCE":
    "A requirement, import, binding or name read in an expression refers to nothing.",
  "SUTRA.DMN.UNSUPPORTED":
    "A construct the engine does not evaluate: a non-FEEL expression language, a PMML function.",
  "SUTRA.DMN.XML": "A DMN file is not well-formed XML.",
  // Dispatch
  "SUTRA.DISPATCH.CHANNEL_CALL.RETRY_PENDING":
    "A response arrived while the channel call is backing off before its next attempt (refusal).",
  "SUTRA.DISPATCH.CHANNEL_CALL.TIMEOUT":
    "A channel call's q:timeout fired: a failed attempt under q:retry, otherwise a BPMN error.",
  // Engine database
  "SUTRA.DB.MIGRATION.CHECKSUM_MISMATCH":
    "An applied migration's recorded checksum differs from the shipped script.",
  "SUTRA.DB.MIGRATION.FAILED": "A migration script failed; its transaction was rolled back.",
  "SUTRA.DB.MIGRATION.PENDING": "The database has migrations that are not applied yet.",
  "SUTRA.DB.MIGRATION.UNKNOWN_VERSION":
    "The ledger records a migration this engine does not ship (the database is newer).",
  "SUTRA.DB.UNREACHABLE": "The engine database could not be opened or connected to.",
  "SUTRA.DB.URL_INVALID":
    "The datasource URL is not a postgres://, postgresql://, file path or memory:// URL.",
  // FEEL
  "SUTRA.FEEL.INTERNAL": "A defect inside the FEEL library, reported instead of thrown.",
  "SUTRA.FEEL.NONDETERMINISTIC":
    "now()/today() where a replay-safe expression is required and no clock is supplied.",
  "SUTRA.FEEL.PARSE": "The text is not a well-formed FEEL expression or unary-test list.",
  // Engine lifecycle and HTTP
  "SUTRA.ENGINE.BOOT_FAILED": "The engine could not start; the message names the failing stage.",
  "SUTRA.HTTP.NOT_FOUND": "No route matches the request path.",
  "SUTRA.HTTP.METHOD_NOT_ALLOWED": "The route exists but not for this HTTP method.",
  "SUTRA.HTTP.LISTEN_FAILED": "The HTTP listener could not bind its port.",
  // Runtime
  "SUTRA.RUNTIME.CALL.PROCESS_UNKNOWN":
    "A call activity names a process the deployment does not have.",
  "SUTRA.RUNTIME.DATASTORE.READ_FAILED": "A data-store read failed, or no store port was supplied.",
  "SUTRA.RUNTIME.DISPATCH.NO_MATCH":
    "No q:dispatch case matched (onNoMatch=error); catchable as a BPMN error.",
  "SUTRA.RUNTIME.ERROR.UNHANDLED":
    "A BPMN error, or a cancel end without a cancel boundary, that nothing catches.",
  "SUTRA.RUNTIME.ESCALATION.UNCAUGHT": "An escalation nobody caught; the flow continued (warning).",
  "SUTRA.RUNTIME.EXPRESSION.FAILED":
    "A FEEL evaluation was refused, or gave null because of an error where a value is needed.",
  "SUTRA.RUNTIME.GATEWAY.NO_PATH":
    "No outgoing flow of a gateway can be taken (no condition holds, no default).",
  "SUTRA.RUNTIME.INSTANCE.NOT_ACTIVE": "The instance is completed, terminated or failed (refusal).",
  "SUTRA.RUNTIME.INSTANCE.STUCK": "Tokens remain that nothing can ever move.",
  "SUTRA.RUNTIME.LISTENER.FAILED": "An execution listener threw and the step carried on (warning).",
  "SUTRA.RUNTIME.RESUME.WAIT_UNKNOWN": "The input names no wait the instance holds (refusal).",
  "SUTRA.RUNTIME.RETRY.EXHAUSTED":
    "The retry budget is spent, or the failure code is non-retryable.",
  "SUTRA.RUNTIME.SNAPSHOT.INVALID": "A snapshot cannot be decoded against the plan.",
  "SUTRA.RUNTIME.START.INVALID":
    "A start that names no start event, or comes with a state (refusal).",
  "SUTRA.RUNTIME.TASK.FAILED":
    "A task, decision or template attempt failed and the task has no retry policy.",
  "SUTRA.RUNTIME.UNEXPECTED": "An unexpected internal error, contained to one request or instance.",
  // .srl rulesets (see docs/srl.md)
  "SUTRA.SRL.ACTION_ARGUMENTS":
    "An .srl action has the wrong arguments or a set target that is not a plain name.",
  "SUTRA.SRL.ACTION_FAILED":
    "An .srl action argument could not be evaluated or had the wrong type.",
  "SUTRA.SRL.CONDITION_FAILED": "An .srl condition could not be evaluated or gave a non-boolean.",
  "SUTRA.SRL.DUPLICATE_RULE": "Two .srl rules share a name.",
  "SUTRA.SRL.EXPRESSION": "An .srl condition or argument is not valid FEEL.",
  "SUTRA.SRL.INTERNAL": "A defect in the .srl library, reported instead of thrown.",
  "SUTRA.SRL.PARSE": "The .srl rule framing is malformed.",
  "SUTRA.SRL.RESERVED_ACTION": "insert or retract: reserved .srl verbs.",
  "SUTRA.SRL.UNKNOWN_ACTION": "An .srl verb other than report and set.",
  // Templates (see docs/templates.md)
  "SUTRA.TEMPLATE.COMPILE":
    "A template does not compile (Handlebars syntax, unknown helper, XSLT static error).",
  "SUTRA.TEMPLATE.DUPLICATE_KEY": "Two templates were loaded under one key.",
  "SUTRA.TEMPLATE.INVALID_OUTPUT": "A rendered body is not valid for its content type (JSON, XML).",
  "SUTRA.TEMPLATE.RENDER": "A render failed; no partial body is returned.",
  "SUTRA.TEMPLATE.SOURCE_INVALID":
    "The source document given to an XSLT render is not well-formed.",
  "SUTRA.TEMPLATE.UNKNOWN": "A render names a template key that was not loaded.",
  "SUTRA.TEMPLATE.UNKNOWN_PARTIAL": "A Handlebars partial that no loaded template provides.",
  "SUTRA.TEMPLATE.UNSUPPORTED": "A template file that is not .hbs, .xsl or .xslt.",
  // Secrets
  "SUTRA.SECRET.REFERENCE_INVALID":
    "A secret reference is malformed or uses an unregistered scheme.",
  "SUTRA.SECRET.UNRESOLVED":
    "A secret reference names an environment variable or file that does not exist.",
} as const;

/** Every known diagnostic code. */
export type SutraCode = keyof typeof CODES;

/** True when `code` is in the catalogue. */
export function isKnownCode(code: string): code is SutraCode {
  return Object.hasOwn(CODES, code);
}
