/**
 * The catalogue of diagnostic codes the engine and CLI emit. Every
 * `SUTRA.*` code literal in the source tree must appear here
 * (`codes_test.ts` enforces it), so this file doubles as the reference list
 * `docs/diagnostics.md` is checked against.
 *
 * @module
 */

import { DATASTORE_CODES } from "./codes_datastores.ts";
import { EXTERNAL_TASK_CODES } from "./codes_external_tasks.ts";
import { TIMER_CODES } from "./codes_timers.ts";
import { SEMANTICS_CODES } from "./codes_semantics.ts";
import { HTTP_CODES } from "./codes_http.ts";
import { INPUT_CODES } from "./codes_input.ts";
import { STORE_LOCK_CODES } from "./codes_store_locks.ts";
import { BROKER_CODES } from "./codes_brokers.ts";
import { FILE_TRANSPORT_CODES } from "./codes_file_transport.ts";
import { AMQP10_CODES } from "./codes_amqp10.ts";
import { SHIPPING_CODES } from "./codes_shipping.ts";
import { XSD_CODES } from "./codes_xsd.ts";
import { PROTECTION_CODES } from "./codes_protection.ts";
import { ADMIN_CODES } from "./codes_admin.ts";
import { AUTHORING_CODES } from "./codes_authoring.ts";
import { TENANCY_CODES } from "./codes_tenancy.ts";

/** Code → one-line meaning. Grouped by category; keep each group sorted. */
export const CODES = {
  ...AUTHORING_CODES,
  ...TIMER_CODES,
  ...EXTERNAL_TASK_CODES,
  ...DATASTORE_CODES,
  ...SEMANTICS_CODES,
  ...HTTP_CODES,
  ...INPUT_CODES,
  ...STORE_LOCK_CODES,
  ...BROKER_CODES,
  ...FILE_TRANSPORT_CODES,
  ...AMQP10_CODES,
  ...SHIPPING_CODES,
  ...XSD_CODES,
  ...PROTECTION_CODES,
  ...ADMIN_CODES,
  ...TENANCY_CODES,
  // Command line
  "SUTRA.CLI.CONTEXT_INVALID":
    "A line of a `sutra explain --context` file is not `name: value` with a JSON or FEEL value.",
  "SUTRA.CLI.FILE_UNREADABLE": "A file named on the command line cannot be read.",
  "SUTRA.CLI.USAGE": "Unknown command, unknown flag or a missing/invalid argument.",
  "SUTRA.CLI.WAIT_TIMEOUT":
    "sutra deploy --dir --wait gave up before the engine reported the deployment Active or Failed.",
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
    "A flow, boundary event or compensation activityRef reaches into another process or sub-process.",
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
  "SUTRA.CONFIG.BPMN.START_MISSING":
    "Warning: an executable process has no start event and no call activity of its file calls it.",
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
  "SUTRA.DB.COMMIT_IN_DOUBT":
    "The connection broke during COMMIT and the server could not be asked whether it took effect.",
  "SUTRA.DB.CONNECTION_LOST":
    "A connection to the engine database broke under a statement; the pool was replaced (log only).",
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
  "SUTRA.ENGINE.USAGE": "sutra-engine was given an unknown option or a bad option value.",
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
  "SUTRA.RUNTIME.STEP.LIMIT":
    "One step entered 100,000 nodes without reaching a wait state (a loop with no wait in it).",
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
  // Packages, archives and package lint (see docs/packages.md)
  "SUTRA.CLI.FILE_UNWRITABLE":
    "A file the command must write (archive, scaffold) cannot be written.",
  "SUTRA.CONFIG.CHANNEL.BIND_CONFLICT": "Two channels of one transport bind the same address.",
  "SUTRA.CONFIG.CHANNEL.CODEC_SCHEMALESS":
    "A message type is subscribed on a channel whose codec yields none (warning).",
  "SUTRA.CONFIG.CHANNEL.DUPLICATE": "Two channels share a name.",
  "SUTRA.CONFIG.CHANNEL.INVALID": "channels.yaml violates its schema.",
  "SUTRA.CONFIG.CHANNEL.MESSAGE_TYPE_UNKNOWN":
    "A subscribed message type is not one the channel's codec yields.",
  "SUTRA.CONFIG.CHANNEL.SUBSCRIBER_CONFLICT":
    "Two start events take the same message type on a point-to-point channel.",
  "SUTRA.CONFIG.CHANNEL.TRANSPORT_UNAVAILABLE":
    "A channel's transport is not linked in this build.",
  "SUTRA.CONFIG.CHANNEL.UNKNOWN": "A process names a channel channels.yaml does not declare.",
  "SUTRA.CONFIG.CODEC.UNKNOWN":
    "A codec URN names neither a package codec folder nor a linked codec.",
  "SUTRA.CONFIG.CODEC_LAYOUT.INVALID":
    "A schema file loose in schemas/, or a codec manifest nested inside another codec folder.",
  "SUTRA.CONFIG.CODEC_MANIFEST.INVALID":
    "A codec manifest lacks a schemaKind, or names one this build does not link.",
  "SUTRA.CONFIG.CODEC_MANIFEST.MISSING": "A codec folder has no codec-manifest.yaml.",
  "SUTRA.CONFIG.COVERAGE.FLOW_UNKNOWN": "A coverage segment names a flow its process lacks.",
  "SUTRA.CONFIG.COVERAGE.INVALID": "A coverage file violates its schema.",
  "SUTRA.CONFIG.COVERAGE.KEY_UNRESOLVED":
    "The correlation key is not sent as a q:header or not read back as a q:alias.",
  "SUTRA.CONFIG.COVERAGE.LINK_UNWIRED": "A coverage link's sender and receiver share no channel.",
  "SUTRA.CONFIG.COVERAGE.NODE_UNKNOWN": "A coverage link names an unknown node.",
  "SUTRA.CONFIG.COVERAGE.NOT_CONTIGUOUS": "A coverage segment's consecutive flows do not connect.",
  "SUTRA.CONFIG.COVERAGE.PATH_DUPLICATE": "A route path appears twice in a coverage file.",
  "SUTRA.CONFIG.COVERAGE.PROCESS_UNKNOWN": "A coverage segment or link names an unknown process.",
  "SUTRA.CONFIG.COVERAGE.STORE_MISSING":
    "Coverage routes are declared but there is no coverage store.",
  "SUTRA.CONFIG.DATASTORE.COVERAGE_MIGRATIONS": "The reserved coverage store declares migrations.",
  "SUTRA.CONFIG.DATASTORE.DUPLICATE": "Two stores share a name.",
  "SUTRA.CONFIG.DATASTORE.INVALID": "datastores.yaml violates its schema.",
  "SUTRA.CONFIG.DATASTORE.MIGRATIONS_MISSING": "A business store has no migrations/<name> scripts.",
  "SUTRA.CONFIG.DATASTORE.MIGRATIONS_UNUSED": "A migrations folder no store uses (warning).",
  "SUTRA.CONFIG.DATASTORE.MIGRATION_INVALID":
    "A migration not named V<n>__*.sql, or a repeated version number.",
  "SUTRA.CONFIG.DATASTORE.STRUCTURE_SCHEMA_UNKNOWN":
    "structure.schema is not a codec of this package.",
  "SUTRA.CONFIG.DATASTORE.UNKNOWN": "A q:store reference names an undeclared store.",
  "SUTRA.CONFIG.DATASTORE.URL_REF_MISSING": "A store declares no sql.url-ref.",
  "SUTRA.CONFIG.PACKAGE.CONTRACT_UNSUPPORTED":
    "engine.minContract is above the contract this engine implements.",
  "SUTRA.CONFIG.PACKAGE.DECISION_UNKNOWN": "file.dmn#decision names no decision of that model.",
  "SUTRA.CONFIG.PACKAGE.ENCODING_INVALID": "A rule, template or model file that is not UTF-8.",
  "SUTRA.CONFIG.PACKAGE.ENTRY_INVALID":
    "A symlink, special file, or unsafe file name in a package directory.",
  "SUTRA.CONFIG.PACKAGE.FILE_UNEXPECTED": "A file with no place in the package layout.",
  "SUTRA.CONFIG.PACKAGE.FOLDER_NAME_INVALID":
    "A schemas/ or coverage/ path segment that cannot fold into a URN.",
  "SUTRA.CONFIG.PACKAGE.MANIFEST_INVALID": "package.yaml violates its schema.",
  "SUTRA.CONFIG.PACKAGE.MANIFEST_MISSING": "The package has no package.yaml.",
  "SUTRA.CONFIG.PACKAGE.PROCESS_DUPLICATE": "Two BPMN files define the same process id.",
  "SUTRA.CONFIG.PACKAGE.PROCESS_UNKNOWN":
    "A call activity or q:dispatch case calls a process no file defines.",
  "SUTRA.CONFIG.PACKAGE.RESERVED_FOLDER": "A first-level sutra/ folder under an artifact folder.",
  "SUTRA.CONFIG.PACKAGE.RULE_UNKNOWN":
    "A rule task or validator names a .dmn/.srl file not under rules/.",
  "SUTRA.CONFIG.PACKAGE.TEMPLATE_UNKNOWN": "A task renders a template the package does not have.",
  "SUTRA.CONFIG.PACKAGE.TOO_LARGE": "A package over the file-count, file-size or total-size limit.",
  "SUTRA.CONFIG.PACKAGE.UNREADABLE": "The package directory or a file in it cannot be read.",
  "SUTRA.CONFIG.SECRET.LITERAL": "A credential-shaped value is a literal, not a reference.",
  "SUTRA.CONFIG.YAML.SYNTAX":
    "A package YAML file is malformed, repeats a key, has several documents, an unknown tag, or is not UTF-8.",
  "SUTRA.DEPLOY.ARCHIVE_INVALID":
    "An archive fails verification; attributes.reason and attributes.entry say which check and which entry.",
  // Codecs, intake and validators (see docs/codecs.md)
  "SUTRA.CONFIG.SCHEMA.INVALID": "A schema file does not parse or compile, or declares no root.",
  "SUTRA.CONFIG.VALIDATOR.DECISION_MISSING":
    "A .dmn validator names no decision in the model, or the model has none.",
  "SUTRA.CONFIG.VALIDATOR.KIND_UNKNOWN":
    "A complex validator's file extension is not a linked rules language.",
  "SUTRA.CONFIG.VALIDATOR.PATH_INVALID": "A simple validator's path is not FEEL.",
  "SUTRA.CONFIG.VALIDATOR.SOURCE_MISSING": "A complex validator names no file in the package.",
  "SUTRA.CONFIG.VALIDATOR.UNKNOWN": "A simple validator's ref is not a linked content validator.",
  "SUTRA.ENCODE.CONTENT_TYPE_UNSUPPORTED":
    "A schema codec does not write the requested content type.",
  "SUTRA.ENCODE.MESSAGE_TYPE_MISSING": "An XML reply names no root element.",
  "SUTRA.ENCODE.MESSAGE_TYPE_UNKNOWN": "A schema codec declares no such message type for a reply.",
  "SUTRA.ENCODE.UNWRITABLE": "A reply value has no form in the wire format.",
  "SUTRA.INBOUND.PAYLOAD_TOO_LARGE":
    "The body exceeds the effective payload cap (attributes: channel, size, cap).",
  "SUTRA.INBOUND.VALIDATION_REJECTED":
    'q:onValidation mode="reject" refused a message with soft errors.',
  "SUTRA.PARSE.CODEC.FAILED":
    "A codec threw or broke the three-outcome contract (a defect, contained).",
  "SUTRA.PARSE.CONTENT_TYPE.UNSUPPORTED": "The codec does not accept the message's content type.",
  "SUTRA.PARSE.CSV.FIELD_COUNT": "A record's field count differs from the header's (soft).",
  "SUTRA.PARSE.CSV.HEADER_INVALID": "No header row, or an empty or repeated header name.",
  "SUTRA.PARSE.CSV.MALFORMED": "Broken CSV quoting (line, column).",
  "SUTRA.PARSE.JSON.MALFORMED": "Not well-formed JSON (line, column).",
  "SUTRA.PARSE.TEXT.CHARSET_UNSUPPORTED": "The declared charset is unknown.",
  "SUTRA.PARSE.TEXT.ENCODING": "The bytes are not valid in the charset.",
  "SUTRA.PARSE.XML.DOCTYPE_FORBIDDEN": "An XML payload carries a DOCTYPE.",
  "SUTRA.PARSE.XML.MALFORMED": "Not well-formed XML (line, column).",
  "SUTRA.PARSE.XML.TOO_DEEP":
    "Elements nest deeper than 512 levels (256 in an xsd codec, libxml2's limit).",
  "SUTRA.PARSE.YAML.MALFORMED":
    "Not well-formed YAML, a duplicate key, several documents, or too many aliases.",
  "SUTRA.PARSE.YAML.WARNING": "A YAML parser warning (not an error).",
  "SUTRA.REDACT.FAILED": "A redactor could not run, so the whole payload was masked (warning).",
  "SUTRA.VALIDATE.JSON_SCHEMA.TYPE_UNRESOLVED":
    "The discriminator is missing or names no schema (soft).",
  "SUTRA.VALIDATE.JSON_SCHEMA.VIOLATION": "The document breaks its JSON Schema (soft).",
  "SUTRA.VALIDATE.VALIDATOR_FAILED":
    "A validator in the chain could not run (reported as an issue, never skipped).",
  "SUTRA.VALIDATE.XSD.MAPPING": "A JSON/YAML document has no canonical XML form there (soft).",
  "SUTRA.VALIDATE.XSD.ROOT_UNDECLARED": "The XSD declares no such root element (soft).",
  "SUTRA.VALIDATE.XSD.UNAVAILABLE": "libxml2 could not run, so the message is refused.",
  "SUTRA.VALIDATE.XSD.VIOLATION": "The document breaks its XSD (soft).",
  // Deployments and the admin surface (see docs/deployments.md)
  "SUTRA.ADMIN.AUTH.DISABLED":
    "Boot warning: the admin surface is open through sutra.admin.oidc.dev-disabled.",
  "SUTRA.ADMIN.AUTH.FORBIDDEN": "The credential lacks the route's role (403).",
  "SUTRA.ADMIN.AUTH.INVALID": "The admin credential is wrong (401).",
  "SUTRA.ADMIN.AUTH.MISSING": "The admin credential header is absent (401).",
  "SUTRA.ADMIN.AUTH.UNCONFIGURED": "No admin credential is configured (503).",
  "SUTRA.CLI.ENGINE_RESPONSE_INVALID": "The engine answered with a body that is not JSON.",
  "SUTRA.CLI.ENGINE_UNREACHABLE": "The CLI cannot connect to --engine-url.",
  "SUTRA.DEPLOY.ARCHIVE_TOO_LARGE": "The upload exceeds sutra.deployments.max-archive-bytes (413).",
  "SUTRA.DEPLOY.CALLBACK_INVALID":
    "A deploy's callback= is not an absolute http:// or https:// URL (400); nothing is stored.",
  "SUTRA.DEPLOY.CHANNEL_COLLISION":
    "Another slot's active deployment already binds the channel; nothing was activated (409).",
  "SUTRA.DEPLOY.CONFLICT": "Concurrent deploys kept changing the slot; retrying is safe (409).",
  "SUTRA.DEPLOY.LINT_FAILED":
    "The archive is intact but its package fails the deploy-time checks (422); all findings follow.",
  "SUTRA.DEPLOY.LOAD_FAILED":
    "A stored deployment cannot be loaded at boot and is not served (log only).",
  "SUTRA.DEPLOY.NOTIFY_UNSUPPORTED":
    "A deploy's notify= is not a destination, or no linked transport delivers to its scheme (400).",
  "SUTRA.DEPLOY.PENDING_TAKEN_OVER":
    "An async deploy stayed pending past sutra.deployments.pending-takeover; this replica activates it again (log only).",
  "SUTRA.DEPLOY.SECRET_UNRESOLVED":
    "A channel's or store's secret reference cannot be resolved at activation; nothing was activated (422).",
  "SUTRA.DEPLOY.SOURCE_AMBIGUOUS":
    "Several archives in the dir source's directory hold one slot; none of them is deployed (log only).",
  "SUTRA.DEPLOY.STORE_FAILED":
    "A data store cannot be opened or migrated at activation; nothing was activated (422).",
  "SUTRA.DEPLOY.TENANT_MISMATCH":
    "The archive is labelled for a tenant this engine does not serve (422).",
  "SUTRA.DEPLOY.UNKNOWN": "No deployment (or none active or draining) has that id or slot (404).",
  // Data stores (see docs/datastores.md)
  "SUTRA.CONFIG.DATASTORE.COLUMN_NAME_INVALID":
    "A projected column name is unusable, reserved, too long, a control column, taken by another field, or an override for an undeclared field.",
  "SUTRA.CONFIG.DATASTORE.STRUCTURE_NOT_FLAT": "A projected type has a nested or repeated child.",
  "SUTRA.RUNTIME.DATASTORE.CONFLICT":
    "A compare-and-set write or delete found the key at another revision.",
  "SUTRA.RUNTIME.DATASTORE.MIGRATION_FAILED":
    "Creating the key/value table or running a store migration failed.",
  "SUTRA.RUNTIME.DATASTORE.UNREACHABLE": "A store's own database could not be connected to.",
  // Dispatch, transports and the outbox (see docs/runtime.md)
  "SUTRA.ACK.ON_COMPLETE_UNSUPPORTED":
    "The transport cannot hold on-complete, so the channel runs on-persist (warning).",
  "SUTRA.ACK.DEFERRED_REGISTERED":
    "A delivery's acknowledgement waits for its instances to end (debug).",
  "SUTRA.ACK.DEFERRED_ACKED": "Every instance of a deferred delivery ended; acknowledged (debug).",
  "SUTRA.ACK.DEFERRED_NACKED":
    "An instance of a deferred delivery failed; the delivery is refused for good (info).",
  "SUTRA.ACK.DEFERRED_OVERFLOW":
    "The deferred-ack registry was full; its oldest delivery was released for redelivery (warning).",
  "SUTRA.ACK.DEFERRED_TIMEOUT":
    "A deferred delivery's instances did not end in time; released for redelivery (warning).",
  "SUTRA.INBOUND.AUTH.INVALID": "Wrong credential (401).",
  "SUTRA.INBOUND.AUTH.MISSING": "No credential on the request (401).",
  "SUTRA.INBOUND.CLOUDEVENT.INVALID": "A structured-mode body is not a CloudEvent (400).",
  "SUTRA.INBOUND.CONCURRENCY_LIMIT": "The channel's maxConcurrentInstances is reached (429).",
  "SUTRA.INBOUND.DUPLICATE": "A concurrent copy with the same dedupKey committed first (409).",
  "SUTRA.OUTBOUND.DELIVERY_ATTEMPTS_EXHAUSTED":
    "sutra.outbox.retry.max-attempts reached; the row is poisoned and an incident opened.",
  "SUTRA.OUTBOUND.DELIVERY_REFUSED":
    "The sink refused permanently; the row is poisoned and an incident opened.",
  "SUTRA.OUTBOUND.SINK_UNKNOWN":
    "No sink for the destination scheme; retried (appears in the row's last error).",
  "SUTRA.RESOLVE.CHANNEL.UNKNOWN": "No active deployment serves or binds the channel (404).",
  "SUTRA.RUNTIME.ALIAS.DUPLICATE":
    "A unique alias is held by a live instance; nothing written (409).",
  "SUTRA.RUNTIME.CLAIM.SWEPT": "Abandoned claims were released by the sweep (warning).",
  "SUTRA.RUNTIME.INSTANCE.UNKNOWN": "No instance with that id or alias (404).",
  "SUTRA.RUNTIME.RELAY.CORRELATION_NOT_FOUND":
    "The relay matched no live alias, or the instance no longer waits at that node (404).",
  "SUTRA.RUNTIME.RESUME.CLAIM_HELD":
    "The instance is claimed elsewhere; safe to retry (409 with Retry-After).",
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
