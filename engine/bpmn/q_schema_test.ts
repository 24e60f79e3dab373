import assert from "node:assert/strict";
import { readBpmn } from "./reader.ts";
import { validateQElements } from "./q_schema.ts";
import { schemaCompilations } from "./xsd_validator.ts";

async function check(extensions: string) {
  const text =
    `<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:q="urn:sutra:q:1.0" id="d">
  <bpmn:process id="p">
    <bpmn:startEvent id="s">
      <bpmn:extensionElements>
${extensions}
      </bpmn:extensionElements>
    </bpmn:startEvent>
  </bpmn:process>
</bpmn:definitions>`;
  const read = readBpmn(text);
  return await validateQElements(read.source!, read.qElements, { uri: "t.bpmn" });
}

Deno.test("valid q: elements pass, whatever their prefix and layout", async () => {
  assert.deepEqual(
    await check(
      `        <q:source channel="in" messageTypeValue="Order" dedupKey="header.id &amp; 1"
                  dataClass="pii">
          <q:validators><q:complexValidator source="limits.dmn"/></q:validators>
          <q:redactors><q:redactor ref="pii"/></q:redactors>
          <q:alias name="k" expression="payload.id" unique="true" onConflict="correlate"/>
        </q:source>
        <s:onValidation xmlns:s="urn:sutra:q:1.0" mode="route"/>
        <alias xmlns="urn:sutra:q:1.0" name="other" expression="payload.other"/>`,
    ),
    [],
  );
});

Deno.test("violations point at the line the offending element starts on", async () => {
  const found = await check(`        <q:source channel="in"
                  ack="later">
          <q:alias name="k"
                   expression="payload.id" unique="sometimes"/>
        </q:source>
        <q:onValidation/>`);
  assert.deepEqual(
    found.map((d) => [d.code, d.source?.line, d.source?.column, d.attributes?.element]),
    [
      ["SUTRA.CONFIG.BPMN.Q_SCHEMA", 5, 9, "q:source"],
      ["SUTRA.CONFIG.BPMN.Q_SCHEMA", 7, 11, "q:alias"],
      ["SUTRA.CONFIG.BPMN.Q_SCHEMA", 10, 9, "q:onValidation"],
    ],
  );
  assert.match(found[0].message, /q:source', attribute 'ack'.*'later'/);
  assert.match(found[2].message, /attribute 'mode' is required/);
});

Deno.test("nothing to check means no validator run", async () => {
  assert.deepEqual(await check(""), []);
});

Deno.test("the q: schema is compiled once per process, not per document", async () => {
  await check(`<q:alias name="k" expression="payload.id"/>`);
  const before = schemaCompilations();
  for (let i = 0; i < 5; i++) {
    assert.equal((await check(`<q:alias name="k" expression="payload.id"/>`)).length, 0);
    assert.equal((await check(`<q:alias expression="payload.id"/>`)).length, 1);
  }
  assert.equal(schemaCompilations(), before);
});
