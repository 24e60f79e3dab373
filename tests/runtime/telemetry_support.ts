/**
 * Helpers for the telemetry tests: a package whose order parks until a
 * confirmation is relayed, then sends the order to an outbound HTTP
 * address given at test time (another engine, or a plain receiver) and
 * parks a task for a pull worker; and an engine exporting to an OTLP
 * receiver.
 *
 * @module
 */
import assert from "node:assert/strict";
import { readPackageDir } from "../../engine/package/mod.ts";
import type { RunningEngine } from "../../engine/runtime/mod.ts";
import { bootEngine } from "./support.ts";
import { sealFiles } from "../support/fixture_package.ts";

const BPMN = `<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL"
                  xmlns:q="urn:sutra:q:1.0"
                  id="telemetry-flow" targetNamespace="urn:test:telemetry-flow">
  <bpmn:process id="order" isExecutable="true">
    <bpmn:startEvent id="OrderIn">
      <bpmn:extensionElements>
        <q:source channel="tel-order"/>
        <q:alias name="orderId" expression="payload.orderId" unique="true" onConflict="reject"/>
      </bpmn:extensionElements>
    </bpmn:startEvent>
    <bpmn:sequenceFlow id="f1" sourceRef="OrderIn" targetRef="Confirm"/>
    <bpmn:userTask id="Confirm">
      <bpmn:extensionElements>
        <q:source channel="tel-confirm" name="confirm">
          <q:alias name="orderId" expression="confirm.orderId"/>
        </q:source>
      </bpmn:extensionElements>
    </bpmn:userTask>
    <bpmn:sequenceFlow id="f2" sourceRef="Confirm" targetRef="Ship"/>
    <bpmn:intermediateThrowEvent id="Ship">
      <bpmn:extensionElements><q:send channel="tel-out"/></bpmn:extensionElements>
      <bpmn:dataInput id="shipBody"/>
      <bpmn:dataInputAssociation id="s1">
        <bpmn:targetRef>shipBody</bpmn:targetRef>
        <bpmn:transformation>{orderId: payload.orderId}</bpmn:transformation>
      </bpmn:dataInputAssociation>
      <bpmn:inputSet/>
      <bpmn:messageEventDefinition/>
    </bpmn:intermediateThrowEvent>
    <bpmn:sequenceFlow id="f3" sourceRef="Ship" targetRef="Pack"/>
    <bpmn:intermediateThrowEvent id="Pack">
      <bpmn:extensionElements><q:send channel="tel-work"/></bpmn:extensionElements>
      <bpmn:messageEventDefinition/>
    </bpmn:intermediateThrowEvent>
    <bpmn:sequenceFlow id="f4" sourceRef="Pack" targetRef="Done"/>
    <bpmn:endEvent id="Done"/>
  </bpmn:process>
  <bpmn:process id="downstream" isExecutable="true">
    <bpmn:startEvent id="DownIn">
      <bpmn:extensionElements><q:source channel="tel-downstream"/></bpmn:extensionElements>
    </bpmn:startEvent>
    <bpmn:sequenceFlow id="d1" sourceRef="DownIn" targetRef="DownDone"/>
    <bpmn:endEvent id="DownDone"/>
  </bpmn:process>
</bpmn:definitions>
`;

function channels(outUrl: string): string {
  return `channels:
  - name: tel-order
    transport: http
    bind: "POST /channels/tel-order"
    codec: urn:sutra:codec:json
  - name: tel-confirm
    transport: http
    bind: "POST /channels/tel-confirm"
    codec: urn:sutra:codec:json
  - name: tel-downstream
    transport: http
    bind: "POST /channels/tel-downstream"
    codec: urn:sutra:codec:json
  - name: tel-out
    transport: http
    bind: "POST ${outUrl}"
  - name: tel-work
    transport: pull
    bind: "pull://test/telemetry-flow/1.0.0/work"
    codec: urn:sutra:codec:json
`;
}

const PACKAGE_YAML = `labels:
  tenant: test
  module: telemetry-flow
  version: 1.0.0
engine:
  minContract: 1
`;

/** The sealed package, its `tel-out` channel sending to `outUrl`. */
export async function telemetryPackage(outUrl: string): Promise<Uint8Array> {
  const dir = await Deno.makeTempDir({ prefix: "sutra-telemetry-" });
  try {
    await Deno.mkdir(`${dir}/bpmn`);
    await Deno.writeTextFile(`${dir}/package.yaml`, PACKAGE_YAML);
    await Deno.writeTextFile(`${dir}/channels.yaml`, channels(outUrl));
    await Deno.writeTextFile(`${dir}/bpmn/flow.bpmn`, BPMN);
    const read = await readPackageDir(dir);
    assert.ok(read.files, read.diagnostics.map((d) => d.message).join("\n"));
    return await sealFiles(read.files);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** Boots an engine exporting to `otlpUrl` every few milliseconds, with `env` added. */
export function tracedEngine(
  otlpUrl: string,
  env: Readonly<Record<string, string>> = {},
): Promise<RunningEngine> {
  return bootEngine({
    env: {
      SUTRA_TELEMETRY_OTLP_ENDPOINT: otlpUrl,
      SUTRA_TELEMETRY_EXPORT_INTERVAL: "PT0.05S",
      SUTRA_OUTBOX_POLL_INTERVAL: "PT0.05S",
      ...env,
    },
  });
}
