/**
 * The application workspace around a scaffolded package: a README with the
 * exact commands, a sample message, a drop folder for sealed archives, a
 * health-gated smoke script, the Camunda Modeler element templates, and a
 * compose file and a Kubernetes manifest for the engine.
 *
 * @module
 */
import { COMPOSE_PATH, deployAssets, KUBERNETES_PATH } from "./deploy_assets.ts";
import { ELEMENT_TEMPLATES_PATH, elementTemplates } from "./element_templates.ts";
import type { PackageFacts } from "./package.ts";
import type { ScaffoldFile } from "./process.ts";

/** Workspace path of the package folder for an app. */
export function appPackageDir(app: string): string {
  return `packages/${app}-main`;
}

/** Every workspace file outside the package. */
export function workspaceFiles(app: string, f: PackageFacts): ScaffoldFile[] {
  const pkg = appPackageDir(app);
  const sample = `samples/${f.channel}.xml`;
  return [
    { path: "deployments/.gitkeep", text: "" },
    {
      path: sample,
      text: `<?xml version="1.0" encoding="UTF-8"?>
<${f.messageType}>
  <id>REQ-0001</id>
  <amount>125.50</amount>
  <currency>EUR</currency>
</${f.messageType}>
`,
    },
    { path: "smoke.sh", mode: 0o755, text: smokeScript(f, sample) },
    {
      path: ELEMENT_TEMPLATES_PATH,
      text: JSON.stringify(elementTemplates(f.module), null, 2) + "\n",
    },
    ...deployAssets(app, f),
    {
      path: "README.md",
      text: `# ${app}

A Sutra application: one deployment package, \`${pkg}\`, whose process
\`${f.module}\` starts on a \`${f.messageType}\` arriving on the HTTP channel
\`${f.channel}\`, validates it against the package's own XSD codec
(\`schemas/${f.module}/\`, codec \`urn:${f.module}\`) and answers with an accepted
or a rejected reply (\`templates/\`).

\`\`\`
${pkg}/
  package.yaml       labels tenant=${f.tenant}, module=${f.module}, version=${f.version}
  channels.yaml      ${f.channel}: http, POST /channels/${f.channel}, API key from ${f.apiKeyEnv}
  bpmn/              the process
  schemas/${f.module}/     the XSD codec and its manifest
  templates/         the two replies
deployments/         sealed archives land here
samples/             a message to send
smoke.sh             waits for the engine, sends the sample, checks the reply
${ELEMENT_TEMPLATES_PATH}  Camunda Modeler element templates
${COMPOSE_PATH}  the engine on PostgreSQL with Docker Compose
${KUBERNETES_PATH}  the engine on Kubernetes
\`\`\`

## Check and seal

The \`sutra\` and \`sutra-engine\` commands below are installed once from a Sutra
checkout with \`npx -y deno@2.9.6 task install\` (see its \`docs/install.md\`).
Run from this folder:

\`\`\`sh
sutra lint ${pkg}
sutra package ${pkg} -o deployments
sutra deployments list deployments
\`\`\`

\`lint\` prints nothing when the package is clean. \`package\` writes
\`deployments/${f.archive}\`; packaging unchanged sources again gives the same
bytes and the same deploymentId.

## Deploy and call

The channel's API key is a reference (\`env:${f.apiKeyEnv}\`) and the engine's
admin surface needs a key of its own. An installed engine reads only the
variables it was installed with, so install it (once, in the Sutra checkout)
with \`npx -y deno@2.9.6 task install --env SUTRA_ADMIN_API_KEY,${f.apiKeyEnv}\`.
Start the engine with both keys in one terminal:

\`\`\`sh
export ${f.apiKeyEnv}=change-me SUTRA_ADMIN_API_KEY=admin-change-me
SUTRA_ADMIN_AUTH_API_KEY=env:SUTRA_ADMIN_API_KEY sutra-engine
\`\`\`

then deploy the archive and send the sample from another one, in this folder:

\`\`\`sh
export ${f.apiKeyEnv}=change-me SUTRA_ADMIN_API_KEY=admin-change-me
sutra deploy deployments/${f.archive} --api --engine-url http://localhost:8080
curl -sS -X POST http://localhost:8080/channels/${f.channel} \\
  -H 'Content-Type: application/xml' -H "X-Api-Key: $${f.apiKeyEnv}" \\
  --data-binary @${sample}
./smoke.sh
\`\`\`

## Run it in containers

\`${COMPOSE_PATH}\` runs the engine image on PostgreSQL, and
\`${KUBERNETES_PATH}\` runs it as a Deployment of two replicas behind a
Service, with \`/sutra/health/ready\` and \`/sutra/health/live\` as its
probes. Both use the image a Sutra checkout's Dockerfile builds
(\`docker build -t sutra-engine .\`); each file's first lines say how to
start it. With compose, deploy \`deployments/${f.archive}\` onto the engine
with \`sutra deploy\` as above, with \`--engine-url\` pointing at port 8080
of the container. On Kubernetes the archive travels in a ConfigMap the
engines converge to (their \`dir\` deployment source), so every replica
runs what the ConfigMap holds.

## Draw it in Camunda Modeler

Open \`${pkg}/bpmn/${f.module}.bpmn\` in Camunda Modeler: it finds the
element templates in \`${ELEMENT_TEMPLATES_PATH}\` by itself (it looks
in \`.camunda/element-templates\` above the diagram). Select a task and
choose a "Sutra:" template — registered task, channel call, render a
template, decision, FEEL script — to set what implements it, checked as you
type. To have them for every diagram, copy the file into the modeler's own
\`resources/element-templates\` folder. The \`q:\` elements (channels,
aliases, retries, stores) are described for bpmn.io tools by \`xsd/q.json\`
in the Sutra checkout (its \`docs/authoring.md\`).

## Grow it

\`\`\`sh
sutra create bpmn another-flow --package ${pkg} --validation soft
sutra create deployment ${app}-eu --from ${pkg}
\`\`\`
`,
    },
  ];
}

function smokeScript(f: PackageFacts, sample: string): string {
  return `#!/usr/bin/env bash
# Smoke test: wait until the engine reports ready, send the sample message on
# ${f.channel}, and check that the accepted reply comes back.
set -euo pipefail

# The same variable the sutra CLI reads (ENGINE_URL is still honoured).
ENGINE_URL="\${SUTRA_ENGINE_URL:-\${ENGINE_URL:-http://localhost:8080}}"
: "\${${f.apiKeyEnv}:?set ${f.apiKeyEnv} to the API key of the channel}"
here="$(cd "$(dirname "$0")" && pwd)"

for attempt in $(seq 1 60); do
  if curl -fsS "$ENGINE_URL/sutra/health/ready" >/dev/null 2>&1; then
    break
  fi
  if [ "$attempt" = 60 ]; then
    echo "smoke: the engine at $ENGINE_URL is not ready after 60s" >&2
    exit 1
  fi
  sleep 1
done

reply="$(curl -fsS -X POST "$ENGINE_URL/channels/${f.channel}" \\
  -H 'Content-Type: application/xml' -H "X-Api-Key: $${f.apiKeyEnv}" \\
  --data-binary @"$here/${sample}")"

case "$reply" in
  *"<status>ACCEPTED</status>"*) echo "smoke: ok" ;;
  *) echo "smoke: unexpected reply: $reply" >&2; exit 1 ;;
esac
`;
}
