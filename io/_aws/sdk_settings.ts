/**
 * The AWS SDK client settings Sutra always passes itself. Given here, the
 * SDK does not look them up in `AWS_*` variables and `~/.aws` files, which
 * would need the user id (`--allow-sys=uid`) the engine's permission set
 * does not grant. Spread into every AWS client's configuration (the SQS
 * transport, the `aws-secrets:` resolver).
 *
 * @module
 */

/** Settings every AWS client gets, so none is read from the machine. */
export const PINNED_AWS_SDK_SETTINGS = {
  defaultsMode: "standard",
  retryMode: "standard",
  useFipsEndpoint: false,
  useDualstackEndpoint: false,
  authSchemePreference: [] as string[],
  userAgentAppId: "sutra",
  disableClockSkewCorrection: false,
} as const;
