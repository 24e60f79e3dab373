/**
 * `deno task start`: runs the engine (embedded database under
 * `./.sutra/engine-db` unless `SUTRA_DATASOURCE_URL` says otherwise),
 * deploys the bundled examples into it — re-deploying unchanged examples is
 * a no-op — and prints how to call them. `/sutra/health/ready` answers 503
 * until every example is deployed, and "ready" is printed only then, so a
 * script that waits for readiness can call the examples at once. Takes the
 * engine's options (`--port`, `--config`, `--datasource`, `--help`).
 *
 * @module
 */
import "../main.ts";
import { transports } from "../engine/core/transport.ts";
import { readPackageDir, sealPackage } from "../engine/package/mod.ts";
import { ReadinessGate, runEngineProcess, type RunningEngine } from "../engine/runtime/mod.ts";

const EXAMPLES = ["approval-hold", "external-worker", "money-transfer", "quote-reply"];

/** Deploys every example; resolves to the names that did not deploy. */
async function deployExamples(engine: RunningEngine): Promise<string[]> {
  const failed: string[] = [];
  for (const name of EXAMPLES) {
    try {
      const read = await readPackageDir(new URL(`${name}/package`, import.meta.url).pathname);
      const sealed = read.files && await sealPackage(read.files, { transports });
      if (!sealed?.archive) {
        const found = [...read.diagnostics, ...(sealed?.diagnostics ?? [])];
        console.error(
          `example ${name} did not package:\n${found.map((d) => d.message).join("\n")}`,
        );
        failed.push(name);
        continue;
      }
      const result = await engine.deployments.deploy(sealed.archive.bytes);
      console.error(`deployed ${name}: ${result.slot} ${result.deploymentId.slice(0, 12)}…`);
    } catch (error) {
      console.error(`deploying example ${name} failed: ${error}`);
      failed.push(name);
    }
  }
  return failed;
}

function tryIt(u: string): string {
  return `
Try it:
  curl -sS -X POST ${u}/channels/quote-request -H 'Content-Type: application/json' \\
    -d '{"item":"widget","quantity":120,"unitPrice":2.5}'
  curl -sS -X POST ${u}/channels/approval-request -H 'Content-Type: application/json' \\
    -H 'X-Api-Key: approval-demo-key' -d '{"ApprovalRequest":{"E2EId":"E2E-1","Amount":"1500.00"}}'
  curl -sS -X POST ${u}/channels/approval-decision -H 'Content-Type: application/json' \\
    -H 'X-Api-Key: approval-demo-key' -d '{"ApprovalDecision":{"E2EId":"E2E-1","Decision":"APPROVE"}}'
  curl -sS ${u}/sutra/instances/<instanceId>
  curl -sS -X POST ${u}/channels/transfer-request -H 'Content-Type: application/json' \\
    -H 'X-Api-Key: transfer-demo-key' \\
    -d '{"TransferRequest":{"FromAccount":"alice","ToAccount":"bob","Amount":"25.00"}}'
  curl -sS -X POST ${u}/channels/loan-application -H 'Content-Type: application/json' \\
    -d '{"applicationId":"APP-1","applicant":"Ada","amount":5000}'
  npx -y deno@2.9.6 run --allow-net examples/external-worker/worker.ts ${u}   # scores it
`;
}

if (import.meta.main) {
  const examples = new ReadinessGate("examples", { pending: EXAMPLES });
  Deno.exit(
    await runEngineProcess({
      args: Deno.args,
      readiness: [examples],
      onStarted: (engine) => {
        deployExamples(engine).then((failed) => {
          examples.settle(
            { deployed: EXAMPLES.filter((n) => !failed.includes(n)), failed },
            failed.length > 0,
          );
          if (failed.length > 0) {
            console.error(`not ready: ${failed.join(", ")} did not deploy (see above)`);
            return;
          }
          console.error(
            `${tryIt(engine.url)}\nready: ${EXAMPLES.length} examples deployed at ${engine.url}`,
          );
        });
      },
    }),
  );
}
