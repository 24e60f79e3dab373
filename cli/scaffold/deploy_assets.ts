/**
 * The deploy assets `sutra create app` writes beside the package: a compose
 * file running the engine image (built from the Sutra checkout's
 * Dockerfile) on PostgreSQL, and a Kubernetes manifest running it as a
 * Deployment behind a Service, with the engine's health routes as probes.
 * With compose the sealed archive is deployed with `sutra deploy`; on
 * Kubernetes it ships as a ConfigMap the engine's `dir` deployment source
 * converges to.
 *
 * @module
 */
import type { PackageFacts } from "./package.ts";
import type { ScaffoldFile } from "./process.ts";

/** The image the Sutra checkout's Dockerfile builds (`docker build -t sutra-engine .`). */
export const ENGINE_IMAGE = "sutra-engine:latest";

/** Where the compose file and the manifest are written, relative to the workspace. */
export const COMPOSE_PATH = "deploy/compose.yaml";
export const KUBERNETES_PATH = "deploy/kubernetes.yaml";

/** The compose file and the Kubernetes manifest of an app. */
export function deployAssets(app: string, f: PackageFacts): ScaffoldFile[] {
  return [
    { path: COMPOSE_PATH, text: compose(f) },
    { path: KUBERNETES_PATH, text: kubernetes(app, f) },
  ];
}

function compose(f: PackageFacts): string {
  return `# The engine on PostgreSQL. Build the image once from a Sutra checkout
# (docker build -t sutra-engine .), then, from this folder:
#   ${f.apiKeyEnv}=change-me SUTRA_ADMIN_API_KEY=admin-change-me docker compose -f ${COMPOSE_PATH} up
# and deploy the sealed archive with sutra deploy (see README.md).
services:
  postgres:
    image: postgres:15
    environment:
      POSTGRES_USER: sutra
      POSTGRES_PASSWORD: sutra
      POSTGRES_DB: sutra
    volumes:
      - postgres-data:/var/lib/postgresql/data
    healthcheck:
      test: ["CMD", "pg_isready", "-U", "sutra", "-d", "sutra"]
      interval: 2s
      timeout: 5s
      retries: 30
  engine:
    image: ${ENGINE_IMAGE}
    depends_on:
      postgres:
        condition: service_healthy
    ports:
      - "8080:8080"
    environment:
      SUTRA_DATASOURCE_URL: postgres://sutra:sutra@postgres:5432/sutra
      SUTRA_ADMIN_AUTH_API_KEY: env:SUTRA_ADMIN_API_KEY
      SUTRA_ADMIN_API_KEY: \${SUTRA_ADMIN_API_KEY:?set the admin API key}
      ${f.apiKeyEnv}: \${${f.apiKeyEnv}:?set the channel's API key}
volumes:
  postgres-data: {}
`;
}

function kubernetes(app: string, f: PackageFacts): string {
  const name = `${app}-engine`;
  return `# The engine as a Deployment behind a Service, on the PostgreSQL server the
# Secret names. Push the image built from a Sutra checkout's Dockerfile to
# your registry and set it below; fill the Secret; put the sealed archive in
# a ConfigMap the engine converges to (the dir deployment source), then:
#   kubectl create configmap ${app}-packages --from-file=deployments/${f.archive}
#   kubectl apply -f ${KUBERNETES_PATH}
# A new revision is the same ConfigMap with the new archive (kubectl create
# configmap … --dry-run=client -o yaml | kubectl apply -f -).
apiVersion: v1
kind: Secret
metadata:
  name: ${name}
type: Opaque
stringData:
  SUTRA_DATASOURCE_URL: postgres://sutra:change-me@postgres:5432/sutra
  SUTRA_ADMIN_API_KEY: admin-change-me
  ${f.apiKeyEnv}: change-me
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: ${name}
  labels:
    app: ${name}
spec:
  replicas: 2
  selector:
    matchLabels:
      app: ${name}
  template:
    metadata:
      labels:
        app: ${name}
    spec:
      containers:
        - name: engine
          image: ${ENGINE_IMAGE}
          ports:
            - name: http
              containerPort: 8080
          env:
            - name: SUTRA_ADMIN_AUTH_API_KEY
              value: env:SUTRA_ADMIN_API_KEY
            - name: SUTRA_DEPLOYMENTS_SOURCE
              value: dir
            - name: SUTRA_DEPLOYMENTS_DIR
              value: /etc/sutra/packages
          envFrom:
            - secretRef:
                name: ${name}
          readinessProbe:
            httpGet:
              path: /sutra/health/ready
              port: http
            periodSeconds: 5
          livenessProbe:
            httpGet:
              path: /sutra/health/live
              port: http
            initialDelaySeconds: 10
            periodSeconds: 10
          volumeMounts:
            - name: data
              mountPath: /data
            - name: packages
              mountPath: /etc/sutra/packages
              readOnly: true
      volumes:
        - name: data
          emptyDir: {}
        - name: packages
          configMap:
            name: ${app}-packages
---
apiVersion: v1
kind: Service
metadata:
  name: ${name}
spec:
  selector:
    app: ${name}
  ports:
    - name: http
      port: 8080
      targetPort: http
`;
}
