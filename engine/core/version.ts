/**
 * The engine's version, shared by `sutra-engine` and the `sutra` CLI.
 *
 * @module
 */

/** Semantic version of this engine build. */
export const ENGINE_VERSION = "0.1.0";
