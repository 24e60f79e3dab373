/**
 * Sealing and verifying an archive, against a physical baseline measured in
 * the same run: fflate's own `zipSync` + `unzipSync` of the same bytes (a
 * raw zip and unzip, no manifest, no digests, no checks). The package is
 * generated: N files of template, schema and process text (default 400,
 * about 2 MB), every one different so compression does real work.
 *
 *     deno run -P=bench bench/package_bench.ts [FILES]
 *
 * Prints one JSON line:
 * `{"bench":"package.seal+verify","files":…,"bytes":…,"archiveBytes":…,
 * "msPerRun":…,"baseline":"fflate zipSync+unzipSync","baselineMsPerRun":…,"ratio":…}`
 * where `ratio` is sealing+verifying time over the baseline's (lower is better).
 *
 * @module
 */
import { unzipSync, zipSync } from "fflate";
import { readArchive, sealArchive } from "../engine/package/mod.ts";

const count = Number(Deno.args[0] ?? 400);
const encoder = new TextEncoder();

function generated(n: number): Map<string, Uint8Array> {
  const files = new Map<string, Uint8Array>();
  files.set(
    "package.yaml",
    encoder.encode(
      "labels:\n  tenant: bench\n  module: bench\n  version: 1.0.0\nengine:\n  minContract: 1\n",
    ),
  );
  for (let i = 0; i < n; i++) {
    const kind = i % 3;
    const rows = Array.from(
      { length: 60 },
      (_, r) =>
        kind === 0
          ? `  <field name="f${i}_${r}" type="xs:string" maxLength="${(i * 7 + r) % 140}"/>`
          : kind === 1
          ? `  {{#if payload.item${r}}}<item n="${r}">{{payload.item${r}.value}}-${i}</item>{{/if}}`
          : `  <bpmn:sequenceFlow id="Flow_${i}_${r}" sourceRef="N${r}" targetRef="N${r + 1}"/>`,
    );
    const path = kind === 0
      ? `schemas/s${i % 10}/part${i}.xsd`
      : kind === 1
      ? `templates/t${i % 10}/reply${i}.hbs`
      : `bpmn/p${i % 10}/process${i}.bpmn`;
    files.set(path, encoder.encode(`<!-- generated ${i} -->\n${rows.join("\n")}\n`));
  }
  return files;
}

const files = generated(count);
const bytes = [...files.values()].reduce((n, b) => n + b.length, 0);
const descriptor = {
  labels: { tenant: "bench", module: "bench", version: "1.0.0" },
  minContract: 1,
};

async function sealAndVerify(): Promise<number> {
  const sealed = await sealArchive(files, descriptor);
  const read = await readArchive(sealed.bytes);
  if (!read.archive) throw new Error(read.diagnostics[0].message);
  return sealed.bytes.length;
}

function rawZip(): number {
  const input: Record<string, Uint8Array> = {};
  for (const [path, b] of files) input[path] = b;
  const zipped = zipSync(input, { level: 6 });
  const back = unzipSync(zipped);
  if (Object.keys(back).length !== files.size) throw new Error("raw zip lost files");
  return zipped.length;
}

async function timeRuns(fn: () => unknown, runs: number): Promise<number> {
  const samples: number[] = [];
  for (let k = 0; k < runs; k++) {
    const t0 = performance.now();
    await fn();
    samples.push(performance.now() - t0);
  }
  samples.sort((a, b) => a - b);
  return samples[Math.floor(samples.length / 2)];
}

// Warm both paths (JIT, crypto) before measuring.
await timeRuns(sealAndVerify, 3);
await timeRuns(rawZip, 3);
const runs = 15;
const ms = await timeRuns(sealAndVerify, runs);
const baselineMs = await timeRuns(rawZip, runs);
const archiveBytes = await sealAndVerify();

console.log(JSON.stringify({
  bench: "package.seal+verify",
  files: files.size,
  bytes,
  archiveBytes,
  msPerRun: Number(ms.toFixed(2)),
  baseline: "fflate zipSync+unzipSync",
  baselineMsPerRun: Number(baselineMs.toFixed(2)),
  ratio: Number((ms / baselineMs).toFixed(2)),
}));
