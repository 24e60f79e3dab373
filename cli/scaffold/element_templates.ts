/**
 * Camunda Modeler element templates for the task shapes a Sutra process
 * uses, written by `sutra create app` to `.camunda/element-templates/`
 * (the folder Camunda Modeler searches upward from an open diagram). Each
 * template sets the BPMN element type and the attribute the engine reads
 * the task's implementation from, with a pattern the modeler checks as the
 * author types: a registered task, a channel call, a template rendering, a
 * decision (DMN or `.srl`), and a FEEL script with its result variable.
 *
 * No template binding can create a `q:` extension element (both template
 * schemas close the list of binding types, and the open `property` binding
 * only writes an attribute of the element): `q:source`, `q:alias`,
 * `q:retry`, `q:timeout` and `q:store` are edited through the moddle
 * descriptor (`xsd/q.json`). docs/authoring.md has the details; the test
 * pins them.
 *
 * @module
 */

/** The JSON Schema a template declares (the one `@bpmn-io/element-templates-validator` checks). */
export const TEMPLATE_SCHEMA =
  "https://unpkg.com/@camunda/element-templates-json-schema/resources/schema.json";

/** Where `create app` writes the templates, relative to the workspace. */
export const ELEMENT_TEMPLATES_PATH = ".camunda/element-templates/sutra.json";

interface Pattern {
  readonly value: string;
  readonly message: string;
}

/** One template's implementation field. */
function implementation(label: string, value: string, pattern: Pattern, description: string) {
  return {
    label,
    description,
    type: "String",
    value,
    binding: { type: "property", name: "implementation" },
    constraints: { notEmpty: true, pattern },
  };
}

function template(
  id: string,
  name: string,
  description: string,
  elementType: string,
  properties: readonly unknown[],
) {
  return {
    $schema: TEMPLATE_SCHEMA,
    id: `sutra.${id}`,
    name: `Sutra: ${name}`,
    description,
    version: 1,
    appliesTo: ["bpmn:Task"],
    elementType: { value: elementType },
    properties,
  };
}

/** The templates, one per task shape; `module` names the app's package for example values. */
export function elementTemplates(module: string): readonly unknown[] {
  return [
    template(
      "registered-task",
      "registered task",
      "A service task run by a task registered in the engine by name.",
      "bpmn:ServiceTask",
      [implementation("Registered task", "registered:", {
        value: "^registered:.+$",
        message: "registered:<name of a task registered in the engine>",
      }, "registered:<name>")],
    ),
    template(
      "channel-call",
      "channel call",
      "A service task that sends a request on a channel and waits for its correlated response " +
        "(a q:source on the task names the channel the response arrives on).",
      "bpmn:ServiceTask",
      [implementation("Channel", "channel:", {
        value: "^channel:[A-Za-z0-9][A-Za-z0-9._-]*$",
        message: "channel:<a channel of channels.yaml>",
      }, "channel:<channel>")],
    ),
    template(
      "template-task",
      "render a template",
      "A service task that renders a Handlebars or XSLT template of the package's templates/ folder.",
      "bpmn:ServiceTask",
      [implementation("Template", `${module}-accepted.xml.hbs`, {
        value: "^(urn:sutra:template:.+|.+\\.(hbs|handlebars|xsl|xslt))$",
        message: "a template key ending in .hbs, .handlebars, .xsl or .xslt",
      }, "the template's key under templates/")],
    ),
    template(
      "decision",
      "decision",
      "A business rule task evaluating a DMN decision (file.dmn#decisionId) or an .srl ruleset " +
        "of the package's rules/ folder.",
      "bpmn:BusinessRuleTask",
      [implementation("Decision", "rules.dmn#decision", {
        value: "^[^#]+\\.(dmn|srl)(#.+)?$",
        message: "file.dmn#decisionId, or file.srl",
      }, "file.dmn#decisionId or file.srl")],
    ),
    template(
      "feel-script",
      "FEEL script",
      "A script task evaluating a FEEL expression; its value is stored under the result variable.",
      "bpmn:ScriptTask",
      [
        {
          type: "Hidden",
          value: "feel",
          binding: { type: "property", name: "scriptFormat" },
        },
        {
          label: "Result variable",
          description: "The variable the script's value is stored under (q:resultVariable).",
          type: "String",
          value: "result",
          binding: { type: "property", name: "q:resultVariable" },
          constraints: {
            notEmpty: true,
            pattern: {
              value: "^[A-Za-z_][A-Za-z0-9_]*$",
              message: "a variable name: letters, digits and '_', not starting with a digit",
            },
          },
        },
      ],
    ),
  ];
}
