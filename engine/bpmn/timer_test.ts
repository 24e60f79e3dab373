import assert from "node:assert/strict";
import { evaluate, type FeelValue } from "../../lang/feel/mod.ts";
import { loadBpmn } from "./load.ts";
import {
  parseTimer,
  parseTimerCycle,
  parseTimerDate,
  parseTimerDuration,
  timerFromValue,
} from "./timer.ts";

Deno.test("exact durations parse to milliseconds", () => {
  assert.deepEqual(parseTimerDuration("PT15M"), {
    ok: true,
    spec: { kind: "duration", millis: 900_000 },
  });
  assert.deepEqual(parseTimerDuration(" P1DT2H "), {
    ok: true,
    spec: { kind: "duration", millis: 93_600_000 },
  });
  assert.deepEqual(parseTimerDuration("P1W"), {
    ok: true,
    spec: { kind: "duration", millis: 604_800_000 },
  });
  assert.deepEqual(parseTimerDuration("PT0.5S"), {
    ok: true,
    spec: { kind: "duration", millis: 500 },
  });
});

Deno.test("calendar durations are unsupported, not malformed", () => {
  for (const text of ["P1M", "P1Y", "P1Y2M", "P1MT1H"]) {
    const r = parseTimerDuration(text);
    assert.equal(r.ok, false, text);
    assert.equal(!r.ok && r.refusal, "unsupported", text);
  }
  // Minutes after T are exact.
  assert.equal(parseTimerDuration("PT1M").ok, true);
});

Deno.test("malformed durations are malformed", () => {
  for (const text of ["", "P", "PT", "15 minutes", "-PT1S", "PT1H30", "1H", "=PT5M"]) {
    const r = parseTimerDuration(text);
    assert.equal(!r.ok && r.refusal, "malformed", text);
  }
});

Deno.test("dates need an offset or a zone", () => {
  assert.deepEqual(parseTimerDate("2026-03-01T09:00:00Z"), {
    ok: true,
    spec: { kind: "date", epochMillis: Date.UTC(2026, 2, 1, 9) },
  });
  assert.deepEqual(parseTimerDate("2026-03-01T10:00:00+01:00"), {
    ok: true,
    spec: { kind: "date", epochMillis: Date.UTC(2026, 2, 1, 9) },
  });
  assert.deepEqual(parseTimerDate("2026-03-01T10:00:00[Europe/Paris]"), {
    ok: true,
    spec: { kind: "date", epochMillis: Date.UTC(2026, 2, 1, 9) },
  });
  const local = parseTimerDate("2026-03-01T09:00:00");
  assert.equal(!local.ok && local.refusal, "unsupported");
  const dateOnly = parseTimerDate("2026-03-01");
  assert.equal(!dateOnly.ok && dateOnly.refusal, "unsupported");
  for (const text of ["tomorrow", "2026-13-01T09:00:00Z", "2026-02-30T09:00:00Z"]) {
    const r = parseTimerDate(text);
    assert.equal(!r.ok && r.refusal, "malformed", text);
  }
});

Deno.test("cycles: bounded, unbounded, anchored at a start or bounded by an end", () => {
  assert.deepEqual(parseTimerCycle("R3/PT1H"), {
    ok: true,
    spec: { kind: "cycle", repetitions: 3, intervalMillis: 3_600_000 },
  });
  assert.deepEqual(parseTimerCycle("R/P1D"), {
    ok: true,
    spec: { kind: "cycle", repetitions: null, intervalMillis: 86_400_000 },
  });
  assert.deepEqual(parseTimerCycle("R2/2026-03-01T09:00:00Z/PT30M"), {
    ok: true,
    spec: {
      kind: "cycle",
      repetitions: 2,
      intervalMillis: 1_800_000,
      startEpochMillis: Date.UTC(2026, 2, 1, 9),
    },
  });
  assert.deepEqual(parseTimerCycle("R/PT1H/2026-12-31T00:00:00Z"), {
    ok: true,
    spec: {
      kind: "cycle",
      repetitions: null,
      intervalMillis: 3_600_000,
      endEpochMillis: Date.UTC(2026, 11, 31),
    },
  });
  assert.deepEqual(parseTimerCycle("R4/2026-01-01T00:00:00Z/2026-01-01T06:00:00Z"), {
    ok: true,
    spec: {
      kind: "cycle",
      repetitions: 4,
      intervalMillis: 21_600_000,
      startEpochMillis: Date.UTC(2026, 0, 1),
    },
  });
});

Deno.test("cron and calendar cycles are unsupported; broken cycles are malformed", () => {
  for (const text of ["0 0 * * MON", "*/5 * * * * ?", "R3/P1M"]) {
    const r = parseTimerCycle(text);
    assert.equal(!r.ok && r.refusal, "unsupported", text);
  }
  for (
    const text of ["PT1H", "R3", "R3/", "Rx/PT1H", "R0/PT1H", "R/PT0S", "R/2026-01-01T00:00:00Z"]
  ) {
    const r = parseTimerCycle(text);
    assert.equal(!r.ok && r.refusal, "malformed", text);
  }
});

Deno.test("parseTimer dispatches on the BPMN form", () => {
  assert.equal(parseTimer("timeDuration", "PT1S").ok, true);
  assert.equal(parseTimer("timeDate", "PT1S").ok, false);
  assert.equal(parseTimer("timeCycle", "R/PT1S").ok, true);
});

// ------------------------------------------------------------ FEEL timer expressions

function process(body: string, variables = ""): string {
  return `<?xml version="1.0"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:q="urn:sutra:q:1.0" id="d">
  <bpmn:process id="p" isExecutable="true">${variables}
    <bpmn:startEvent id="s"/><bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="wait"/>
${body}
    <bpmn:sequenceFlow id="f2" sourceRef="wait" targetRef="e"/><bpmn:endEvent id="e"/>
  </bpmn:process>
</bpmn:definitions>`;
}

function catchWith(form: string, text: string): string {
  return `    <bpmn:intermediateCatchEvent id="wait"><bpmn:timerEventDefinition><bpmn:${form}>${text}</bpmn:${form}></bpmn:timerEventDefinition></bpmn:intermediateCatchEvent>`;
}

Deno.test("a timer written '=expr' loads as a compiled FEEL expression of its form", async () => {
  const r = await loadBpmn(
    process(catchWith("timeDuration", '= duration("PT" + string(n) + "M")')),
  );
  assert.deepEqual(r.diagnostics, []);
  const trigger = r.plan!.processes[0].nodes.find((n) => n.id === "wait")!.trigger!;
  assert.equal(trigger.timer, undefined);
  assert.equal(trigger.timerExpression?.form, "timeDuration");
  assert.equal(trigger.timerExpression?.expression.text, 'duration("PT" + string(n) + "M")');
  assert.deepEqual(trigger.timerExpression?.expression.paths, ["n"]);
  // The literal form is unchanged.
  const literal = await loadBpmn(process(catchWith("timeDuration", "PT15M")));
  const plain = literal.plan!.processes[0].nodes.find((n) => n.id === "wait")!.trigger!;
  assert.deepEqual(plain.timer, { kind: "duration", millis: 900_000 });
  assert.equal(plain.timerExpression, undefined);
});

Deno.test("a FEEL error in a timer expression points at its line and column", async () => {
  for (const written of ["= 1 +* 2", "=\n      1 +* 2", "<![CDATA[= 1 +* 2]]>"]) {
    const text = process(catchWith("timeDate", written));
    const r = await loadBpmn(text);
    assert.equal(r.ok, false);
    const [d] = r.diagnostics;
    assert.equal(d.code, "SUTRA.CONFIG.BPMN.FEEL_SYNTAX");
    assert.equal(d.attributes?.role, "timer");
    const line = text.split("\n")[d.source!.line! - 1];
    assert.equal(line[d.source!.column! - 1], "*", `${written}: ${line}`);
  }
});

Deno.test("a timer expression reading an undeclared variable is reported like any other", async () => {
  const declared = `
    <bpmn:extensionElements><q:variables><q:variable name="known" type="string"/></q:variables></bpmn:extensionElements>`;
  const text = process(catchWith("timeDuration", "=reminderDelay"), declared);
  const r = await loadBpmn(text);
  const [d] = r.diagnostics;
  assert.equal(d.code, "SUTRA.CONFIG.BPMN.FEEL_UNKNOWN_VARIABLE");
  assert.equal(d.attributes?.variable, "reminderDelay");
  const line = text.split("\n")[d.source!.line! - 1];
  assert.equal(line.slice(d.source!.column! - 1).startsWith("reminderDelay"), true, line);
});

Deno.test("a JUEL timer is refused as a foreign language, naming the FEEL form", async () => {
  const r = await loadBpmn(process(catchWith("timeDuration", "${reminderDelay}")));
  const [d] = r.diagnostics;
  assert.equal(d.code, "SUTRA.CONFIG.BPMN.EXPRESSION_LANGUAGE_UNSUPPORTED");
  assert.match(d.message, /JUEL/);
  assert.match(d.message, /=reminderDelay/);
  assert.equal(d.attributes?.suggestion, "=reminderDelay");
  const complex = await loadBpmn(process(catchWith("timeDate", "#{dateUtil.tomorrow()}")));
  assert.equal(complex.diagnostics[0].attributes?.suggestion, "=<FEEL expression>");
  const empty = await loadBpmn(process(catchWith("timeDuration", "=  ")));
  assert.equal(empty.diagnostics[0].code, "SUTRA.CONFIG.BPMN.TIMER_MISSING");
});

Deno.test("literal timer diagnostics are unchanged", async () => {
  const malformed = await loadBpmn(process(catchWith("timeDuration", "15 minutes")));
  assert.deepEqual(malformed.diagnostics.map((d) => d.code), ["SUTRA.CONFIG.BPMN.TIMER_MALFORMED"]);
  const unsupported = await loadBpmn(process(catchWith("timeDuration", "P1M")));
  assert.deepEqual(unsupported.diagnostics.map((d) => d.code), [
    "SUTRA.CONFIG.BPMN.TIMER_UNSUPPORTED",
  ]);
});

Deno.test("timer start events with an expression become schedules carrying it", async () => {
  const r = await loadBpmn(`<?xml version="1.0"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" id="d">
  <bpmn:process id="p" isExecutable="true">
    <bpmn:startEvent id="tick"><bpmn:timerEventDefinition><bpmn:timeCycle>="R/PT" + string(6) + "H"</bpmn:timeCycle></bpmn:timerEventDefinition></bpmn:startEvent>
    <bpmn:sequenceFlow id="f1" sourceRef="tick" targetRef="e"/><bpmn:endEvent id="e"/>
  </bpmn:process>
</bpmn:definitions>`);
  assert.deepEqual(r.diagnostics, []);
  const [schedule] = r.plan!.schedules;
  assert.equal(schedule.timer, undefined);
  assert.equal(schedule.timerExpression?.form, "timeCycle");
});

Deno.test("a schedule's expression, which has no variables to read, is checked at load", async () => {
  const scheduled = (form: string, text: string) =>
    loadBpmn(`<?xml version="1.0"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" id="d">
  <bpmn:process id="p" isExecutable="true">
    <bpmn:startEvent id="tick"><bpmn:timerEventDefinition><bpmn:${form}>${text}</bpmn:${form}></bpmn:timerEventDefinition></bpmn:startEvent>
    <bpmn:sequenceFlow id="f1" sourceRef="tick" targetRef="e"/><bpmn:endEvent id="e"/>
  </bpmn:process>
</bpmn:definitions>`);
  const bare = await scheduled("timeCycle", '="PT1H"');
  assert.deepEqual(bare.diagnostics.map((d) => d.code), ["SUTRA.CONFIG.BPMN.TIMER_MALFORMED"]);
  assert.match(
    bare.diagnostics[0].message,
    /a schedule, evaluated with no variables\) gives "PT1H"/,
  );
  assert.equal(bare.diagnostics[0].source?.line, 4);
  const month = await scheduled("timeDuration", '=duration("P1M")');
  assert.deepEqual(month.diagnostics.map((d) => d.code), ["SUTRA.CONFIG.BPMN.TIMER_UNSUPPORTED"]);
  const reading = await scheduled("timeDuration", "=reminderDelay");
  assert.deepEqual(reading.diagnostics.map((d) => d.code), ["SUTRA.CONFIG.BPMN.TIMER_MALFORMED"]);
  assert.deepEqual((await scheduled("timeCycle", '="R2/PT" + string(6) + "H"')).diagnostics, []);
  // A catch event's expression reads the instance's variables: it is checked when armed.
  assert.deepEqual((await loadBpmn(process(catchWith("timeCycle", "=cycleText")))).diagnostics, []);
});

Deno.test("timerFromValue reads FEEL durations, date-times and strings under the literal rules", () => {
  const value = (text: string): FeelValue => evaluate(text).value ?? null;
  assert.deepEqual(timerFromValue("timeDuration", value('duration("PT90S")')), {
    ok: true,
    spec: { kind: "duration", millis: 90_000 },
  });
  assert.deepEqual(timerFromValue("timeDuration", "P2D"), {
    ok: true,
    spec: { kind: "duration", millis: 172_800_000 },
  });
  assert.deepEqual(
    timerFromValue("timeDate", value('date and time("2026-03-01T10:00:00+01:00")')),
    {
      ok: true,
      spec: { kind: "date", epochMillis: Date.UTC(2026, 2, 1, 9) },
    },
  );
  assert.deepEqual(
    timerFromValue("timeDate", value('date and time("2026-07-01T11:00:00@Europe/Paris")')),
    { ok: true, spec: { kind: "date", epochMillis: Date.UTC(2026, 6, 1, 9) } },
  );
  assert.deepEqual(timerFromValue("timeCycle", "R2/PT1M"), {
    ok: true,
    spec: { kind: "cycle", repetitions: 2, intervalMillis: 60_000 },
  });
  const refusals: [Parameters<typeof timerFromValue>[0], unknown, string][] = [
    ["timeDuration", null, "malformed"],
    ["timeDuration", value("42"), "malformed"],
    ["timeDuration", value('duration("-PT5M")'), "malformed"],
    ["timeDuration", value('duration("P1M")'), "unsupported"],
    ["timeDuration", "P1M", "unsupported"],
    ["timeDate", value('date and time("2026-03-01T10:00:00")'), "unsupported"],
    ["timeDate", "2026-03-01T10:00:00", "unsupported"],
    ["timeDate", value('date("2026-03-01")'), "unsupported"],
    ["timeCycle", "PT1H", "malformed"],
    ["timeCycle", value('duration("PT1H")'), "malformed"],
    ["timeCycle", "0 0 * * MON", "unsupported"],
  ];
  for (const [form, v, refusal] of refusals) {
    const r = timerFromValue(form, v as Parameters<typeof timerFromValue>[1]);
    assert.equal(!r.ok && r.refusal, refusal, `${form} ${String(v)}`);
  }
});

Deno.test("a timer expression counts as read where the timer is armed (transient variables)", async () => {
  const variables = `
    <bpmn:extensionElements><q:variables><q:variable name="sla" transient="true"/></q:variables></bpmn:extensionElements>`;
  // The boundary arms when the task is entered, before the task waits: sla is still there.
  const boundary = await loadBpmn(process(
    `    <bpmn:userTask id="wait"><bpmn:extensionElements><q:source channel="c"/></bpmn:extensionElements></bpmn:userTask>
    <bpmn:boundaryEvent id="late" attachedToRef="wait"><bpmn:timerEventDefinition><bpmn:timeDuration>=sla</bpmn:timeDuration></bpmn:timerEventDefinition></bpmn:boundaryEvent>
    <bpmn:sequenceFlow id="f3" sourceRef="late" targetRef="e2"/><bpmn:endEvent id="e2"/>`,
    variables,
  ));
  assert.deepEqual(boundary.diagnostics, []);
  // A catch reached after a wait reads it once it is gone.
  const after = await loadBpmn(`<?xml version="1.0"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:q="urn:sutra:q:1.0" id="d">
  <bpmn:process id="p" isExecutable="true">${variables}
    <bpmn:startEvent id="s"/><bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="wait"/>
    <bpmn:userTask id="wait"><bpmn:extensionElements><q:source channel="c"/></bpmn:extensionElements></bpmn:userTask>
    <bpmn:sequenceFlow id="f2" sourceRef="wait" targetRef="later"/>
    <bpmn:intermediateCatchEvent id="later"><bpmn:timerEventDefinition><bpmn:timeDuration>=sla</bpmn:timeDuration></bpmn:timerEventDefinition></bpmn:intermediateCatchEvent>
    <bpmn:sequenceFlow id="f3" sourceRef="later" targetRef="e"/><bpmn:endEvent id="e"/>
  </bpmn:process>
</bpmn:definitions>`);
  assert.deepEqual(after.diagnostics.map((d) => [d.code, d.attributes?.wait]), [
    ["SUTRA.CONFIG.BPMN.TRANSIENT_READ_AFTER_WAIT", "wait"],
  ]);
});
