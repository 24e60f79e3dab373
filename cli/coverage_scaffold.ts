/**
 * The admin set `sutra coverage init` adds beside the declarations: the
 * package's own `coverage-report` / `coverage-reset` channels, the two
 * processes that run the ops as registered tasks (`coverage:report`,
 * `coverage:reset`) and reply with the answer, and their reply templates.
 * Nothing that exists is overwritten: a file already there is left alone,
 * and a channel already declared is not declared again.
 *
 * @module
 */
import { join } from "node:path";

/** One file the scaffold wrote. */
export interface ScaffoldChange {
  readonly action: "created" | "updated";
  readonly file: string;
}

const OPS = ["report", "reset"] as const;

function processOf(op: string): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<!-- Admin: coverage:${op} for this deployment, answered on the coverage-${op} channel. -->
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL"
                  xmlns:q="urn:sutra:q:1.0"
                  id="coverage-${op}-definitions" targetNamespace="urn:sutra:coverage:admin">
  <bpmn:process id="coverage-${op}" isExecutable="true">
    <bpmn:startEvent id="Start">
      <bpmn:extensionElements>
        <q:source channel="coverage-${op}"/>
      </bpmn:extensionElements>
    </bpmn:startEvent>
    <bpmn:sequenceFlow id="Flow_ToOp" sourceRef="Start" targetRef="Op"/>
    <bpmn:serviceTask id="Op" name="coverage:${op}" implementation="registered:coverage:${op}"/>
    <bpmn:sequenceFlow id="Flow_ToReply" sourceRef="Op" targetRef="Reply"/>
    <bpmn:serviceTask id="Reply" name="Answer" implementation="coverage-${op}.json.hbs">
      <bpmn:extensionElements><q:reply/></bpmn:extensionElements>
    </bpmn:serviceTask>
    <bpmn:sequenceFlow id="Flow_ToEnd" sourceRef="Reply" targetRef="End"/>
    <bpmn:endEvent id="End"/>
  </bpmn:process>
</bpmn:definitions>
`;
}

// No default key: an admin channel that can reset compliance data stays shut until one is set.
function channelOf(op: string): string {
  return `  - name: coverage-${op}
    transport: http
    bind: "POST /channels/coverage-${op}"
    codec: urn:sutra:codec:json
    ack-mode: on-complete
    auth:
      scheme: apikey
      apikey:
        value: \${COVERAGE_API_KEY}
        header: X-Api-Key
`;
}

/** Writes the admin set into the package at `root`; answers what it wrote. */
export async function scaffoldAdminChannels(root: string): Promise<ScaffoldChange[]> {
  const changes: ScaffoldChange[] = [];
  const files: [string, string][] = [
    ...OPS.map((
      op,
    ): [string, string] => [join(root, "bpmn", `coverage-${op}.bpmn`), processOf(op)]),
    ...OPS.map((op): [string, string] => [
      join(root, "templates", `coverage-${op}.json.hbs`),
      "{{json coverage}}\n",
    ]),
  ];
  for (const [file, text] of files) {
    if (await createOnce(file, text)) changes.push({ action: "created", file });
  }
  const channels = join(root, "channels.yaml");
  const declared = OPS.map((op) => ({ name: `coverage-${op}`, block: channelOf(op) }));
  if (await declareEntries(channels, "channels", declared)) {
    changes.push({ action: "updated", file: channels });
  }
  return changes;
}

async function createOnce(file: string, text: string): Promise<boolean> {
  await Deno.mkdir(join(file, ".."), { recursive: true });
  try {
    await Deno.writeTextFile(file, text, { createNew: true });
    return true;
  } catch (error) {
    if (error instanceof Deno.errors.AlreadyExists) return false;
    throw error;
  }
}

/** One entry of a YAML list file: its `name`, and its text as appended. */
export interface ListEntry {
  readonly name: string;
  readonly block: string;
}

/**
 * Appends to the YAML list file `path` (its top key `list`, made when the
 * file does not exist) each entry whose name it does not declare yet;
 * answers whether it wrote.
 */
export async function declareEntries(
  path: string,
  list: string,
  entries: readonly ListEntry[],
): Promise<boolean> {
  let text: string;
  try {
    text = await Deno.readTextFile(path);
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
    text = `${list}:\n`;
  }
  const missing = entries.filter((e) =>
    !new RegExp(`^\\s*-\\s*name:\\s*${e.name}\\s*$`, "m").test(text)
  );
  if (missing.length === 0) return false;
  await Deno.writeTextFile(
    path,
    `${text.replace(/\n*$/, "\n")}${missing.map((e) => e.block).join("")}`,
  );
  return true;
}
