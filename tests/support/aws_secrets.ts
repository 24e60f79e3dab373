/**
 * A test double of AWS Secrets Manager — not AWS. It speaks the service's
 * JSON protocol (`POST /`, `Content-Type: application/x-amz-json-1.1`,
 * `X-Amz-Target: secretsmanager.GetSecretValue`) over a real socket on
 * 127.0.0.1, so the real `@aws-sdk/client-secrets-manager` client can be
 * pointed at it. It checks that a request is SigV4-signed with the access
 * key it was given (it does not verify the signature) and answers an
 * unknown secret with `ResourceNotFoundException`, as the service does.
 *
 * @module
 */

/** A running double. */
export interface AwsSecretsDouble {
  /** `http://127.0.0.1:<port>`. */
  readonly endpoint: string;
  /** Stores (or rotates) a secret's string value. */
  put(name: string, value: string): void;
  /** GetSecretValue calls served, by SecretId. */
  readonly requests: string[];
  close(): Promise<void>;
}

/** Starts a double accepting requests signed with `accessKeyId`. */
export function startAwsSecretsDouble(accessKeyId: string): AwsSecretsDouble {
  const secrets = new Map<string, { value: string; version: number }>();
  const requests: string[] = [];
  const answer = (status: number, body: unknown, type?: string) =>
    new Response(JSON.stringify(body), {
      status,
      headers: {
        "content-type": "application/x-amz-json-1.1",
        ...(type ? { "x-amzn-errortype": type } : {}),
      },
    });
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    const target = req.headers.get("x-amz-target");
    const auth = req.headers.get("authorization") ?? "";
    if (!auth.startsWith(`AWS4-HMAC-SHA256 Credential=${accessKeyId}/`)) {
      return answer(400, {
        __type: "UnrecognizedClientException",
        message: "The security token included in the request is invalid.",
      }, "UnrecognizedClientException");
    }
    if (req.method !== "POST" || target !== "secretsmanager.GetSecretValue") {
      return answer(400, { __type: "UnknownOperationException" }, "UnknownOperationException");
    }
    const { SecretId } = await req.json() as { SecretId: string };
    requests.push(SecretId);
    const found = secrets.get(SecretId);
    if (!found) {
      return answer(400, {
        __type: "ResourceNotFoundException",
        message: "Secrets Manager can't find the specified secret.",
      }, "ResourceNotFoundException");
    }
    return answer(200, {
      ARN: `arn:aws:secretsmanager:us-east-1:000000000000:secret:${SecretId}-AbCdEf`,
      Name: SecretId,
      SecretString: found.value,
      VersionId: `v${found.version}`,
      VersionStages: ["AWSCURRENT"],
      CreatedDate: Date.now() / 1000,
    });
  });
  return {
    endpoint: `http://127.0.0.1:${server.addr.port}`,
    put(name, value) {
      secrets.set(name, { value, version: (secrets.get(name)?.version ?? 0) + 1 });
    },
    requests,
    close: () => server.shutdown(),
  };
}
