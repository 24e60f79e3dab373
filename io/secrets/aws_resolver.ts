/**
 * `aws-secrets:SECRET-ID` and `aws-secrets:SECRET-ID#FIELD` — an AWS
 * Secrets Manager secret's string (or one field of it, when it is a JSON
 * object), read with `npm:@aws-sdk/client-secrets-manager` from
 * `sutra.secrets.aws.region` (and `endpoint`, when set). Credentials are
 * always the configured `access-key-id` / `secret-access-key` (and
 * `session-token`) references: the SDK's own chain, which reads `AWS_*`
 * variables and `~/.aws` files, is never consulted. Values are reused for
 * `sutra.secrets.cache-ttl`, so a rotation is seen within that window.
 *
 * The SDK is loaded on first use, so linking the scheme costs nothing to a
 * process (the CLI's lint, say) that never resolves one.
 *
 * @module
 */
import type {
  SecretsManagerClient,
  SecretsManagerClientConfig,
} from "@aws-sdk/client-secrets-manager";
import { diagnostic, DiagnosticError } from "../../engine/core/diagnostic.ts";
import { errorMessage } from "../../engine/core/errors.ts";
import {
  type ResolveContext,
  resolveReference,
  type SecretResolver,
} from "../../engine/core/secrets.ts";
import {
  AWS_SECRETS_ACCESS_KEY_ID,
  AWS_SECRETS_ENDPOINT,
  AWS_SECRETS_REGION,
  AWS_SECRETS_SECRET_ACCESS_KEY,
  AWS_SECRETS_SESSION_TOKEN,
  SECRETS_CACHE_TTL,
  secretSettings,
  stateFor,
  TtlCache,
} from "./settings.ts";
import { PINNED_AWS_SDK_SETTINGS } from "../_aws/sdk_settings.ts";

// A secret name or ARN, then an optional JSON field.
const REFERENCE = /^([A-Za-z0-9/_+=.@:-]{1,2048})(?:#([^#\s]+))?$/;

interface AwsState {
  readonly cache: TtlCache;
  client?: Promise<SecretsManagerClient>;
}

const states = new WeakMap<object, AwsState>();

function unresolved(reference: string, why: string): DiagnosticError {
  return new DiagnosticError(
    diagnostic("SUTRA.SECRET.UNRESOLVED", `aws-secrets:${reference}: ${why}`, {
      attributes: { reference: `aws-secrets:${reference}` },
    }),
  );
}

/** Resolves `aws-secrets:SECRET-ID[#FIELD]` with Secrets Manager's GetSecretValue. */
export const awsSecretsResolver: SecretResolver = {
  name: "aws-secrets",
  async resolve(reference: string, context: ResolveContext): Promise<string> {
    const m = REFERENCE.exec(reference);
    if (!m) {
      throw new DiagnosticError(
        diagnostic(
          "SUTRA.SECRET.REFERENCE_INVALID",
          `'aws-secrets:${reference}' is not aws-secrets:SECRET-ID or aws-secrets:SECRET-ID#FIELD`,
        ),
      );
    }
    const [, secretId, field] = m;
    const settings = await secretSettings(context);
    const state = stateFor(states, context, (): AwsState => ({ cache: new TtlCache() }));
    const text = await state.cache.get(secretId, settings.require(SECRETS_CACHE_TTL), async () => {
      state.client ??= clientFor(reference, context);
      const client = await state.client.catch((error) => {
        state.client = undefined;
        throw error;
      });
      const { GetSecretValueCommand } = await import("@aws-sdk/client-secrets-manager");
      try {
        const out = await client.send(new GetSecretValueCommand({ SecretId: secretId }));
        if (out.SecretString !== undefined) return out.SecretString;
        if (out.SecretBinary !== undefined) return new TextDecoder().decode(out.SecretBinary);
        throw unresolved(reference, "the secret holds no value");
      } catch (error) {
        if (error instanceof DiagnosticError) throw error;
        const name = (error as { name?: string }).name;
        if (name === "ResourceNotFoundException") {
          throw unresolved(reference, `no secret '${secretId}'`);
        }
        throw unresolved(
          reference,
          `Secrets Manager refused: ${name ?? ""} ${errorMessage(error)}`,
        );
      }
    });
    if (field === undefined) return text;
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw unresolved(reference, `the secret is not a JSON object, so it has no field '${field}'`);
    }
    const value = parsed !== null && typeof parsed === "object"
      ? (parsed as Record<string, unknown>)[field]
      : undefined;
    if (value === undefined) throw unresolved(reference, `the secret has no field '${field}'`);
    return typeof value === "string" ? value : JSON.stringify(value);
  },
};

async function clientFor(
  reference: string,
  context: ResolveContext,
): Promise<SecretsManagerClient> {
  const settings = await secretSettings(context);
  const region = settings.get(AWS_SECRETS_REGION);
  const accessKey = settings.get(AWS_SECRETS_ACCESS_KEY_ID);
  const secretKey = settings.get(AWS_SECRETS_SECRET_ACCESS_KEY);
  if (region === undefined || accessKey === undefined || secretKey === undefined) {
    throw unresolved(
      reference,
      "sutra.secrets.aws.region, access-key-id and secret-access-key must all be set",
    );
  }
  const session = settings.get(AWS_SECRETS_SESSION_TOKEN);
  const endpoint = settings.get(AWS_SECRETS_ENDPOINT);
  const credentials = {
    accessKeyId: await resolveReference(accessKey, context),
    secretAccessKey: await resolveReference(secretKey, context),
    ...(session === undefined ? {} : { sessionToken: await resolveReference(session, context) }),
  };
  const { SecretsManagerClient } = await import("@aws-sdk/client-secrets-manager");
  return new SecretsManagerClient({
    region,
    ...(endpoint === undefined ? {} : { endpoint }),
    credentials,
    maxAttempts: 2,
    requestHandler: { connectionTimeout: 5_000, requestTimeout: 10_000 },
    ...PINNED_AWS_SDK_SETTINGS,
  } as SecretsManagerClientConfig);
}
