import assert from "node:assert/strict";
import { readChannelsYaml } from "./channels_yaml.ts";
import { readCoverageYaml } from "./coverage_yaml.ts";
import { readDatastoresYaml } from "./datastores_yaml.ts";
import { readPackageYaml } from "./package_yaml.ts";

const enc = (s: string) => new TextEncoder().encode(s);
const where = (ds: readonly { code: string; source?: { line?: number; column?: number } }[]) =>
  ds.map((d) => [d.code, d.source?.line, d.source?.column]);

Deno.test("package.yaml: labels, extra labels and minContract are read", () => {
  const r = readPackageYaml(enc(
    'labels:\n  "module": "money-transfer"\n  "tenant": "default"\n  "version": "1.0.0"\n  team: payments\nengine:\n  minContract: 1\n',
  ));
  assert.deepEqual(r.diagnostics, []);
  assert.deepEqual(r.descriptor, {
    labels: { module: "money-transfer", tenant: "default", version: "1.0.0", team: "payments" },
    minContract: 1,
  });
});

Deno.test("package.yaml: every violation at once, each with its line", () => {
  const r = readPackageYaml(enc(
    "labels:\n  tenant: a--b\n  module: 12\n  owner: [x]\nengine:\n  minContract: 0\n  extra: true\n",
  ));
  assert.equal(r.descriptor, undefined);
  assert.deepEqual(where(r.diagnostics), [
    ["SUTRA.CONFIG.PACKAGE.MANIFEST_INVALID", 2, 11],
    ["SUTRA.CONFIG.PACKAGE.MANIFEST_INVALID", 3, 11],
    ["SUTRA.CONFIG.PACKAGE.MANIFEST_INVALID", 4, 10],
    ["SUTRA.CONFIG.PACKAGE.MANIFEST_INVALID", 2, 3],
    ["SUTRA.CONFIG.PACKAGE.MANIFEST_INVALID", 6, 16],
    ["SUTRA.CONFIG.PACKAGE.MANIFEST_INVALID", 7, 3],
  ]);
  assert.match(r.diagnostics[0].message, /labels\.tenant: expected letters, digits/);
  assert.match(r.diagnostics[1].message, /quote it/);
  assert.match(r.diagnostics[3].message, /'version' is required/);
  assert.match(r.diagnostics[5].message, /unknown key 'extra'/);
});

Deno.test("YAML syntax errors, duplicate keys, aliases and unknown tags are refused with lines", () => {
  assert.deepEqual(where(readPackageYaml(enc("labels:\n  tenant: a\n  tenant: b\n")).diagnostics), [
    ["SUTRA.CONFIG.YAML.SYNTAX", 3, 3],
  ]);
  assert.deepEqual(
    where(readChannelsYaml(enc("channels:\n  - name: [a\n")).diagnostics).map((d) => d[0]),
    [
      "SUTRA.CONFIG.YAML.SYNTAX",
    ],
  );
  assert.deepEqual(
    where(
      readChannelsYaml(enc("base: &b {name: a, transport: http}\nchannels:\n  - *b\n")).diagnostics,
    ),
    [["SUTRA.CONFIG.CHANNEL.INVALID", 1, 1], ["SUTRA.CONFIG.CHANNEL.INVALID", 3, 5]],
  );
  assert.deepEqual(where(readChannelsYaml(enc("channels: !custom []\n")).diagnostics), [
    ["SUTRA.CONFIG.YAML.SYNTAX", 1, 11],
  ]);
  assert.deepEqual(where(readChannelsYaml(new Uint8Array([0xff, 0xfe, 0x41])).diagnostics), [
    ["SUTRA.CONFIG.YAML.SYNTAX", undefined, undefined],
  ]);
});

Deno.test("channels.yaml: fields, defaults and auth are read", () => {
  const r = readChannelsYaml(enc(`channels:
  - name: transfer-request
    transport: http
    bind: "POST /channels/transfer-request"
    codec: urn:transfer
    cloudevents-mode: none
    ack-mode: on-complete
    maxConcurrentInstances: 10
    payload-cap-bytes: 4096
    auth:
      scheme: apikey
      apikey:
        value: env:TRANSFER_KEY
  - name: transfer-queue
    transport: rabbitmq
    singleton: true
    broadcast: true
    options:
      queue: transfers
      url-ref: env:RABBIT_URL
`));
  assert.deepEqual(r.diagnostics, []);
  assert.deepEqual(r.channels, [
    {
      index: 0,
      name: "transfer-request",
      transport: "http",
      bind: "POST /channels/transfer-request",
      codec: "urn:transfer",
      ackMode: "on-complete",
      cloudeventsMode: "none",
      broadcast: false,
      singleton: false,
      maxConcurrentInstances: 10,
      payloadCapBytes: 4096,
      auth: { scheme: "apikey", apikey: { value: "env:TRANSFER_KEY", header: "X-Api-Key" } },
    },
    {
      index: 1,
      name: "transfer-queue",
      transport: "rabbitmq",
      broadcast: true,
      singleton: true,
      options: { queue: "transfers", "url-ref": "env:RABBIT_URL" },
    },
  ]);
});

Deno.test("channels.yaml: schema violations and auth blocks that do not fit the scheme", () => {
  const r = readChannelsYaml(enc(`channels:
  - name: a
    transport: http
    payload-cap-bytes: -1
    codec: transfer
  - transport: http
  - name: c
    transport: http
    auth:
      scheme: bearer
      apikey: { value: env:K }
`));
  assert.equal(r.channels, undefined);
  assert.deepEqual(where(r.diagnostics), [
    ["SUTRA.CONFIG.CHANNEL.INVALID", 4, 24],
    ["SUTRA.CONFIG.CHANNEL.INVALID", 5, 12],
    ["SUTRA.CONFIG.CHANNEL.INVALID", 6, 5],
  ]);
  const auth = readChannelsYaml(enc(`channels:
  - name: c
    transport: http
    auth:
      scheme: bearer
      apikey: { value: env:K }
`));
  assert.deepEqual(where(auth.diagnostics), [
    ["SUTRA.CONFIG.CHANNEL.INVALID", 6, 15],
    ["SUTRA.CONFIG.CHANNEL.INVALID", 5, 7],
  ]);
  assert.match(auth.diagnostics[0].message, /auth\.apikey does not apply to scheme 'bearer'/);
  assert.match(auth.diagnostics[1].message, /scheme 'bearer' needs a 'bearer' block/);
});

Deno.test("datastores.yaml: stores, structure and sql settings are read", () => {
  const r = readDatastoresYaml(enc(`datastores:
  - name: accounts
    type: sql
    structure:
      schema: urn:accounts
      type: AccountRecord
      columns:
        openedAt: opened_on
    sql:
      url-ref: env:ACCOUNTS_DB_URL
      migrations: migrations/accounts
      table: account_ledger
    dataClass: financial
  - name: coverage
    type: sql
    sql:
      url-ref: env:ACCOUNTS_DB_URL
`));
  assert.deepEqual(r.diagnostics, []);
  assert.deepEqual(r.stores, [
    {
      index: 0,
      name: "accounts",
      type: "sql",
      dataClass: "financial",
      structure: {
        schema: "urn:accounts",
        type: "AccountRecord",
        columns: { openedAt: "opened_on" },
      },
      sql: {
        urlRef: "env:ACCOUNTS_DB_URL",
        migrations: "migrations/accounts",
        table: "account_ledger",
      },
    },
    {
      index: 1,
      name: "coverage",
      type: "sql",
      dataClass: "none",
      sql: { urlRef: "env:ACCOUNTS_DB_URL" },
    },
  ]);
});

Deno.test("coverage files: flow-mapping links and per-process segments", () => {
  const r = readCoverageYaml(
    enc(`correlations:
  - id: relay-case
    key: caseId
    links:
      - { from: intake-svc:Task_ForwardToHub, to: hub-svc:Start_Received }
      - { from: hub-svc:Task_Reply, to: intake-svc:Imec_Await, key: orderId }
    coverages:
      - path: e2e-accepted
        segments:
          intake-svc: [Flow_p1_start, Flow_p1_done]
          hub-svc: [Flow_p2_start]
`),
    { path: "coverage/e2e.yaml", urn: "urn:sutra:coverage:e2e" },
  );
  assert.deepEqual(r.diagnostics, []);
  const c = r.coverage!.correlations[0];
  assert.deepEqual(c.links.map((l) => [l.from, l.to, l.key]), [
    [{ process: "intake-svc", node: "Task_ForwardToHub" }, {
      process: "hub-svc",
      node: "Start_Received",
    }, undefined],
    [
      { process: "hub-svc", node: "Task_Reply" },
      { process: "intake-svc", node: "Imec_Await" },
      "orderId",
    ],
  ]);
  assert.deepEqual([...c.coverages[0].segments], [
    ["intake-svc", ["Flow_p1_start", "Flow_p1_done"]],
    ["hub-svc", ["Flow_p2_start"]],
  ]);
  const bad = readCoverageYaml(
    enc(
      "correlations:\n  - id: x\n    key: k\n    coverages: []\n    links:\n      - { from: nocolon, to: a:b }\n",
    ),
    {
      path: "coverage/x.yaml",
      urn: "urn:sutra:coverage:x",
    },
  );
  assert.deepEqual(where(bad.diagnostics), [
    ["SUTRA.CONFIG.COVERAGE.INVALID", 4, 16],
    ["SUTRA.CONFIG.COVERAGE.INVALID", 6, 17],
  ]);
});
