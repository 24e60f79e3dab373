/**
 * The process `sutra create bpmn` (and `create app`) writes: a start event
 * subscribed to a channel and message type, the inbound's validation
 * summary routed to an exclusive gateway, and an accepted and a rejected
 * reply, each rendered from its own template.
 *
 * @module
 */
import { pascalCase } from "./names.ts";

/** How the gateway treats validation findings. */
export type ValidationPolicy = "fatal" | "soft";

/** What the process is wired to. */
export interface ProcessScaffold {
  /** Process id and file name (`order-intake`). */
  readonly process: string;
  /** The channel its start event consumes. */
  readonly channel: string;
  /** The message type it starts on. */
  readonly messageType: string;
  readonly validation: ValidationPolicy;
}

/** A file to write, by package path. */
export interface ScaffoldFile {
  readonly path: string;
  readonly text: string;
  /** Unix permissions, when not 0644. */
  readonly mode?: number;
}

/**
 * The gateway condition for accepting: `fatal` accepts only a clean
 * inbound; `soft` also accepts one whose findings all come from the
 * content validators (the schema was satisfied).
 */
export function acceptCondition(policy: ValidationPolicy): string {
  return policy === "fatal"
    ? 'validation.outcome = "OK"'
    : 'validation.outcome = "OK" or validation.tier = "content"';
}

/** The BPMN file and its two reply templates. */
export function processFiles(s: ProcessScaffold): ScaffoldFile[] {
  const name = pascalCase(s.process);
  const accepted = `${s.process}-accepted.xml.hbs`;
  const rejected = `${s.process}-rejected.xml.hbs`;
  const condition = acceptCondition(s.validation).replaceAll('"', "&quot;");
  const bpmn = `<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL"
                  xmlns:q="urn:sutra:q:1.0"
                  id="${s.process}-definitions" targetNamespace="urn:${s.process}">
  <bpmn:process id="${s.process}" name="${name}" isExecutable="true">
    <bpmn:startEvent id="Start" name="${s.messageType} received">
      <bpmn:extensionElements>
        <q:source channel="${s.channel}" messageTypeValue="${s.messageType}"/>
        <!-- validation: ${s.validation} — the summary reaches the gateway below as 'validation' -->
        <q:onValidation mode="route"/>
      </bpmn:extensionElements>
    </bpmn:startEvent>
    <bpmn:sequenceFlow id="Flow_StartToValid" sourceRef="Start" targetRef="Valid"/>
    <bpmn:exclusiveGateway id="Valid" name="Valid?" default="Flow_Rejected"/>
    <bpmn:sequenceFlow id="Flow_Accepted" sourceRef="Valid" targetRef="AcceptedReply">
      <bpmn:conditionExpression>${condition}</bpmn:conditionExpression>
    </bpmn:sequenceFlow>
    <bpmn:sequenceFlow id="Flow_Rejected" sourceRef="Valid" targetRef="RejectedReply"/>
    <bpmn:serviceTask id="AcceptedReply" name="Reply accepted" implementation="${accepted}">
      <bpmn:extensionElements>
        <q:reply contentType="application/xml"/>
      </bpmn:extensionElements>
    </bpmn:serviceTask>
    <bpmn:sequenceFlow id="Flow_AcceptedToEnd" sourceRef="AcceptedReply" targetRef="AcceptedEnd"/>
    <bpmn:endEvent id="AcceptedEnd" name="Accepted"/>
    <bpmn:serviceTask id="RejectedReply" name="Reply rejected" implementation="${rejected}">
      <bpmn:extensionElements>
        <q:reply contentType="application/xml"/>
      </bpmn:extensionElements>
    </bpmn:serviceTask>
    <bpmn:sequenceFlow id="Flow_RejectedToEnd" sourceRef="RejectedReply" targetRef="RejectedEnd"/>
    <bpmn:endEvent id="RejectedEnd" name="Rejected"/>
  </bpmn:process>
</bpmn:definitions>
`;
  return [
    { path: `bpmn/${s.process}.bpmn`, text: bpmn },
    {
      path: `templates/${accepted}`,
      text: `<${name}Accepted>
  <status>ACCEPTED</status>
</${name}Accepted>
`,
    },
    {
      path: `templates/${rejected}`,
      text: `<${name}Rejected>
  <status>REJECTED</status>
  <reason>{{validation.firstReasonCode}}</reason>
</${name}Rejected>
`,
    },
  ];
}
